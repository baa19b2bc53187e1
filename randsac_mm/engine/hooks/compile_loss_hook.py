"""Compiles the model's loss, the part of a training step that is the
model's own."""
import functools

import torch
from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS

__all__ = ['CompileLossHook', 'compile_loss']


def compile_loss(model, **options):
    """Makes ``model.loss`` the compiled loss of its class, run on
    ``model``.

    The function of the class is compiled, not the bound method: a deep
    copy of the model (an EMA copy) copies the binding with it and runs its
    own weights. A loss that plans on the host first (``RandSAC.
    plan_batch``, ``torch.compiler.disable``) runs that part eagerly and
    compiles the rest.

    Args:
        model (torch.nn.Module): a model with a ``loss(inputs,
            data_samples)`` method (``BaseSelfSupervisor``), not wrapped.
        **options: ``torch.compile``'s (``backend``, ``mode``, ...).

    Returns:
        the compiled function (of the class).
    """
    compiled = torch.compile(type(model).loss, **options)
    model.loss = functools.partial(compiled, model)
    return compiled


@HOOKS.register_module()
class CompileLossHook(Hook):
    """Runs each training step's ``model.loss`` compiled.

    mmengine's own ``compile=True`` compiles the whole ``train_step``, data
    preprocessing and optimizer step included; this hook compiles only the
    loss (the backbone, neck and head of a step), which the model's
    ``forward(mode='loss')`` calls. The first steps (and the first of each
    new sequence length, with blobs) are slow while it compiles.
    ``tools/train.py --compile`` adds it.

    Args:
        **options: ``torch.compile``'s arguments, e.g.
            ``mode='max-autotune'``.
    """

    priority = 'VERY_LOW'

    def __init__(self, **options):
        self.options = options

    def before_train(self, runner):
        model = runner.model.module if is_model_wrapper(runner.model) \
            else runner.model
        compile_loss(model, **self.options)
