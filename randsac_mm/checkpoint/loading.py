"""Refuses a pretrained checkpoint that would load nothing, or the wrong
thing, into a backbone.

mmengine's ``Pretrained`` initialisation loads with ``strict=False`` and
only logs mismatched keys, so an empty path, a checkpoint of another
model or a wrong prefix silently leaves a randomly initialised backbone.
"""
import os.path as osp
import pickle
import zipfile

import torch

__all__ = ['PretrainedCheckpointError', 'check_pretrained_checkpoint',
           'encoder_state', 'stored_config', 'summarise_keys']

RESIZABLE = ('pos_embed', )  # resized on load by VisionTransformer


class PretrainedCheckpointError(ValueError):
    """The pretrained checkpoint cannot initialise the backbone."""


def _load(path):
    try:
        return torch.load(path, map_location='cpu')
    except (zipfile.BadZipFile, pickle.UnpicklingError, EOFError,
            RuntimeError) as e:
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint {path!r} is not a readable checkpoint '
            f'(corrupted or truncated file?): {type(e).__name__}: '
            f'{str(e).splitlines()[0][:200]}') from e


def encoder_state(state_dict, prefix, error_cls, source):
    """The entries of ``state_dict`` under ``prefix``, with it stripped.

    Raises:
        error_cls: when no key starts with ``prefix``; the message names
            ``source`` and the prefixes the keys do have.
    """
    encoder = {k[len(prefix):]: v for k, v in state_dict.items()
               if k.startswith(prefix)}
    if not encoder:
        starts = sorted({k.split('.', 1)[0] + '.' for k in state_dict})[:8]
        raise error_cls(
            f'{source} has no encoder keys starting with {prefix!r} (its keys '
            f'start with {starts}): not a RandSAC pretraining checkpoint? '
            'Set init_cfg.prefix to match')
    return encoder


def summarise_keys(keys):
    """'layers.12.attn.qkv.weight', ... -> 'layers.12-14.*' and the rest."""
    layers = sorted({int(k.split('.')[1]) for k in keys
                     if k.startswith('layers.')})
    span = f'{layers[0]}-{layers[-1]}' if len(layers) > 1 else \
        ''.join(map(str, layers))
    parts = [f'layers.{span}.*'] if layers else []
    return parts + [k for k in keys if not k.startswith('layers.')]


def stored_config(state):
    """The config mmengine stored in a checkpoint, or None.

    Parsed without importing its ``custom_imports``: a checkpoint written
    before a module was renamed still names the old one.

    Args:
        state (dict): a loaded checkpoint (``meta['cfg']``: the config text).

    Returns:
        mmengine.Config | None
    """
    import tempfile

    from mmengine.config import Config
    text = state.get('meta', {}).get('cfg') if isinstance(state, dict) \
        else None
    if not isinstance(text, str):
        return None
    with tempfile.NamedTemporaryFile('w', suffix='.py') as f:
        f.write(text)
        f.flush()
        return Config.fromfile(f.name, import_custom_modules=False)


def _matching_configs(state):
    """The evaluation configs the checkpoint's own pretraining config names
    (its ``eval_configs``; mmengine stores the config in the checkpoint)."""
    try:
        cfg = stored_config(state)
    except Exception:  # not an mmengine config: no suggestion
        return []
    return list(dict(cfg.get('eval_configs') or {}).values()) if cfg \
        else []


def check_pretrained_checkpoint(module, checkpoint, prefix='backbone.',
                                unused_keys=()):
    """Checks ``checkpoint`` against ``module``'s parameters.

    Keys under the module's ``NEW_MODULE_PREFIXES`` (parts that exist only
    downstream, like a feature pyramid) are not expected in the checkpoint.
    Encoder keys the module lacks are refused (mmengine would drop them
    silently: a deeper encoder would lose its last layers) unless listed in
    ``unused_keys``.

    Args:
        module (torch.nn.Module): the backbone to initialise.
        checkpoint (str): checkpoint path (a local file).
        prefix (str): key prefix of the backbone inside the checkpoint.
        unused_keys (tuple[str]): encoder keys of the checkpoint that the
            module knowingly leaves unused (the two-stream ``query_token``).

    Raises:
        PretrainedCheckpointError: empty or missing path, unreadable file,
            no key with ``prefix``, missing or unexpected keys, or shapes
            that differ.
    """
    hint = ('pass the pretraining checkpoint with --cfg-options '
            'model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/'
            'epoch_<N>.pth')
    if not checkpoint:
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint is empty: {hint}')
    if '://' in checkpoint:
        return  # remote files are checked by mmengine when downloaded
    if not osp.isfile(checkpoint):
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint {checkpoint!r} does not exist: {hint}')
    loaded = _load(checkpoint)
    state = loaded.get('state_dict', loaded) if isinstance(loaded, dict) \
        else {}
    backbone = encoder_state(state, prefix, PretrainedCheckpointError,
                             f'init_cfg.checkpoint {checkpoint!r}')
    new = tuple(getattr(module, 'NEW_MODULE_PREFIXES', ()))
    expected = {k: v for k, v in module.state_dict().items()
                if not k.startswith(new)}
    missing = sorted(set(expected) - set(backbone))
    if missing:
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint {checkpoint!r} lacks {len(missing)} '
            f'backbone keys, e.g. {missing[:5]}: a checkpoint of another '
            'architecture?')
    unexpected = sorted(set(backbone) - set(module.state_dict()) -
                        set(unused_keys))
    if unexpected:
        matching = _matching_configs(loaded)
        suggestion = (f'evaluate it with {" or ".join(matching)}'
                      if matching else 'use a config whose backbone has the '
                      "checkpoint's depth and type")
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint {checkpoint!r} has {len(unexpected)} '
            f'encoder keys the backbone lacks, {summarise_keys(unexpected)}'
            ' (a deeper encoder, or a two-stream one): they would be '
            f'dropped silently; {suggestion}')
    wrong = [f'{k}: checkpoint {tuple(backbone[k].shape)} vs model '
             f'{tuple(v.shape)}' for k, v in expected.items()
             if k not in RESIZABLE and backbone[k].shape != v.shape]
    if wrong:
        raise PretrainedCheckpointError(
            f'init_cfg.checkpoint {checkpoint!r} is from another architecture:'
            f' {wrong[:3]}')
