"""A checkpoint file read for a tool's checks: its weights, or an error
that names the argument, and how its weights fit a model.

What every tool that takes a checkpoint (test, resume, frozen evaluation,
pictures, export) reads it with, so a file that is not a checkpoint, or a
checkpoint of another model, is one line naming the argument, not a
traceback from inside torch or mmengine.
"""
import os.path as osp
import re

__all__ = ['NOT_REQUIRED', 'RESIZED_ON_LOAD', 'few', 'read_checkpoint',
           'weight_mismatch']

# Keys whose shape the model adapts on load (mmpretrain's VisionTransformer
# resizes its position embedding), and BatchNorm's counter, which mmengine
# does not require either.
RESIZED_ON_LOAD = ('pos_embed', )
NOT_REQUIRED = ('num_batches_tracked', )


def read_checkpoint(path, argument):
    """An mmengine checkpoint and its model state, refusing what is not one.

    Tensors are memory-mapped where the file allows it (the zip format of
    torch >= 1.6): listing a large checkpoint's keys reads little of it.

    Args:
        path (str): the file given.
        argument (str): the argument's name, for the message.

    Returns:
        tuple: (the loaded object, its state dict with a wrapped model's
        ``module.`` prefix removed, as mmengine loads it).

    Raises:
        FileNotFoundError: no such file.
        ValueError: not readable by ``torch.load``, or no state dict in it.
    """
    import torch
    if not osp.isfile(path):
        raise FileNotFoundError(f'{argument}: no such checkpoint file '
                                f'{path!r}')
    try:
        try:
            loaded = torch.load(path, map_location='cpu', mmap=True)
        except Exception:  # an old (non-zip) file: mmap cannot map it
            loaded = torch.load(path, map_location='cpu')
    except Exception as e:  # any reader's failure: not a checkpoint
        why = ' '.join(str(e).split())[:160]
        raise ValueError(
            f'{argument}: {osp.basename(path)} is not a checkpoint torch.load '
            f'can read ({type(e).__name__}{": " + why if why else ""}); give '
            'a .pth that training wrote') from e
    if isinstance(loaded, dict) and isinstance(loaded.get('state_dict'),
                                               dict):
        state = loaded['state_dict']
    elif isinstance(loaded, dict) and loaded and all(
            torch.is_tensor(v) for v in loaded.values()):
        state = loaded  # a bare state dict, as mmengine also loads
    else:
        held = sorted(map(str, loaded))[:6] if isinstance(loaded, dict) \
            else type(loaded).__name__
        raise ValueError(f'{argument}: {osp.basename(path)} holds no '
                         f'state_dict (it holds {held}): not a model '
                         'checkpoint; give a .pth that training wrote')
    return loaded, {re.sub(r'^module\.', '', k): v for k, v in state.items()}


def weight_mismatch(expected, state):
    """How a checkpoint's weights fit a model's.

    Args:
        expected (dict): the model's ``state_dict()``.
        state (dict): the checkpoint's, from :func:`read_checkpoint`.

    Returns:
        tuple[list[str]]: the model's keys the checkpoint lacks (but
        ``NOT_REQUIRED``), the checkpoint's keys the model lacks, and
        ``'key (shape) vs (shape)'`` of the keys whose shapes differ (but
        ``RESIZED_ON_LOAD``); all empty when it fits.
    """
    missing = [k for k in expected
               if k not in state and not k.endswith(NOT_REQUIRED)]
    unexpected = [k for k in state if k not in expected]
    reshaped = []
    for key in expected:
        if key in state and not key.endswith(RESIZED_ON_LOAD):
            mine = tuple(expected[key].shape)
            theirs = tuple(getattr(state[key], 'shape', ()))
            if mine != theirs:
                reshaped.append(f'{key} {theirs} vs {mine}')
    return missing, unexpected, reshaped


def few(keys, count=4):
    """The first ``count`` of ``keys``, and '...' when there are more."""
    keys = list(keys)
    return ', '.join(keys[:count]) + (', ...' if len(keys) > count else '')
