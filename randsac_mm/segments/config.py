"""The one statement a pretraining config states its segment layout with.

A dataset base's training pipeline holds the layout step with the token
grid only (``RandSACSegmentGenerator`` with ``input_size`` and
``patch_size``); a config sets the layout on it::

    from randsac_mm.segments.config import with_segments
    train_dataloader = dict(dataset=dict(pipeline=with_segments(
        _base_.train_pipeline, segment='square', square_size=2,
        hierarchy=(4, ))))

A config whose encoder has another token grid than its dataset base's
gives it in the same statement (``patch_size=1``, ``input_size=256``).

Framework-free, like the rest of this package: it edits config dicts.
"""
import dataclasses

from .spec import SegmentSpec

__all__ = ['GRID_KEYS', 'LAYOUT_KEYS', 'with_segments']

LAYOUT_STEP = 'RandSACSegmentGenerator'
# What a config may set: every SegmentSpec field but the grid (the step's
# input_size and patch_size give it).
LAYOUT_KEYS = tuple(f.name for f in dataclasses.fields(SegmentSpec)
                    if f.name != 'grid')
# The layout step's token grid, for a config whose encoder changes it.
GRID_KEYS = ('input_size', 'patch_size')


def with_segments(pipeline, **layout):
    """``pipeline`` with ``layout`` set on its layout step.

    Args:
        pipeline (list[dict]): transform configs with exactly one
            ``RandSACSegmentGenerator``.
        **layout: any of ``LAYOUT_KEYS`` (``segment``, ``square_size``,
            ``num_segments``, ``hierarchy``, ``serialization``,
            ``coherent``, ``exact_counts``) and of ``GRID_KEYS``.

    Returns:
        list[dict]: a new pipeline; the given one is not changed.

    Raises:
        ValueError: an unknown key, or not exactly one layout step.
    """
    unknown = sorted(set(layout) - set(LAYOUT_KEYS) - set(GRID_KEYS))
    if unknown:
        raise ValueError(f'with_segments: unknown layout keys {unknown}; '
                         f'allowed: {LAYOUT_KEYS + GRID_KEYS}')
    steps = [i for i, step in enumerate(pipeline)
             if step.get('type') == LAYOUT_STEP]
    if len(steps) != 1:
        raise ValueError(f'with_segments: the pipeline needs exactly one '
                         f'{LAYOUT_STEP}, it has {len(steps)}')
    return [dict(step, **layout) if i == steps[0] else step
            for i, step in enumerate(pipeline)]
