"""RandSACViT builds its layers as SegmentCausalLayers, exactly as
mmpretrain's VisionTransformer builds its own: same names, same initial
weights from the same seed; nothing re-classes a module."""
import ast
import copy
import os.path as osp
from glob import glob

import pytest
import torch
from mmpretrain.models import VisionTransformer
from mmpretrain.registry import MODELS

from randsac_mm.argument_limits import ArgumentOutOfRange
from randsac_mm.models.backbones import SegmentCausalLayer
from randsac_mm.models.backbones.randsac_vit import DEFAULT_INIT

from ..conftest import REPO_ROOT

ARCH = dict(embed_dims=32, num_layers=3, num_heads=4, feedforward_channels=64)
VIT_ARGS = [
    dict(arch=ARCH, img_size=32, patch_size=4),
    # Stochastic depth, per-layer configs, other layer arguments.
    dict(arch=ARCH, img_size=32, patch_size=4, drop_path_rate=0.3,
         drop_rate=0.1, qkv_bias=False, layer_scale_init_value=0.1,
         layer_cfgs=[dict(attn_drop_rate=0.1), dict(), dict(num_fcs=3)],
         out_indices=[0, -1], pre_norm=True),
    dict(arch='deit-tiny', img_size=32, patch_size=16, frozen_stages=2,
         layer_cfgs=dict(ffn_type='origin')),
]


def seeded(build):
    torch.manual_seed(0)
    model = build()
    model.init_weights()
    return model, torch.rand(4)  # the generator's state after


@pytest.mark.parametrize('args', VIT_ARGS)
def test_layers_and_weights_are_vision_transformers(args):
    """A learned position embedding is drawn as VisionTransformer draws it:
    the whole state, the random numbers drawn and what is trainable are
    those of VisionTransformer built from the same seed."""
    ours, ours_next = seeded(lambda: MODELS.build(dict(
        type='RandSACViT', pos_embed_type='learned', **copy.deepcopy(args))))
    # (VisionTransformer rewrites a given out_indices list in place.)
    vit, vit_next = seeded(lambda: VisionTransformer(
        with_cls_token=False, out_type='featmap',
        init_cfg=copy.deepcopy(DEFAULT_INIT), **copy.deepcopy(args)))
    assert all(type(layer) is SegmentCausalLayer for layer in ours.layers)
    assert list(ours.state_dict()) == list(vit.state_dict())
    for name, value in vit.state_dict().items():
        assert torch.equal(ours.state_dict()[name], value), name
    assert torch.equal(ours_next, vit_next)
    assert {n: p.requires_grad for n, p in ours.named_parameters()} == \
        {n: p.requires_grad for n, p in vit.named_parameters()}
    assert (ours.num_layers, ours.out_indices, ours.frozen_stages) == \
        (vit.num_layers, vit.out_indices, vit.frozen_stages)
    ours.train()
    vit.train()
    assert [m.training for m in ours.modules()] == \
        [m.training for m in vit.modules()]
    # VisionTransformer's numpy rates as Python floats (torch.compile).
    rates = [m.drop_prob for m in ours.modules() if hasattr(m, 'drop_prob')]
    assert rates and all(type(r) is float for r in rates)
    assert rates == [float(m.drop_prob) for m in vit.modules()
                     if hasattr(m, 'drop_prob')]


def test_frozen_all_freezes_every_layer_and_the_final_norm():
    model = MODELS.build(dict(type='RandSACViT', arch=ARCH, img_size=32,
                              patch_size=4, frozen_stages='all'))
    assert model.frozen_stages == 3
    assert not any(p.requires_grad for p in model.parameters())


def test_bad_arch_is_refused_as_vision_transformer_refuses_it():
    # A name outside the zoo: refused by RandSACViT itself, naming the key
    # and the zoo (mmpretrain's assertion names neither).
    with pytest.raises(ArgumentOutOfRange, match="^arch='huge-ish': give a "
                       "name of RandSACViT's arch_zoo"):
        MODELS.build(dict(type='RandSACViT', arch='huge-ish'))
    with pytest.raises(AssertionError, match='Custom arch needs a dict'):
        MODELS.build(dict(type='RandSACViT', arch=dict(embed_dims=8)))
    with pytest.raises(AssertionError, match='Invalid out_indices 5'):
        MODELS.build(dict(type='RandSACViT', arch=ARCH, img_size=32,
                          patch_size=4, out_indices=5))


def class_assignments(path):
    """Lines of ``path`` that assign an object's ``__class__``."""
    tree = ast.parse(open(path).read(), path)
    lines = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) \
            else []
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and \
                        sub.attr == '__class__':
                    lines.append(node.lineno)
        if isinstance(node, ast.Call) and \
                getattr(node.func, 'id', None) == 'setattr' and \
                len(node.args) > 1 and \
                getattr(node.args[1], 'value', None) == '__class__':
            lines.append(node.lineno)
    return lines


def test_nothing_reclasses_an_object():
    """Modules are built as what they are: no ``x.__class__ = ...``
    anywhere in the package."""
    paths = glob(osp.join(REPO_ROOT, 'randsac_mm', '**', '*.py'),
                 recursive=True)
    assert paths
    found = {osp.relpath(p, REPO_ROOT): class_assignments(p) for p in paths}
    assert not {p: lines for p, lines in found.items() if lines}


def test_the_scan_finds_a_reclassing(tmp_path):
    path = tmp_path / 'x.py'
    path.write_text('a.__class__ = B\nsetattr(a, "__class__", B)\n'
                    'print(a.__class__)\n')
    assert class_assignments(str(path)) == [1, 2]
