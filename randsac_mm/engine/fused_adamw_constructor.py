"""mmengine's optimizer constructor, with one group per distinct setting
and Adam/AdamW fused into one kernel on GPUs."""
from mmengine.optim import DefaultOptimWrapperConstructor
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS

from ..argument_limits import unread_argument
from .param_groups import merge_param_groups

__all__ = ['FusedAdamWConstructor']

FUSABLE = ('Adam', 'AdamW')


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class FusedAdamWConstructor(DefaultOptimWrapperConstructor):
    """mmengine's default constructor (``paramwise_cfg`` and all), with:

    - the parameters ``paramwise_cfg`` gives the same settings in one group
      (``merge_param_groups``: 3 groups instead of 313 for the main config;
      the updates are the same);
    - Adam and AdamW given ``fused=True`` when the model is on CUDA: the
      update of a group in one kernel instead of torch's default
      multi-tensor loop. Elsewhere (a CPU: the tests and the demo) the
      optimizer is torch's default, so CPU runs do not change. An explicit
      ``fused`` or ``foreach`` in the config is kept.

    Checkpoints store the optimizer state by group: one written before the
    groups were merged (313 groups) does not resume into this one.
    """

    def __init__(self, optim_wrapper_cfg, paramwise_cfg=None):
        rate = (paramwise_cfg or {}).get('layer_decay_rate')
        if rate is not None:  # mmengine's add_params would ignore it
            raise unread_argument(
                'paramwise_cfg.layer_decay_rate', rate,
                'FusedAdamWConstructor', 'layer-wise decay: '
                "constructor='LearningRateDecayOptimWrapperConstructor'")
        super().__init__(optim_wrapper_cfg, paramwise_cfg)

    def __call__(self, model):
        optimizer = self.optimizer_cfg
        first = next(model.parameters(), None)
        on_cuda = first is not None and first.device.type == 'cuda'
        if (on_cuda and optimizer.get('type') in FUSABLE
                and 'fused' not in optimizer and 'foreach' not in optimizer):
            self.optimizer_cfg = dict(optimizer, fused=True)
        return super().__call__(model)

    def add_params(self, params, module, prefix='', **kwargs):
        # mmengine recurses through the modules with their prefixes; the
        # outermost call (no prefix) merges what all of them added.
        super().add_params(params, module, prefix, **kwargs)
        if not prefix:
            params[:] = merge_param_groups(params)
