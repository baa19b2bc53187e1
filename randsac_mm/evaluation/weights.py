"""A checkpoint loaded into the model of its config, every weight, or a
one-line error that names the argument: what the frozen evaluation and the
picture tools load."""
import os.path as osp

from ..checkpoint.reading import few, read_checkpoint, weight_mismatch

__all__ = ['load_weights']


def _listed(keys, shown=3):
    """'a, b, c, ... (12 in all)'."""
    more = f' ({len(keys)} in all)' if len(keys) > shown else ''
    return few(sorted(keys), shown) + more


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
    name = osp.basename(checkpoint)
    _, weights = read_checkpoint(checkpoint, argument)
    missing, unexpected, reshaped = weight_mismatch(model.state_dict(),
                                                    weights)
    if missing or unexpected or reshaped:
        problems = []
        if missing:
            problems.append(f'lacks {_listed(missing)}')
        if unexpected:
            problems.append(f'has no place for {_listed(unexpected)}')
        if reshaped:
            problems.append(f'has other shapes ({reshaped[0]}: its shape '
                            f'vs the model\'s; {len(reshaped)} in all)')
        of = f"{osp.basename(config)}'s" if config else "the config's"
        raise ValueError(
            f'{argument}: {name} does not fit {of} model '
            f'({type(model).__name__}): it {"; it ".join(problems)}; give a '
            'checkpoint of that config (or the config it was trained with)')
    # Checked above; strict would refuse what mmengine does not require
    # either (BatchNorm's counter) and what the model resizes (pos_embed).
    model.load_state_dict(weights, strict=False)
    return model
