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
