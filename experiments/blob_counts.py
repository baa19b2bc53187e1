"""How many segments and partitions blob layouts really have.

The paper's blob draw (its appendix) drops Gaussian components that catch
no token, and likewise at every hierarchy level, so a layout can have fewer
segments than K and fewer partitions than asked for, down to a single
partition (a flat layout). These functions sample a config's layouts as its
training pipeline does and count them (tools/analysis/blob_counts.py).
"""
import numpy as np

__all__ = ['blob_generators', 'count_statistics', 'summary_line']


def blob_generators(paths, exact_counts):
    """(config path, RandSACSegmentGenerator) of every blob config."""
    from mmengine.config import Config

    from randsac_mm.datasets import RandSACSegmentGenerator
    found = []
    for path in paths:
        cfg = Config.fromfile(path)
        try:
            generator = RandSACSegmentGenerator.from_config(cfg)
        except ValueError:  # not a RandSAC pretraining config
            continue
        spec = generator.spec
        if spec.segment != 'blob':
            continue
        if exact_counts:
            step = dict(input_size=generator.input_size,
                        patch_size=generator.patch_size, segment='blob',
                        num_segments=spec.num_segments,
                        hierarchy=spec.hierarchy,
                        serialization=spec.serialization,
                        coherent=spec.coherent, exact_counts=True)
            generator = RandSACSegmentGenerator(**step)
        found.append((path, generator))
    return found


def count_statistics(generator, samples, seed):
    """Segment and partition counts of ``samples`` layouts.

    Returns:
        dict: ``k``, ``hierarchy``, ``segments_mean``, ``below_k`` (share),
        and per level ``levels[i]``: ``nominal``, ``mean``, ``below`` and
        ``collapsed`` (share with a single group).
    """
    from randsac_mm.segments import make_layout
    spec = generator.spec
    rng = np.random.default_rng(seed)
    segments = np.empty(samples, dtype=np.int64)
    groups = np.empty((samples, len(spec.hierarchy)), dtype=np.int64)
    for i in range(samples):
        layout = make_layout(spec, rng)
        segments[i] = layout.num_segments
        groups[i] = [len(np.unique(level)) for level in layout.groups]
    levels = [dict(nominal=int(count), mean=float(groups[:, i].mean()),
                   below=float((groups[:, i] < count).mean()),
                   collapsed=float((groups[:, i] == 1).mean()))
              for i, count in enumerate(spec.hierarchy)]
    return dict(k=spec.num_segments, hierarchy=list(spec.hierarchy),
                grid=list(spec.grid), segments_mean=float(segments.mean()),
                below_k=float((segments < spec.num_segments).mean()),
                levels=levels)


def summary_line(stats):
    """e.g. '10.55 of 11 (41% below); 5 groups: 4.71 (25% below, 0.0% one)'"""
    text = (f"{stats['segments_mean']:.2f} of {stats['k']} "
            f"({100 * stats['below_k']:.0f}% below)")
    for level in stats['levels']:
        text += (f"; {level['nominal']} groups: {level['mean']:.2f} "
                 f"({100 * level['below']:.0f}% below, "
                 f"{100 * level['collapsed']:.1f}% one)")
    return text
