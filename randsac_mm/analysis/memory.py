"""GPU memory of a pretraining step, measured on the CPU.

A training step's peak memory is what stays (weights, optimizer state,
DDP's gradient buckets) plus what the step itself holds at its fullest: the
activations the forward pass saves for backward, the loss's temporaries,
and, in the backward pass, the gradients as they appear while the
activations are freed. None of it is modelled: the config's model runs a
whole step, forward and backward, on the CPU under the config's precision
with the 'sdpa' kernel and ``FakeTensorMode`` (sizes, no arithmetic), and
:class:`PeakMemory` follows every tensor from its creation to its release
(:func:`step_bytes`). Two batch sizes give the bytes per sample and the
fixed part (autocast's low-precision copies of the weights).

What the saved activations alone come to is reported too, counted in the
same forward passes (``saved_tensors_hooks``: :func:`counting_saved`), and
:class:`PeakMemory` also measures the real peak of a whole step on the CPU,
to check the estimate against.
"""
import contextlib
import os.path as osp
import weakref
from typing import NamedTuple

import numpy as np
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.weak import WeakIdKeyDictionary

from ..precision import resolve_precision

__all__ = ['PeakMemory', 'StepBytes', 'counting_saved', 'estimate_memory',
           'fake_model', 'memory_report', 'saved_bytes', 'step_bytes',
           'step_precision', 'worst_case_layouts']

GiB = 2**30


class PeakMemory(TorchDispatchMode):
    """The peak bytes of live tensor storage while the mode is on.

    Every storage an operation creates is counted until it is freed;
    storages alive when the mode starts (``external``: weights, optimizer
    state) are counted throughout. A GPU's caching allocator needs at least
    this much.

    Args:
        external (Iterable[torch.Tensor]): tensors alive before the step.
    """

    def __init__(self, external=()):
        super().__init__()
        self._live = WeakIdKeyDictionary()
        self.current = 0
        self.peak = 0
        for tensor in external:
            self._track(tensor)

    def _track(self, tensor):
        if not isinstance(tensor, torch.Tensor) or tensor.is_meta:
            return
        storage = tensor.untyped_storage()
        if storage in self._live:
            return
        size = storage.nbytes()
        self._live[storage] = weakref.finalize(storage, self._free, size)
        self.current += size
        self.peak = max(self.peak, self.current)

    def _free(self, size):
        self.current -= size

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in _tensors(out):
            self._track(tensor)
        return out


def _tensors(out):
    """The tensors of an operator's output: one tensor, or a tuple or list
    of outputs (ATen returns no other container)."""
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _tensors(item)]
    return [out] if isinstance(out, torch.Tensor) else []


def step_precision(cfg, device='cuda'):
    """The autocast dtype the config's optimizer wrapper gives a step on
    ``device``, or None for float32."""
    wrapper = cfg.get('optim_wrapper', {})
    kind = wrapper.get('type', 'OptimWrapper')
    if kind == 'AmpOptimWrapper':
        return getattr(torch, wrapper.get('dtype') or 'float16')
    if kind == 'AutocastOptimWrapper':
        return resolve_precision(wrapper.get('precision', 'auto'), device,
                                 wrapper.get('dtype', 'bfloat16')).dtype
    return None


def worst_case_layouts(generator, batch_size, draws=256, seed=0):
    """``batch_size`` layouts whose sequences are as long as in a large
    batch: the trimmed lengths follow the batch's smallest first and last
    segment, so the layouts of ``draws`` with the smallest ones are in
    every batch (equal segments: any layouts).

    Returns:
        np.ndarray: int64 [batch_size, N].
    """
    from ..segments import make_layout
    rng = np.random.default_rng(seed)
    ranks = np.stack([make_layout(generator.spec, rng).token_rank
                      for _ in range(draws)])
    first = (ranks == 0).sum(1)
    last = (ranks == ranks.max(1, keepdims=True)).sum(1)
    pair = [int(last.argmin()), int(first.argmin())]
    return ranks[[pair[i % 2] for i in range(batch_size)]]


def to_fake(model):
    """Turns ``model``'s weights and buffers into fake tensors of the same
    sizes, in place (their values are dropped).

    Under the returned ``FakeTensorMode`` it then runs the CPU's kernels,
    autocast included, and keeps the same tensors for backward, with sizes
    only and no arithmetic: a full batch of a large model takes a second.

    Returns:
        FakeTensorMode: the mode to run it under.
    """
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with mode:  # every weight and buffer made anew, as a fake tensor
        model.to_empty(device='cpu')
    return mode


