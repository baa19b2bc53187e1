"""Refuses a pretrained checkpoint that would load nothing, or the wrong
thing, into a backbone.

mmengine's ``Pretrained`` initialisation loads with ``strict=False`` and
only logs mismatched keys, so an empty path, a checkpoint of another
model or a wrong prefix silently leaves a randomly initialised backbone.
"""
import os.path as osp

from .fit import check_fit, guess_kind
from .reading import read_checkpoint, stored_config

__all__ = ['PretrainedCheckpointError', 'check_pretrained_checkpoint',
           'encoder_state']

ARGUMENT = 'init_cfg.checkpoint'


class PretrainedCheckpointError(ValueError):
    """The pretrained checkpoint cannot initialise the backbone."""


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


def _matching_configs(loaded):
    """The evaluation configs the checkpoint's own pretraining config names
    (its ``eval_configs``; mmengine stores the config in the checkpoint)."""
    try:
        cfg = stored_config(loaded)
    except Exception:  # not an mmengine config: no suggestion
        return []
    return list(dict(cfg.get('eval_configs') or {}).values()) if cfg \
        else []


def _mae_evaluations():
    """The configs that fine-tune and linear-probe an MAE encoder (with its
    class token): those of configs/benchmarks named '-mae_'."""
    import glob

    from ..installed_files import installed_path
    try:
        configs = installed_path('configs')
    except FileNotFoundError:
        return 'an MAE fine-tune or linear config (configs/benchmarks)'
    found = sorted(glob.glob(osp.join(configs, 'benchmarks', '*',
                                      '*-mae_*.py')))
    return ' or '.join(osp.relpath(p, osp.dirname(configs)) for p in found)


def check_pretrained_checkpoint(module, checkpoint, prefix='backbone.',
                                unused_keys=(), name=None):
    """Checks ``checkpoint`` against ``module``'s parameters
    (``checkpoint.fit.check_fit``, purpose 'init').

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
        name (str | None): how messages name the checkpoint (default: its
            path).

    Raises:
        PretrainedCheckpointError: empty or missing path, unreadable file,
            no key with ``prefix``, or weights that do not fit.
    """
    hint = ('pass the pretraining checkpoint with --cfg-options '
            'model.backbone.init_cfg.checkpoint=work_dirs/<pretrain>/'
            'epoch_<N>.pth')
    if not checkpoint:
        raise PretrainedCheckpointError(f'{ARGUMENT} is empty: {hint}')
    if '://' in checkpoint:
        return  # remote files are checked by mmengine when downloaded
    if not osp.isfile(checkpoint):
        raise PretrainedCheckpointError(
            f'{ARGUMENT} {checkpoint!r} does not exist: {hint}')
    loaded, state = read_checkpoint(checkpoint, f'{ARGUMENT} {checkpoint!r}',
                                    PretrainedCheckpointError)
    backbone = encoder_state(state, prefix, PretrainedCheckpointError,
                             f'{ARGUMENT} {checkpoint!r}')
    matching = _matching_configs(loaded)
    suggestion = f'evaluate it with {" or ".join(matching)}' if matching \
        else None
    if 'cls_token' in backbone and 'cls_token' not in unused_keys and \
            getattr(module, 'cls_token', None) is None:
        # MAE's encoder has a class token, with its own position embedding:
        # its own evaluation configs keep it; UperNet and Mask R-CNN take
        # it converted.
        suggestion = (
            f'{suggestion or "evaluate it with " + _mae_evaluations()}; for '
            'UperNet or Mask R-CNN, convert it first with '
            'tools/model_converters/randsac2downstream.py, which drops its '
            "class token and that token's position embedding")
    check_fit(module.state_dict(), backbone, ARGUMENT, name or checkpoint,
              'init', target='the backbone', kind=guess_kind(state),
              suggestion=suggestion, error=PretrainedCheckpointError,
              not_expected=getattr(module, 'NEW_MODULE_PREFIXES', ()),
              may_remain=unused_keys)
