"""A pretraining checkpoint loads into mmpretrain's VisionTransformer."""
import pytest
import torch
from mmengine.runner.checkpoint import _load_checkpoint_with_prefix
from mmpretrain.registry import MODELS

from .helpers import DIMS, build_model


@pytest.mark.parametrize('variant', ['skip', 'two_stream'])
def test_checkpoint_loads_into_vision_transformer(tmp_path, variant):
    model = build_model(variant, seed=1)
    with torch.no_grad():  # make the weights differ from any fresh init
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    path = tmp_path / 'pretrain.pth'
    torch.save({'state_dict': model.state_dict(), 'meta': {}}, path)

    vit = MODELS.build(dict(
        type='VisionTransformer',
        arch=dict(embed_dims=DIMS, num_layers=2, num_heads=4,
                  feedforward_channels=2 * DIMS),
        img_size=32, patch_size=4, with_cls_token=False, out_type='featmap',
        init_cfg=dict(type='Pretrained', checkpoint=str(path),
                      prefix='backbone.')))
    # Every key the ViT has is in the checkpoint, with the same shape.
    backbone_state = _load_checkpoint_with_prefix('backbone.', str(path))
    missing = set(vit.state_dict()) - set(backbone_state)
    assert not missing
    vit.init_weights()
    for name, tensor in vit.state_dict().items():
        assert torch.equal(tensor, backbone_state[name]), name

    vit.eval()
    images = torch.randn(3, 3, 32, 32)
    expected = model.extract_feat(images)[0]
    featmap = vit(images)[-1]
    assert torch.allclose(featmap.flatten(2).mean(2), expected, atol=1e-6)


def test_windowed_blocks_see_only_their_window():
    """With window_size, a block outside out_indices is the same layer run
    on each window alone; the blocks in out_indices attend globally."""
    from randsac_mm.downstream import RandSACViTPyramid
    from randsac_mm.models.backbones.randsac_vit_pyramid import (
        window_merge,
        window_partition,
    )
    torch.manual_seed(0)
    kwargs = dict(arch=dict(embed_dims=32, num_layers=5, num_heads=2,
                            feedforward_channels=64),
                  img_size=48, patch_size=8, out_indices=(1, 2, 3, 4),
                  norm_cfg=dict(type='GN', num_groups=4))
    windowed = RandSACViTPyramid(window_size=4, **kwargs)
    windowed.eval()  # (mmpretrain's backbones' train() returns None)
    images = torch.randn(1, 3, 48, 48)  # 6x6 tokens: windows 4, 2 wide
    with torch.no_grad():
        out = windowed(images)
        x, grid = windowed.patch_embed(images)
        x = (x + windowed.pos_embed).reshape(1, 6, 6, -1)
        block = torch.zeros_like(x)
        for rows in (slice(0, 4), slice(4, 6)):
            for cols in (slice(0, 4), slice(4, 6)):
                part = x[:, rows, cols]
                h, w = part.shape[1:3]
                block[:, rows, cols] = windowed.layers[0](
                    part.reshape(1, h * w, -1)).reshape(1, h, w, -1)
        x = block.reshape(1, 36, -1)
        expected = []
        for i in range(1, 5):
            x = windowed.layers[i](x)
            y = windowed.ln1(x) if i == 4 else x
            expected.append(y.reshape(1, 6, 6, -1).permute(0, 3, 1, 2))
        expected = [getattr(windowed, f'fpn{i + 1}')(e)
                    for i, e in enumerate(expected)]
    for got, want in zip(out, expected):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    # 6x6 tokens in 4x4 windows: padded to 8x8, 4 windows of 16 slots,
    # of which 16, 8, 8 and 4 are real tokens; merging undoes it.
    tokens = torch.randn(2, 36, 5)
    windows, real = window_partition(tokens, (6, 6), 4)
    assert windows.shape == (8, 16, 5) and real.shape == (8, 1, 1, 16)
    assert real.sum((1, 2, 3)).tolist() == [16, 8, 8, 4] * 2
    assert torch.equal(window_merge(windows, (6, 6), 4), tokens)
    glob = RandSACViTPyramid(**kwargs)
    glob.load_state_dict(windowed.state_dict())
    glob.eval()
    with torch.no_grad():
        assert not torch.allclose(glob(images)[0], out[0], atol=1e-4)


def test_an_mae_checkpoint_in_a_randsac_backbone_names_the_mae_configs(
        tmp_path):
    """An MAE encoder (with a class token) given to a RandSAC fine-tune
    config: before, only tools/model_converters/randsac2downstream.py was
    named, which is for mmseg and mmdet."""
    from randsac_mm.checkpoint import (
        PretrainedCheckpointError,
        check_pretrained_checkpoint,
    )
    arch = dict(embed_dims=DIMS, num_layers=2, num_heads=4,
                feedforward_channels=2 * DIMS)
    backbone = MODELS.build(dict(type='RandSACViT', arch=arch, img_size=32,
                                 patch_size=4))
    mae = MODELS.build(dict(type='MAEViT', arch=arch, img_size=32,
                            patch_size=4))
    path = tmp_path / 'mae.pth'
    torch.save({'state_dict': {f'backbone.{k}': v for k, v in
                               mae.state_dict().items()}, 'meta': {}}, path)
    with pytest.raises(PretrainedCheckpointError) as refused:
        check_pretrained_checkpoint(backbone, str(path))
    message = str(refused.value)
    assert 'evaluate it with configs/benchmarks/finetune/vit-small-p4-mae_' \
        '8xb128-coslr-100e_cifar10.py or ' in message
    assert 'configs/benchmarks/linear/vit-small-p4-mae_8xb2048-linear-' \
        'coslr-90e_cifar100.py; for UperNet or Mask R-CNN, convert it ' \
        'first with tools/model_converters/randsac2downstream.py' in message
