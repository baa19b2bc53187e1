"""Frozen-encoder evaluation of a pretraining config's checkpoint, on the
labelled data of a data config (the demo, the study, eval_frozen.py)."""
import statistics

from .config import build_model

__all__ = ['check_probe_seeds', 'evaluate_checkpoint', 'labelled_loaders',
           'mean_over_probe_seeds']


def labelled_loaders(data_config, train_images=None, test_images=None,
                     data_root=None, seed=0):
    """The training and test loaders of a data config (one with
    ``train_dataloader`` and ``test_dataloader`` without augmentation,
    e.g. ``configs/_base_/datasets/fashion-mnist.py``).

    Args:
        data_config (str | mmengine.Config): the data config.
        train_images, test_images (int | None): the first so many images
            (default: all).
        data_root (str | None): overrides the datasets' ``data_root``.

    Returns:
        tuple: (train loader, test loader).
    """
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmengine.runner import Runner
    data = Config.fromfile(data_config) if isinstance(data_config, str) \
        else data_config
    loaders = []
    for loader, count in ((data.train_dataloader, train_images),
                          (data.test_dataloader, test_images)):
        loader = loader.copy()
        loader.dataset = dict(loader.dataset)
        if count:
            loader.dataset['indices'] = count
        if data_root:
            loader.dataset['data_root'] = data_root
        with DefaultScope.overwrite_default_scope('mmpretrain'):
            loaders.append(Runner.build_dataloader(loader, seed=seed))
    return tuple(loaders)


def evaluate_checkpoint(cfg, checkpoint, loaders, seed=0,
                        readouts=('linear', 'knn'), probe_seeds=None,
                        **kwargs):
    """The readouts (``randsac_mm.evaluation.read_out``) of the config's
    encoder loaded from ``checkpoint`` (None: as initialised with ``seed``,
    the no-pretraining baseline), its features extracted once.

    Args:
        cfg (mmengine.Config): the pretraining config.
        loaders (tuple): from :func:`labelled_loaders`.
        seed (int): the random initialisation's seed, and the probes'.
        readouts (tuple[str]): see ``evaluate_frozen``.
        probe_seeds (list[int] | None): trains the probes once per seed on
            the same features, to measure how much a probe's own seed
            (initialisation, batch order) moves its accuracy: see
            :func:`mean_over_probe_seeds`. None: once, with ``seed``.
        **kwargs: passed to ``read_out`` (``k``, ``temperature``,
            ``probe_epochs``).
    """
    from ..evaluation import extract_readout_features, read_out
    if probe_seeds is not None:
        check_probe_seeds(probe_seeds)
    model = build_model(cfg, checkpoint, seed=seed)
    features = extract_readout_features(model, *loaders, readouts)
    if probe_seeds is None:
        return read_out(features, readouts, seed=seed, **kwargs)
    return mean_over_probe_seeds(
        [read_out(features, readouts, seed=s, **kwargs)
         for s in probe_seeds], probe_seeds)


def check_probe_seeds(probe_seeds, name='probe_seeds'):
    """Raises ValueError, naming the argument ``name``, unless
    ``probe_seeds`` holds at least one seed and no seed twice (a repeated
    seed repeats its result and shrinks the standard deviation)."""
    if not probe_seeds:
        raise ValueError(f'{name}: give at least one seed, or None for one '
                         'probe seeded with seed')
    if len(set(probe_seeds)) != len(probe_seeds):
        raise ValueError(f'{name} must be distinct, got {list(probe_seeds)}')


def mean_over_probe_seeds(results, probe_seeds):
    """One readout result from several probe seeds' (``read_out`` dicts).

    Returns:
        dict: each accuracy averaged over the seeds (``layer_linear`` per
        layer, ``best_layer`` of those means); ``probe_seeds``;
        ``per_probe_seed``, the results as given; ``probe_seed_sd``, the
        standard deviation over the seeds of each of the
        ``ACCURACY_READOUTS`` read out (0 for one seed).
    """
    from ..evaluation import ACCURACY_READOUTS, best_layer
    mean = dict(results[0])
    spread = {}
    for key in ACCURACY_READOUTS:
        if key in mean:
            values = [r[key] for r in results]
            mean[key] = statistics.mean(values)
            spread[key] = statistics.stdev(values) if len(values) > 1 \
                else 0.0
    if 'layer_linear' in mean:
        mean['layer_linear'] = [statistics.mean(layer) for layer in zip(
            *(r['layer_linear'] for r in results))]
        mean['best_layer'] = best_layer(mean['layer_linear'])
    mean.update(probe_seeds=list(probe_seeds), per_probe_seed=results,
                probe_seed_sd=spread)
    return mean
