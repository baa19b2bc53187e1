"""Parameters and FLOPs of a RandSAC config's pretraining forward pass.

How FLOPs are counted: one image, one segment layout sampled from the
config's RandSACSegmentGenerator, the forward pass of pretraining (patch
embedding, segment-causal encoder over all segments but the last, decoder
or query stream over all segments but the first, pixel head; no loss, no
backward). torch's FlopCounterMode counts matrix multiplications,
convolutions and attention (masked attention counted dense, as every
attention kernel computes it); norms, activations and softmax are not
counted. Figures are multiply-accumulates (one fused multiply-add = one
FLOP), the convention of fvcore and of the paper's FLOPs table.
"""
import copy

import numpy as np
import torch
from mmpretrain.models import VisionTransformer
from mmpretrain.registry import MODELS
from torch.utils.flop_counter import FlopCounterMode, sdpa_flop_count

from ..datasets import RandSACSegmentGenerator
from ..segments import make_layout

__all__ = ['ARCHITECTURES', 'arch_dict', 'architecture_variant', 'count',
           'forward_macs', 'sample_token_rank']

ARCHITECTURES = ('two-stream', 'transformer', 'transformer-skip')

def sdpa_macs(query, key, value, *args, out_shape=None, **kwargs):
    """Flop formula of the CPU attention kernel (torch counts only the
    CUDA ones): the same as scaled_dot_product_attention's."""
    return sdpa_flop_count(query, key, value)


CUSTOM_FORMULAS = {
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu: sdpa_macs,
}


def sample_token_rank(cfg, seed):
    """One layout of the config's RandSACSegmentGenerator: int64 [1, N] and
    its number of segments."""
    spec = RandSACSegmentGenerator.from_config(cfg).spec
    layout = make_layout(spec, np.random.default_rng(seed))
    return torch.as_tensor(layout.token_rank)[None], layout.num_segments


def arch_dict(backbone):
    arch = backbone['arch']
    if isinstance(arch, str):
        arch = dict(VisionTransformer.arch_zoo[arch])
    return dict(arch)


def architecture_variant(model_cfg, name):
    """The config's model as one of the paper's three architectures."""
    cfg = copy.deepcopy(model_cfg)
    if name == 'two-stream':
        if cfg.get('neck') is None:
            return cfg
        arch = arch_dict(cfg['backbone'])
        arch['num_layers'] += cfg['neck']['num_layers']
        cfg['backbone'].update(type='RandSACTwoStreamViT', arch=arch)
        cfg['neck'] = None
        return cfg
    if cfg.get('neck') is None:
        raise ValueError(f'{name}: the config is two-stream; compare from a '
                         'config with a RandSACDecoder neck')
    cfg['neck']['skip_connection'] = name == 'transformer-skip'
    return cfg


def count(model_cfg, token_rank, full_length=False):
    """MACs of one pretraining forward, total and per part, and params."""
    torch.manual_seed(0)
    model = MODELS.build(model_cfg).eval()
    images = torch.randn(1, 3, *model.backbone.img_size)
    batch = model.plan_batch(images, token_rank,
                             trim_outer_segments=not full_length)
    with torch.no_grad(), FlopCounterMode(
            display=False, custom_mapping=CUSTOM_FORMULAS) as counter:
        model.predict_segments(images, batch)
    # The counter attributes FLOPs to modules entered through __call__: the
    # decoder and the head are; the encoder (a method) is the remainder.
    by_module = counter.get_flop_counts()
    total = counter.get_total_flops() / 2
    parts = {
        part: sum(by_module.get(type(module).__name__, {}).values()) / 2
        for part, module in (('neck', model.neck), ('head', model.head))
    }
    parts['backbone'] = total - parts['neck'] - parts['head']
    params = {
        part: sum(p.numel() for p in getattr(model, part).parameters())
        if getattr(model, part, None) is not None else 0
        for part in ('backbone', 'neck', 'head')
    }
    return total, parts, params


def forward_macs(cfg, seed=0):
    """Multiply-accumulates of one image's pretraining forward pass."""
    token_rank, _ = sample_token_rank(cfg, seed)
    return count(cfg.model, token_rank)[0]