def fake_model(cfg):
    """The config's pretraining model with fake weights, never allocated:
    built on the meta device (no initialisation either, a second for a
    ViT-L) and given fake CPU tensors of the same sizes.

    Returns:
        tuple[torch.nn.Module, FakeTensorMode]: the model (in train mode)
        and the mode to run it under.
    """
    from ..apis.model import build_model
    with torch.device('meta'):
        model = build_model(cfg, init=False).train()
    return model, to_fake(model)


def precision(dtype):
    """The CPU's autocast to ``dtype``, or none for float32 (None): how a
    step runs under the precision a config gives a GPU."""
    return torch.autocast('cpu', dtype=dtype or torch.float32,
                          enabled=dtype is not None)


@contextlib.contextmanager
def counting_saved(module):
    """Counts the storages autograd keeps for backward while on: yields a
    dict {storage: bytes} that fills as the forward pass runs. Read it
    before backward frees them (its keys are weak).

    Weights of ``module`` are not counted (they are part of the step's
    fixed memory); their autocast copies are. A storage is counted once
    however many tensors view it.
    """
    saved = WeakIdKeyDictionary()
    weights = WeakIdKeyDictionary(
        {p.untyped_storage(): True for p in module.parameters()})

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage not in weights:
            saved[storage] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield saved


def saved_bytes(module, forward, dtype=None, mode=None):
    """Bytes of the tensors ``forward()`` keeps for backward
    (:func:`counting_saved`).

    Args:
        module (nn.Module): whose weights ``forward`` uses, in train mode.
        forward (Callable[[], Any]): runs the forward pass.
        dtype (torch.dtype | None): autocast dtype, or None for float32.
        mode (FakeTensorMode | None): the mode :func:`to_fake` or
            :func:`fake_model` gave for ``module``; None computes for real.

    Returns:
        int: bytes.
    """
    with mode or contextlib.nullcontext():
        with precision(dtype), counting_saved(module) as saved:
            out = forward()
        total = sum(saved.values())
        del out
    return total


def step_loss(model, images, token_rank):
    """The loss of a pretraining model's step (RandSAC or mmpretrain's
    MAE) on preprocessed images."""
    if token_rank is None:
        return model.loss(images, [])['loss']
    batch = model.plan_batch(images, token_rank)
    pred = model.predict_segments(images, batch)
    return model.head.loss(pred, images, batch.decoder_order,
                           batch.loss_mask)


class StepBytes(NamedTuple):
    """What a training step holds (:func:`step_bytes`), in bytes."""
    peak: int  # its live tensors at their fullest, weights excluded
    saved: int  # what its forward pass kept for backward


def step_bytes(model, batch_size, token_rank, dtype=None, mode=None):
    """The peak bytes a training step holds beyond its weights and
    optimizer state: forward and backward, live tensors counted as they are
    made and freed (``PeakMemory``), so the saved activations, the loss's
    and the backward pass's temporaries and the gradients as they appear;
    and, of the same forward pass, the saved activations alone
    (:func:`counting_saved`).

    Args:
        model (RandSAC | MAE): in train mode, on the CPU, gradients None
            (as ``optimizer.zero_grad()`` leaves them).
        batch_size (int): images.
        token_rank (np.ndarray | None): int64 [B, N] (None: MAE).
        dtype (torch.dtype | None): autocast dtype, or None for float32.
        mode (FakeTensorMode | None): the mode :func:`to_fake` or
            :func:`fake_model` gave for ``model``; None computes for real.

    Returns:
        StepBytes: ``peak`` and ``saved``.
    """
    size = tuple(model.backbone.img_size)
    with mode or contextlib.nullcontext():
        with PeakMemory() as peak:
            images = torch.zeros(batch_size, 3, *size)
            with precision(dtype), counting_saved(model) as kept:
                loss = step_loss(model, images, token_rank)
            saved = sum(kept.values())
            loss.backward()
            del loss, images
        model.zero_grad(set_to_none=True)
    return StepBytes(peak.peak, saved)


