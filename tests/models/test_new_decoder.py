"""A new segment decoder from this file alone: every layer reads the mean
of the encoder layers' outputs, and the queries are learned.

``MeanMemoryDecoder`` is what a user writes to swap the decoder
(docs/architecture.md, "Adding a decoder"): a ``SegmentDecoder`` subclass
registered in mmpretrain's ``MODELS`` and named in a config's
``model.neck``. Nothing in the package names it: RandSAC gives it its
shapes, FSDP shards its layers, the memory estimate counts them and the
checkpoint checks know its keys, each from the class.
"""
import pytest
import torch
from mmengine.model import BaseModule
from mmengine.optim import OptimWrapper
from mmpretrain.registry import MODELS
from torch import nn

from randsac_mm.models.necks import SegmentDecoder
from randsac_mm.models.utils.segment_batch import gather_tokens

from .helpers import LAYOUT_KINDS, layouts, samples, tiny_cfg


class QueryLayer(BaseModule):
    """Self-attention over the queries, cross-attention to the memory."""

    fsdp_unit = True  # FSDP shards each layer as a unit

    def __init__(self, dims, memory_dims, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dims, 3 * dims)
        self.query = nn.Linear(dims, dims)
        self.key_value = nn.Linear(memory_dims, 2 * dims)
        self.out = nn.Linear(dims, dims)

    def forward(self, x, memory, batch):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        x = x + batch.decoder_attention(q, k, v, self.heads)
        k, v = self.key_value(memory).chunk(2, dim=-1)
        return x + self.out(batch.cross_attention(self.query(x), k, v,
                                                  self.heads))


@MODELS.register_module(force=True)
class MeanMemoryDecoder(SegmentDecoder):
    """Learned queries; every layer reads the encoder layers' mean."""

    pretraining_keys = ('queries', 'blocks.')

    def __init__(self, num_patches, encoder_dims, encoder_layers,
                 embed_dims=16, num_layers=2, num_heads=2):
        super().__init__()
        self.embed_dims = embed_dims
        self.grid = tuple(num_patches)
        self.encoder_layers = encoder_layers
        self.queries = nn.Parameter(
            0.02 * torch.randn(1, self.grid[0] * self.grid[1], embed_dims))
        self.blocks = nn.ModuleList(
            QueryLayer(embed_dims, encoder_dims, num_heads)
            for _ in range(num_layers))

    def forward(self, encoder_outputs, batch):
        memory = torch.stack(encoder_outputs).mean(0)  # [B, Lk, C_enc]
        x = gather_tokens(self.queries, batch.decoder_order)
        for block in self.blocks:
            x = block(x, memory, batch)
        return x


def config():
    return dict(tiny_cfg(), neck=dict(type='MeanMemoryDecoder',
                                      num_layers=2))


def data(step=0):
    ranks = layouts([LAYOUT_KINDS['hier_blob']] * 3, seed=step)
    torch.manual_seed(step)
    return dict(inputs=[torch.randn(3, 3, 32, 32)],
                data_samples=samples(ranks))


def trained_step(model):
    optim = OptimWrapper(torch.optim.AdamW(model.parameters(), lr=1e-2))
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    loss = model.train_step(data(), optim)['loss']
    changed = {n for n, p in model.named_parameters()
               if not torch.equal(before[n], p)}
    return loss, changed


def test_a_config_trains_a_step_with_the_new_decoder():
    torch.manual_seed(0)
    model = MODELS.build(config()).train()
    # What RandSAC gives it, from the backbone; what it reads back.
    assert (model.neck.grid, model.neck.encoder_layers) == ((8, 8), 2)
    assert model.head.predictor.in_features == model.neck.embed_dims == 16
    loss, changed = trained_step(model)
    assert torch.isfinite(loss)
    assert {'neck.queries', 'neck.blocks.1.out.weight',
            'backbone.layers.0.attn.qkv.weight'} <= changed


def test_a_neck_that_is_no_segment_decoder_is_refused():
    with pytest.raises(ValueError, match=r'RandSAC: neck Linear is not a '
                       r'SegmentDecoder; a decoder subclasses randsac_mm\.'
                       r'models\.necks\.SegmentDecoder'):
        MODELS.build(dict(tiny_cfg(), neck=nn.Linear(2, 2)))


def test_fsdp_shards_its_layers_as_units():
    """The configs' wrap policy on the CPU, one gloo process: the two
    encoder and two decoder layers and the root are units, and a step
    trains."""
    import torch.distributed as dist
    from mmengine.config import Config
    from mmengine.registry import MODEL_WRAPPERS
    from torch.distributed.fsdp import FullyShardedDataParallel
    policy = Config.fromfile(
        'configs/pretrain/randsac_vit-large-p16_square-16to4_16xb256-amp-'
        'fsdp-1600e_in1k.py').strategy.model_wrapper
    dist.init_process_group('gloo', store=dist.HashStore(), rank=0,
                            world_size=1)
    try:
        torch.manual_seed(0)
        fsdp = MODEL_WRAPPERS.build(dict(
            type='MMFullyShardedDataParallel',
            module=MODELS.build(config()).train(),
            device_id=torch.device('cpu'), **policy))
        units = [m for m in fsdp.modules()
                 if isinstance(m, FullyShardedDataParallel)]
        assert len(units) == 5
        assert sum(isinstance(u.module, QueryLayer) for u in units) == 2
        loss, changed = trained_step(fsdp)
        assert torch.isfinite(loss) and changed
    finally:
        dist.destroy_process_group()


def test_its_checkpoint_passes_the_checks(tmp_path):
    """A pretraining checkpoint by its keys; its encoder initialises a
    linear probe's backbone (configs/_base_/models/randsac_vit_linear.py);
    the memory estimate counts its layers."""
    from randsac_mm.analysis.memory import _layers
    from randsac_mm.checkpoint import (
        check_pretrained_checkpoint,
        guess_kind,
    )
    torch.manual_seed(0)
    model = MODELS.build(config())
    state = model.state_dict()
    assert guess_kind(state) == 'pretraining'
    assert guess_kind({k: v for k, v in state.items()
                       if k.startswith('backbone.')}) == 'backbone'
    path = tmp_path / 'epoch_1.pth'
    torch.save(dict(state_dict=state, meta={}), path)
    classifier = MODELS.build(dict(
        type='ImageClassifier', backbone=dict(
            tiny_cfg()['backbone'], out_type='featmap'),
        head=dict(type='LinearClsHead', num_classes=10, in_channels=32)))
    check_pretrained_checkpoint(classifier.backbone, str(path))
    assert sum(isinstance(m, QueryLayer) for m in _layers(model)) == 2
    assert len(_layers(model)) == 4
