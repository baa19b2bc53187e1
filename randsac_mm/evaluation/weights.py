"""A checkpoint loaded into the model of its config, every weight, or a
one-line error that names the argument: what the frozen evaluation, the
pictures and the export load."""
import os.path as osp

from ..checkpoint.fit import check_fit
from ..checkpoint.reading import read_checkpoint

__all__ = ['load_weights']


def load_weights(model, checkpoint, argument='checkpoint', config=None):
    """Loads every weight of ``checkpoint`` into ``model``, strictly.

    Unlike mmengine's ``load_checkpoint``, a file that is not a checkpoint,
    or a checkpoint of another model, is a ValueError naming ``argument``
    and what fits (``checkpoint.fit.check_fit``, purpose 'evaluate'), not a
    traceback from deep in torch.

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
            or its weights do not fit the model.
    """
    _, weights = read_checkpoint(checkpoint, argument)
    of = f"{osp.basename(config)}'s" if config else "the config's"
    check_fit(model.state_dict(), weights, argument, checkpoint, 'evaluate',
              target=f'{of} model ({type(model).__name__})')
    # Checked above; strict would refuse what mmengine does not require
    # either (BatchNorm's counter) and what the model resizes (pos_embed).
    model.load_state_dict(weights, strict=False)
    return model