def estimate_memory(cfg, gpus=8, gpu_mem_gib=80.0, batch_size=None,
                    device='cuda'):
    """The memory of one GPU in a pretraining config's training step.

    The step is run whole, forward and backward, at the batch itself under
    ``FakeTensorMode`` (the same kernels and tensors, sizes only: a ViT-B
    batch of 512 in seconds), and the peak of its live tensors taken; at
    half the batch too, for the bytes per image that ``max_batch``
    extrapolates with. To it come the weights and optimizer state (and
    DDP's gradient buckets, or FSDP's shards). The saved activations are
    reported beside it (what the forward pass keeps for backward).

    Args:
        cfg (mmengine.Config): a pretraining config (RandSAC or MAE).
        gpus (int): data-parallel processes (DDP gradient buckets when > 1;
            FSDP, a config with ``strategy``, shards over them).
        gpu_mem_gib (float): the memory a GPU has, for ``max_batch``.
        batch_size (int | None): images per GPU (default: the config's).
        device (str): the device whose precision the config's optimizer
            wrapper gives (its ``precision``, on this machine's CPU for
            'cpu').

    Returns:
        dict: ``params`` (count), ``precision``, ``attention``,
        ``activations_per_sample`` and ``activations_fixed`` (bytes saved
        for backward), ``step_per_sample`` and ``step_fixed`` (the step's
        peak beyond the states), ``states`` (weights, optimizer state, DDP
        buckets or FSDP shards: bytes), ``batch_size``, ``peak`` (bytes)
        and ``max_batch`` (the largest batch whose peak fits
        ``gpu_mem_gib``).

    The peak comes within 5% of a measured step: of the whole step's peak
    on the CPU (tests/analysis/test_memory.py) and of the H100's allocated peak
    of the main config at 512 images (docs/benchmarks/gpu/).
    """
    from ..datasets.transforms import RandSACSegmentGenerator
    model, mode = fake_model(cfg)  # sizes are all we need
    is_randsac = hasattr(model, 'plan_batch')
    if is_randsac:
        model.attention = 'sdpa'  # CUDA's kernel ('auto' on a GPU)
        generator = RandSACSegmentGenerator.from_config(cfg)
    dtype = step_precision(cfg, device)
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    largest_layer = max(sum(p.numel() for p in layer.parameters())
                        for layer in _layers(model))
    batch_size = batch_size or cfg.train_dataloader.batch_size
    # Even batches: each holds the pair of worst-case layouts. The step's
    # peak grows linearly only where the activations outweigh the
    # gradients, so its slope is taken between half the batch and the
    # batch; the saved activations' too (they grow linearly throughout).
    half = max(batch_size // 4 * 2, 2)
    step_sizes = (half, max(batch_size, half + 2))
    # The layouts of n images are the first n of the largest batch's.
    layouts = worst_case_layouts(generator, step_sizes[1]) \
        if is_randsac else None
    saved, step = {}, {}
    for n in step_sizes:  # fake: sizes only
        ranks = None if layouts is None else layouts[:n]
        step[n], saved[n] = step_bytes(model, n, ranks, dtype, mode)

    def linear(measured, low, high):
        per_sample = (measured[high] - measured[low]) // (high - low)
        return per_sample, max(measured[low] - low * per_sample, 0)

    per_sample, fixed = linear(saved, *step_sizes)
    step_per_sample, step_fixed = linear(step, *step_sizes)
    fsdp = cfg.get('strategy', {}).get('type') == 'FSDPStrategy'
    # float32 weights and AdamW's two moments; DDP keeps a bucket copy of
    # the gradients (the gradients themselves are in the step), FSDP
    # shards weights and moments and gathers one layer at a time.
    weights, moments = 4 * params, 8 * trainable
    if fsdp:
        states = (weights + moments) / gpus + 2 * 4 * largest_layer
    else:
        states = weights + moments + (4 * trainable if gpus > 1 else 0)

    def peak(batch):
        return states + (step[batch] if batch in step else
                         step_fixed + step_per_sample * batch)

    budget = gpu_mem_gib * GiB
    max_batch = int((budget - states - step_fixed) // step_per_sample) \
        if step_per_sample else 0
    if max_batch > 0 and peak(max_batch) > budget:
        max_batch = 0
    return dict(params=params, precision=str(dtype or torch.float32)[6:],
                attention='sdpa' if is_randsac else 'mae',
                activations_per_sample=per_sample, activations_fixed=fixed,
                step_per_sample=step_per_sample, step_fixed=step_fixed,
                states=states, gradients=4 * trainable,
                batch_size=batch_size, peak=peak(batch_size),
                max_batch=max(max_batch, 0),
                strategy='FSDP' if fsdp else ('DDP' if gpus > 1 else
                                              'single'))


def _layers(model):
    """The transformer layers of a pretraining model (FSDP's units)."""
    from ..engine.fsdp_wrap_policy import is_fsdp_unit
    return [m for m in model.modules() if is_fsdp_unit(m)]


def memory_report(cfg, config, gpus=8, gpu_mem_gib=80.0, batch_size=None):
    """:func:`estimate_memory` of a pretraining config, or for a downstream
    config (mmseg/mmdet scope) the backbone's activations for one image,
    windowed and global; with a printable ``line``.

    Args:
        cfg (mmengine.Config): the config, overrides merged (the tool's).
        config (str): its path, named in the row.
    """
    import randsac_mm.registration  # noqa: F401  (registers)
    name = osp.splitext(osp.basename(config))[0]
    if cfg.get('default_scope', 'mmpretrain') == 'mmpretrain':
        row = estimate_memory(cfg, gpus, gpu_mem_gib, batch_size)
        fits = row['peak'] <= gpu_mem_gib * GiB
        row.update(config=config, fits=fits, line=(
            f"{name}: {row['params'] / 1e6:.0f}M params, {row['precision']}"
            f", {row['strategy']}; activations saved "
            f"{row['activations_per_sample'] / 2**20:.1f} MiB/image + "
            f"{row['activations_fixed'] / 2**20:.0f} MiB, step "
            f"{row['step_per_sample'] / 2**20:.1f} MiB/image + "
            f"{row['step_fixed'] / 2**20:.0f} MiB, states "
            f"{row['states'] / GiB:.2f} GiB; peak at batch "
            f"{row['batch_size']}: {row['peak'] / GiB:.1f} GiB "
            f"({'fits' if fits else 'does NOT fit'} {gpu_mem_gib:g} GiB); "
            f"largest batch {row['max_batch']}"))
        return row
    return _downstream_report(cfg, config, name)


def _downstream_report(cfg, config, name):
    """The backbone's activations per image, windowed (as configured) and
    global, with a fused attention kernel (flash or memory-efficient: no
    attention matrix kept) and with the math kernel (softmax weights kept,
    what runs where no fused kernel applies)."""
    import copy

    from mmengine.registry import MODELS, DefaultScope
    from torch.nn.attention import sdpa_kernel

    import randsac_mm.downstream  # noqa: F401  (registers)

    from ..models.attention import sdpa_backend_list
    dtype = step_precision(cfg, 'cuda')
    # The CPU measures bfloat16 for a float16 config: the same bytes.
    dtype = torch.bfloat16 if dtype is not None else None
    spec = copy.deepcopy(cfg.model.backbone)
    spec.pop('init_cfg', None)
    result = dict(config=config, precision=str(dtype or torch.float32)[6:])
    windows = [('windowed', spec['window_size'])] \
        if spec.get('window_size') else []
    with DefaultScope.overwrite_default_scope(cfg.default_scope):
        for label, window in windows + [('global', None)]:
            for kernel, names in (('fused', ('efficient', 'flash')),
                                  ('math', ('math', ))):
                # The windowed blocks run the backbone's own list (asked
                # for as it is built), the global ones (mmpretrain's
                # attention) the context's.
                backbone = MODELS.build(dict(spec, window_size=window,
                                             sdpa_backends=names))
                backbone.train()  # (None for mmpretrain's backbones)
                size = tuple(backbone.img_size)
                mode = to_fake(backbone)
                with sdpa_kernel(list(sdpa_backend_list(names))):
                    result[f'{label}_{kernel}'] = saved_bytes(
                        backbone, lambda: backbone(torch.zeros(1, 3, *size)),
                        dtype, mode)
    parts = [f"{label}: {result[label + '_fused'] / GiB:.2f} GiB fused "
             f"attention, {result[label + '_math'] / GiB:.2f} GiB math"
             for label, _ in windows + [('global', None)]]
    result['line'] = (f'{name}: backbone activations per {size[0]}x{size[1]}'
                      f' image, {result["precision"]}; ' + '; '.join(parts))
    return result
