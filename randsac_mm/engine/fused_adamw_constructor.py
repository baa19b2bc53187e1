"""Adam and AdamW as one fused kernel on GPUs."""
from mmengine.optim import DefaultOptimWrapperConstructor
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS

__all__ = ['FusedAdamWConstructor']

FUSABLE = ('Adam', 'AdamW')


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class FusedAdamWConstructor(DefaultOptimWrapperConstructor):
    """mmengine's default constructor (``paramwise_cfg`` and all), giving
    Adam and AdamW ``fused=True`` when the model is on CUDA: the update of
    every parameter in one kernel instead of torch's default multi-tensor
    loop. Elsewhere (a CPU: the tests and the demo) the optimizer is
    torch's default, so CPU runs do not change. An explicit ``fused`` or
    ``foreach`` in the config is kept.
    """

    def __call__(self, model):
        optimizer = self.optimizer_cfg
        first = next(model.parameters(), None)
        on_cuda = first is not None and first.device.type == 'cuda'
        if (on_cuda and optimizer.get('type') in FUSABLE
                and 'fused' not in optimizer and 'foreach' not in optimizer):
            self.optimizer_cfg = dict(optimizer, fused=True)
        return super().__call__(model)
