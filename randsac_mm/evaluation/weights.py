"""A checkpoint loaded into the model of its config, every weight, or a
one-line error that names the argument: what the frozen evaluation and the
picture tools load."""
import os.path as osp
import re

__all__ = ['load_weights']

# Resized on load by mmpretrain's VisionTransformer (a hook of its
# load_state_dict).
RESIZED_ON_LOAD = ('pos_embed', )


def _listed(keys, shown=3):
    keys = sorted(keys)
    more = f', ... ({len(keys)} in all)' if len(keys) > shown else ''
    return ', '.join(keys[:shown]) + more


def load_weights(model, checkpoint, argument='checkpoint', config=None):
    """Loads every weight of ``checkpoint`` into ``model``, strictly.

    Unlike mmengine's ``load_checkpoint``, a file that is not a checkpoint,
    or a checkpoint of another model, is a ValueError naming ``argument``
    and what fits, not a traceback from deep in torch.

    Args:
        model (torch.nn.Module): the config's model, built.
        checkpoint (str): an mmengine checkpoint (``state_dict`` and
            ``meta``) or a bare state dict; keys may carry the ``module.``
            prefix of a wrapped model.
        argument (str): the caller's name of the checkpoint, for errors.
        config (str | None): the config's file, for errors.

    Returns:
        torch.nn.Module: ``model``, loaded.

    Raises:
        ValueError: the file is not a readable checkpoint, holds no weights,
            or its weights do not fit the model (missing, unexpected or
            differently shaped).
    """
    import torch
    from mmengine.runner.checkpoint import _load_checkpoint
    name = osp.basename(checkpoint)
    try:
        state = _load_checkpoint(checkpoint, map_location='cpu',
                                 logger='current')
    except Exception as e:  # any reader's failure: not a checkpoint
        why = (str(e).strip().splitlines() or [''])[0][:160]
        raise ValueError(
            f'{argument}: {name} is not a readable PyTorch checkpoint '
            f'({type(e).__name__}{": " + why if why else ""}); give a .pth '
            'that training wrote') from e
    weights = state.get('state_dict', state) if isinstance(state, dict) \
        else None
    if not weights or not all(isinstance(v, torch.Tensor)
                              for v in weights.values()):
        raise ValueError(
            f'{argument}: {name} holds no state_dict of weights; give a '
            '.pth that training wrote')
    if any(k.startswith('module.') for k in weights):  # as mmengine strips
        weights = {re.sub(r'^module\.', '', k): v for k, v in weights.items()}
    expected = model.state_dict()
    missing = set(expected) - set(weights)
    unexpected = set(weights) - set(expected)
    reshaped = {k for k in set(expected) & set(weights)
                if expected[k].shape != weights[k].shape
                and not k.endswith(RESIZED_ON_LOAD)}
    if missing or unexpected or reshaped:
        problems = []
        if missing:
            problems.append(f'lacks {_listed(missing)}')
        if unexpected:
            problems.append(f'has no place for {_listed(unexpected)}')
        if reshaped:
            k = sorted(reshaped)[0]
            problems.append(
                f'has other shapes ({k}: {tuple(weights[k].shape)}, the '
                f'model: {tuple(expected[k].shape)}; {len(reshaped)} in all)')
        of = f"{osp.basename(config)}'s" if config else "the config's"
        raise ValueError(
            f'{argument}: {name} does not fit {of} model '
            f'({type(model).__name__}): it {"; it ".join(problems)}; give a '
            'checkpoint of that config (or the config it was trained with)')
    model.load_state_dict(weights, strict=True)
    return model
