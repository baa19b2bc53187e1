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

On the batch data path (``InMemoryBatchImages``) the layout is the data
set's ``layout`` dict, and the same statement sets it there::

    train_dataloader = dict(dataset=dict(layout=with_segments(
        _base_.layout, segment='blob', num_segments=7)))

Framework-free, like the rest of this package: it edits config dicts.
"""
import inspect

from .registry import SEGMENT_SCHEMES
from .spec import SegmentSpec

__all__ = ['GRID_KEYS', 'SPEC_KEYS', 'layout_keys', 'with_segments']

LAYOUT_STEP = 'RandSACSegmentGenerator'
# The layout step's token grid, for a config whose encoder changes it.
GRID_KEYS = ('input_size', 'patch_size')
_SPEC_PARAMETERS = inspect.signature(SegmentSpec).parameters
# SegmentSpec's arguments that every scheme has: all but the grid (the
# step's GRID_KEYS give it) and the scheme's options.
SPEC_KEYS = tuple(name for name, p in _SPEC_PARAMETERS.items()
                  if name != 'grid' and p.kind is not p.VAR_KEYWORD)
DEFAULT_SEGMENT = _SPEC_PARAMETERS['segment'].default


def layout_keys():
    """What a config may set: ``SPEC_KEYS`` and the options of every
    registered scheme, including schemes registered after this module was
    imported.

    Returns:
        tuple[str]: e.g. ``('segment', 'serialization', 'coherent',
        'hierarchy', 'square_size', 'num_segments', 'exact_counts')``.
    """
    options = [name for _, scheme in SEGMENT_SCHEMES.items()
               for name in scheme.option_names()]
    return tuple(dict.fromkeys(SPEC_KEYS + tuple(options)))


def _set_layout(step, layout):
    """``step`` (a layout step's config) with ``layout`` set on it."""
    old = step.get('segment', DEFAULT_SEGMENT)
    if layout.get('segment', old) != old:
        # Options belong to a scheme: a base's square_size does not apply
        # to its variant's blobs, so another segment drops them.
        step = {key: value for key, value in step.items()
                if key in ('type', ) + GRID_KEYS + SPEC_KEYS}
    return dict(step, **layout)


def with_segments(pipeline, **layout):
    """``pipeline`` with ``layout`` set on its layout step.

    Args:
        pipeline (list[dict] | dict): transform configs with exactly one
            ``RandSACSegmentGenerator``, or the layout arguments of a batch
            data set (a dict with ``input_size`` and ``patch_size``).
        **layout: any of :func:`layout_keys` and of ``GRID_KEYS``; they
            replace the step's values. A ``segment`` other than the step's
            also drops the step's options of its old scheme. The layout
            step checks that the options fit the scheme.

    Returns:
        list[dict] | dict: a new pipeline (or layout); the given one is
        not changed.

    Raises:
        ValueError: an unknown key, or not exactly one layout step.
    """
    allowed = layout_keys() + GRID_KEYS
    unknown = sorted(set(layout) - set(allowed))
    if unknown:
        raise ValueError(f'with_segments: unknown layout keys {unknown}; '
                         f'allowed: {allowed}')
    if isinstance(pipeline, dict):
        return _set_layout(pipeline, layout)
    steps = [i for i, step in enumerate(pipeline)
             if step.get('type') == LAYOUT_STEP]
    if len(steps) != 1:
        raise ValueError(f'with_segments: the pipeline needs exactly one '
                         f'{LAYOUT_STEP}, it has {len(steps)}')
    return [_set_layout(step, layout) if i == steps[0] else step
            for i, step in enumerate(pipeline)]
