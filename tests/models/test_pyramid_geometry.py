"""RandSACViTPyramid keeps positions: what changes in one input patch
changes each pyramid map at that patch's place, at every scale; and its
maps are laid out as the RoI ops that read them expect."""
import pytest
import torch
from torch import nn


class _Identity(nn.Module):
    def forward(self, x, *args, **kwargs):
        return x


def _pyramid(scales, **kwargs):
    from randsac_mm.downstream import RandSACViTPyramid
    torch.manual_seed(0)
    model = RandSACViTPyramid(
        arch=dict(embed_dims=16, num_layers=4, num_heads=2,
                  feedforward_channels=32),
        img_size=64, patch_size=4, out_indices=(0, 1, 2, 3), scales=scales,
        **kwargs)
    model.init_weights()
    model.eval()  # (mmpretrain's backbones' train() returns None)
    return model


@pytest.mark.parametrize('scales', [(4, 2, 1, 0.5), (2, 1, 0.5, 0.25)])
def test_a_patch_changes_each_map_at_its_place(scales):
    model = _pyramid(scales)
    # Without the blocks' mixing, a token depends on its patch alone.
    for i in range(len(model.layers)):
        model.layers[i] = _Identity()
    plain = torch.zeros(1, 3, 64, 64)
    marked = plain.clone()
    marked[..., 8:12, 20:24] = 3.0  # the patch of token (2, 5)
    with torch.no_grad():
        before, after = model(plain), model(marked)
    for scale, a, b in zip(scales, before, after):
        side = int(16 * scale)
        assert a.shape == (1, 16, side, side)
        changed = torch.nonzero((a - b).abs().sum(1)[0] > 1e-5).tolist()
        if scale >= 1:  # the token's place, scale x scale pixels of it
            k = int(scale)
            expected = [[r, c] for r in range(2 * k, 3 * k)
                        for c in range(5 * k, 6 * k)]
        else:  # the pooled cell holding token (2, 5)
            stride = int(1 / scale)
            expected = [[2 // stride, 5 // stride]]
        assert changed == expected, scale


def test_a_scale_it_cannot_make_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match=r'among \(4, 2, 1, 0.5, 0.25\), '
                       'got 3'):
        _pyramid((3, 2, 1, 0.5))


@pytest.mark.parametrize('window_size', [None, 8])
def test_roi_features_of_the_maps_are_their_pixels(window_size):
    # mmcv's RoIAlign (Mask R-CNN's RoI extractors) reads its input's
    # memory as contiguous [B, C, H, W]: fed the channels-last views that
    # ViT feature maps are, it returned other pixels' features (what kept
    # the small detection study's box head from learning any digit).
    from mmcv.ops import roi_align
    model = _pyramid((4, 2, 1, 0.5), window_size=window_size)
    with torch.no_grad():
        maps = model(torch.randn(2, 3, 64, 64))
    rois = torch.tensor([[0, 3., 5., 30., 41.], [1, 10., 0., 63., 22.]])
    for scale, level in zip((4, 2, 1, 0.5), maps):
        assert level.is_contiguous(), scale
        features = roi_align(level, rois, 7, scale / 4, 2, 'avg', True)
        expected = roi_align(level.permute(0, 2, 3, 1).contiguous().permute(
            0, 3, 1, 2).contiguous(), rois, 7, scale / 4, 2, 'avg', True)
        torch.testing.assert_close(features, expected)
