"""The optim wrapper a run's precision flag asks for (``--amp``,
``--amp-dtype``, ``--fp32``): mmengine's ``AmpOptimWrapper`` (float16 with
loss scaling) or our ``AutocastOptimWrapper`` (bf16, or float32), set in a
config before it is built."""

__all__ = ['AMP_DTYPES', 'AUTOCAST_ONLY_KEYS', 'enable_amp',
           'force_float32']

AMP_DTYPES = {'cuda': ('bfloat16', 'float16'), 'cpu': ('bfloat16', )}
# Keys of our AutocastOptimWrapper that mmengine's AmpOptimWrapper refuses.
AUTOCAST_ONLY_KEYS = ('precision', 'tf32')


def enable_amp(cfg, dtype=None):
    """Switches ``cfg.optim_wrapper`` to mixed precision for this machine.

    Args:
        cfg (mmengine.Config): modified in place.
        dtype (str | None): the autocast dtype, one of ``AMP_DTYPES`` for
            the device; None: bfloat16. bfloat16 uses our
            ``AutocastOptimWrapper`` on every device (the pretraining
            configs already use it on GPUs): it keeps fp32's exponent range,
            so it needs no loss scaler. float16 (CUDA only, for GPUs without
            bf16) is mmengine's ``AmpOptimWrapper`` with dynamic loss
            scaling, what ``--amp`` means in mmpretrain.
    """
    import torch

    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    if dtype is None:
        dtype = AMP_DTYPES[device][0]
    if dtype not in AMP_DTYPES[device]:
        raise ValueError(f'--amp-dtype: {dtype!r} is not available on '
                         f'{device}; allowed: {AMP_DTYPES[device]}')

    optim_wrapper = cfg.get('optim_wrapper')
    if optim_wrapper is None:
        # test.py: no optimizer, autocast the test loop instead.
        cfg.test_cfg = cfg.get('test_cfg') or {}
        cfg.test_cfg['fp16'] = True
        return
    if optim_wrapper.get('type', 'OptimWrapper') not in ('OptimWrapper',
                                                         'AmpOptimWrapper',
                                                         'AutocastOptimWrapper'):
        raise ValueError('--amp: optim_wrapper.type is '
                         f"{optim_wrapper['type']!r}; it must be OptimWrapper "
                         'for --amp to replace it')
    if dtype == 'float16':
        optim_wrapper['type'] = 'AmpOptimWrapper'
        optim_wrapper.setdefault('loss_scale', 'dynamic')
        for key in AUTOCAST_ONLY_KEYS:
            optim_wrapper.pop(key, None)
    else:
        optim_wrapper['type'] = 'AutocastOptimWrapper'
        optim_wrapper.pop('loss_scale', None)
        optim_wrapper['precision'] = 'bfloat16'  # on this device too
    optim_wrapper['dtype'] = dtype


def force_float32(cfg):
    """Trains ``cfg`` in float32 on every device (``tools/train.py
    --fp32``): an ``AutocastOptimWrapper`` gets ``precision='float32'``,
    and mmengine's ``AmpOptimWrapper`` (fp16 with loss scaling, the
    ADE20K and COCO recipes) becomes a plain ``OptimWrapper``."""
    optim_wrapper = cfg.get('optim_wrapper')
    kind = (optim_wrapper or {}).get('type', 'OptimWrapper')
    if kind == 'AutocastOptimWrapper':
        optim_wrapper['precision'] = 'float32'
    elif kind == 'AmpOptimWrapper':
        optim_wrapper['type'] = 'OptimWrapper'
        for key in ('loss_scale', 'dtype', 'use_fsdp'):
            optim_wrapper.pop(key, None)
    elif kind != 'OptimWrapper':
        raise ValueError(f'--fp32: optim_wrapper.type is {kind!r}; it must '
                         'be OptimWrapper, AmpOptimWrapper or '
                         'AutocastOptimWrapper for --fp32 to set its '
                         'precision')
