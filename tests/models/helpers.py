"""Tiny RandSAC models and layout batches for the model tests."""
import numpy as np
import torch
from mmengine.registry import init_default_scope
from mmpretrain.registry import MODELS
from mmpretrain.structures import DataSample

from randsac_mm.segments import SegmentSpec, make_layout

init_default_scope('mmpretrain')

GRID = (8, 8)  # 32 px images, P = 4
DIMS = 32

VARIANTS = ('skip', 'plain', 'two_stream')


def tiny_cfg(variant='skip', enc_layers=2, dec_layers=2, norm_pix=True):
    backbone_type = 'RandSACTwoStreamViT' if variant == 'two_stream' \
        else 'RandSACViT'
    cfg = dict(
        type='RandSAC',
        backbone=dict(type=backbone_type,
                      arch=dict(embed_dims=DIMS, num_layers=enc_layers,
                                num_heads=4, feedforward_channels=2 * DIMS),
                      img_size=32, patch_size=4),
        # Grid, widths and patch size of the neck and head: from the
        # backbone (RandSAC fills them in).
        head=dict(type='RandSACPretrainHead', norm_pix=norm_pix))
    if variant != 'two_stream':
        cfg['neck'] = dict(type='RandSACDecoder', num_layers=dec_layers,
                           num_heads=4, skip_connection=variant == 'skip')
    return cfg


def build_model(variant='skip', seed=0, **kwargs):
    torch.manual_seed(seed)
    model = MODELS.build(tiny_cfg(variant, **kwargs))
    model.init_weights()
    return model.eval()


def samples(token_ranks):
    out = []
    for rank in token_ranks:
        sample = DataSample()
        sample.set_field(np.asarray(rank, dtype=np.int64), 'token_rank')
        out.append(sample)
    return out


def layouts(specs, seed=0):
    """token_rank arrays, one per spec kwargs dict."""
    rng = np.random.default_rng(seed)
    return [make_layout(SegmentSpec(GRID, **kw), rng).token_rank
            for kw in specs]


LAYOUT_KINDS = {
    'flat_square': dict(segment='square', square_size=2),
    'hier_square': dict(segment='square', square_size=2, hierarchy=(4, )),
    'blob': dict(segment='blob', num_segments=7),
    'hier_blob': dict(segment='blob', num_segments=11, hierarchy=(5, )),
    'shuffled': dict(segment='blob', num_segments=7, coherent=False),
    'patch': dict(segment='patch'),
}
