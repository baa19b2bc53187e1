"""The one reader of checkpoint files: its weights and the config mmengine
stored in it, or an error that names the argument.

Every path that reads a checkpoint reads it here (test, resume, frozen
evaluation, pictures, export, conversion, a backbone's pretrained
initialisation, ``apis.load_model``), so a file that is not a checkpoint is
one line naming the argument, not a traceback from inside torch or
mmengine.
"""
import os.path as osp
import re

__all__ = ['TRAINING_STATE', 'lacking_training_state', 'read_checkpoint',
           'stored_config', 'training_progress']


# What makes a checkpoint a training checkpoint, which mmengine resumes:
# the epoch and iteration it ends, and the optimizer's state.
TRAINING_STATE = ('meta.epoch', 'meta.iter', 'optimizer')


def _load(path):
    """``torch.load`` of ``path`` on the CPU, tensors memory-mapped where
    the file allows it, mmengine's training globals allowed."""
    import torch

    from .safe_globals import allow_mmengine_checkpoint_globals
    allow_mmengine_checkpoint_globals()
    try:
        return torch.load(path, map_location='cpu', mmap=True)
    except Exception:  # an old (non-zip) file: mmap cannot map it
        return torch.load(path, map_location='cpu')


def read_checkpoint(path, argument, error=ValueError):
    """An mmengine checkpoint and its model state, refusing what is not one.

    Tensors are memory-mapped where the file allows it (the zip format of
    torch >= 1.6): listing a large checkpoint's keys reads little of it.
    ``torch.load`` reads weights only (torch's default), with the globals
    of mmengine's training checkpoints allowed (``safe_globals``): a user's
    script need not import ``randsac_mm.registration`` first.

    Args:
        path (str): the file given.
        argument (str): the argument's name, for the message.
        error (type): what a file that is not a checkpoint raises (a
            ValueError subclass).

    Returns:
        tuple: (the loaded object, its state dict with a wrapped model's
        ``module.`` prefix removed, as mmengine loads it).

    Raises:
        FileNotFoundError: no such file.
        error: not readable by ``torch.load``, or no state dict in it.
    """
    import torch
    if not osp.isfile(path):
        raise FileNotFoundError(f'{argument}: no such checkpoint file '
                                f'{path!r}')
    try:
        loaded = _load(path)
    except Exception as e:  # any reader's failure: not a checkpoint
        why = ' '.join(str(e).split())[:160]
        raise error(
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
        raise error(f'{argument}: {osp.basename(path)} holds no state_dict '
                    f'(it holds {held}): not a model checkpoint; give a .pth '
                    'that training wrote')
    return loaded, {re.sub(r'^module\.', '', k): v for k, v in state.items()}


def stored_config(loaded):
    """The config mmengine stored in a checkpoint, or None.

    Parsed without importing its ``custom_imports``: a checkpoint written
    before a module was renamed still names the old one.

    Args:
        loaded (dict): a loaded checkpoint (``meta['cfg']``: the config
            text), from :func:`read_checkpoint`.

    Returns:
        mmengine.Config | None
    """
    import tempfile

    from mmengine.config import Config
    meta = loaded.get('meta') if isinstance(loaded, dict) else None
    text = meta.get('cfg') if isinstance(meta, dict) else None
    if not isinstance(text, str):
        return None
    with tempfile.NamedTemporaryFile('w', suffix='.py') as f:
        f.write(text)
        f.flush()
        return Config.fromfile(f.name, import_custom_modules=False)


def lacking_training_state(loaded):
    """The entries of ``TRAINING_STATE`` a loaded checkpoint lacks (all of
    them for what is not a dict)."""
    if not isinstance(loaded, dict):
        return list(TRAINING_STATE)
    meta = loaded.get('meta') if isinstance(loaded.get('meta'), dict) \
        else {}
    lacking = []
    for key in TRAINING_STATE:
        if key.startswith('meta.'):
            present = isinstance(meta.get(key[len('meta.'):]), int)
        else:
            present = key in loaded
        if not present:
            lacking.append(key)
    return lacking


def training_progress(path):
    """The (epoch, iteration) a training checkpoint ends, or None for a file
    that is not one.

    A training checkpoint is what mmengine's ``CheckpointHook`` saves, with
    the whole ``TRAINING_STATE``. An encoder (``tools/model_converters``
    output), an export, a bare state dict or a file ``torch.load`` cannot
    read is not one. The tensors are memory-mapped: a large checkpoint
    costs little to look at.

    Args:
        path (str): a file.

    Returns:
        tuple[int, int] | None
    """
    try:
        loaded = _load(path)
    except Exception:  # not a checkpoint at all
        return None
    if lacking_training_state(loaded):
        return None
    return loaded['meta']['epoch'], loaded['meta']['iter']
