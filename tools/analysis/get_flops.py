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

    python tools/analysis/get_flops.py CONFIG [--compare-architectures]
        [--full-length]

``--full-length`` counts every token in both the encoder and the decoder
(no segment left out), the sequence lengths the paper's figures match.
"""
import argparse
import copy
import json
import os
import os.path as osp

import numpy as np
import torch
from mmengine.config import Config, DictAction
from mmengine.registry import init_default_scope
from torch.utils.flop_counter import FlopCounterMode, sdpa_flop_count

import randsac_mm.mmpretrain  # noqa: F401
from mmpretrain.models import VisionTransformer
from mmpretrain.registry import MODELS
from randsac_mm.datasets import RandSACSegmentGenerator
from randsac_mm.models.utils import SegmentBatch
from randsac_mm.segments import make_layout

ARCHITECTURES = ('two-stream', 'transformer', 'transformer-skip')

# Paper Table "FLOPs of Three Candidate Architectures", keyed by
# (encoder width, image size, patch size).
PAPER_FLOPS = {
    (192, 32, 4): ('ViT-T', ('499.60 M', '483.82 M', '484.26 M')),
    (384, 224, 16): ('ViT-S', ('10.94 G', '6.73 G', '6.77 G')),
    (768, 192, 16): ('ViT-B', ('35.74 G', '21.25 G', '21.49 G')),
}


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
    batch = SegmentBatch(token_rank, trim_outer_segments=not full_length)
    with torch.no_grad(), FlopCounterMode(
            display=False, custom_mapping=CUSTOM_FORMULAS) as counter:
        model.predict_segments(images, token_rank, batch)
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


def human(macs):
    return f'{macs / 1e9:.2f} G' if macs >= 1e9 else f'{macs / 1e6:.2f} M'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='a RandSAC pretraining config')
    parser.add_argument('--compare-architectures', action='store_true',
                        help='also count the two-stream, masked transformer '
                        'and transformer-skip variants of the config, next '
                        "to the paper's figures")
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the sampled segment layout')
    parser.add_argument('--out', help='also write the figures to this JSON')
    parser.add_argument('--full-length', action='store_true',
                        help='count all N tokens in encoder and decoder')
    parser.add_argument('--cfg-options', nargs='+', action=DictAction,
                        help='key=value config overrides')
    args = parser.parse_args(argv)
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    init_default_scope('mmpretrain')
    token_rank, num_segments = sample_token_rank(cfg, args.seed)
    names = ARCHITECTURES if args.compare_architectures else ('config', )
    backbone = cfg.model['backbone']
    key = (arch_dict(backbone)['embed_dims'], backbone['img_size'],
           backbone['patch_size'])
    paper = PAPER_FLOPS.get(key)
    rows = []
    for name in names:
        model_cfg = cfg.model if name == 'config' else architecture_variant(
            cfg.model, name)
        macs, parts, params = count(model_cfg, token_rank, args.full_length)
        paper_figure = None
        if paper and name in ARCHITECTURES:
            paper_figure = paper[1][ARCHITECTURES.index(name)]
        rows.append(dict(architecture=name, macs=macs, flops=human(macs),
                         paper=paper_figure, macs_by_part=parts,
                         params=params))
    print(f'config: {args.config}')
    length = 'all tokens in encoder and decoder' if args.full_length else \
        'encoder without the last segment, decoder without the first'
    print(f'one image, {num_segments} segments, {token_rank.shape[1]} tokens '
          f'({length}); FLOPs = multiply-accumulates of the forward pass')
    print(f"{'architecture':18s} {'FLOPs':>10s} {'paper':>10s} "
          f"{'enc FLOPs':>10s} {'dec FLOPs':>10s} {'enc par':>8s} "
          f"{'dec par':>8s}")
    for row in rows:
        p, m = row['params'], row['macs_by_part']
        print(f"{row['architecture']:18s} {row['flops']:>10s} "
              f"{row['paper'] or '-':>10s} {human(m['backbone']):>10s} "
              f"{human(m['neck']):>10s} {p['backbone'] / 1e6:7.2f}M "
              f"{p['neck'] / 1e6:7.2f}M")
    if args.out:
        os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
        with open(args.out, 'w') as f:
            json.dump(dict(config=args.config, seed=args.seed,
                           num_segments=num_segments, rows=rows), f, indent=2)


if __name__ == '__main__':
    main()
