"""Mask R-CNN's two heads that feed mmcv's compiled ops float32: under bf16
autocast mmdet's own fail in mmcv's CPU kernels, ours give what mmdet's give
on float32 inputs."""
import pytest
import torch
from mmengine.config import ConfigDict
from mmengine.registry import DefaultScope

import randsac_mm.downstream  # noqa: F401  (registers)
from randsac_mm.downstream import (
    Float32ProposalRPNHead,
    Float32RoIExtractor,
)

STRIDES = [4, 8]
RPN = dict(in_channels=8, feat_channels=8,
           anchor_generator=dict(type='AnchorGenerator', scales=[2],
                                 ratios=[1.0], strides=STRIDES),
           bbox_coder=dict(type='DeltaXYWHBBoxCoder',
                           target_means=[0.0] * 4, target_stds=[1.0] * 4))
RPN_TEST = ConfigDict(nms_pre=50, max_per_img=20, min_bbox_size=0,
                      nms=dict(type='nms', iou_threshold=0.7))
EXTRACTOR = dict(roi_layer=dict(type='RoIAlign', output_size=4,
                                sampling_ratio=2),
                 out_channels=8, featmap_strides=STRIDES)


@pytest.fixture(autouse=True)
def mmdet_scope():
    """mmdet's registries build the heads' anchors and coders."""
    with DefaultScope.overwrite_default_scope('mmdet'):
        yield


def maps(dtype=torch.float32):
    """Two levels of [1, 8, h, w] maps for a 32 px image."""
    torch.manual_seed(0)
    return tuple(torch.randn(1, 8, 32 // s, 32 // s).to(dtype)
                 for s in STRIDES)


def proposals(head, feats):
    scores, deltas = head(feats)
    meta = dict(img_shape=(32, 32), scale_factor=(1.0, 1.0))
    return head.predict_by_feat(scores, deltas, batch_img_metas=[meta],
                                cfg=RPN_TEST, rescale=False)[0]


def test_proposals_under_bf16_are_float32():
    from mmdet.models.dense_heads import RPNHead
    torch.manual_seed(0)
    ours = Float32ProposalRPNHead(**RPN)
    mmdets = RPNHead(**RPN)
    mmdets.load_state_dict(ours.state_dict())
    with torch.no_grad(), torch.autocast('cpu', torch.bfloat16):
        with pytest.raises(RuntimeError, match='BFloat16'):
            proposals(mmdets, maps())  # mmcv's NMS refuses bf16
        found = proposals(ours, maps())
    assert found.bboxes.dtype == found.scores.dtype == torch.float32
    assert len(found) > 0
    with torch.no_grad():  # in float32 the cast does nothing
        for a, b in zip(proposals(ours, maps()).values(),
                        proposals(mmdets, maps()).values()):
            assert torch.equal(a, b)


def test_roi_features_under_bf16_are_mmdets_of_float32_maps():
    from mmdet.models.roi_heads.roi_extractors import SingleRoIExtractor
    ours, mmdets = Float32RoIExtractor(**EXTRACTOR), \
        SingleRoIExtractor(**EXTRACTOR)
    rois = torch.tensor([[0, 1.3, 2.6, 9.1, 12.7],
                         [0, 3.0, 4.2, 30.9, 29.4]])
    with torch.autocast('cpu', torch.bfloat16):
        with pytest.raises(RuntimeError, match='BFloat16|Float'):
            mmdets(maps(torch.bfloat16), rois)  # mmcv's RoIAlign
        pooled = ours(maps(torch.bfloat16), rois)
    assert pooled.dtype == torch.float32 and pooled.shape == (2, 8, 4, 4)
    expected = mmdets(tuple(f.float() for f in maps(torch.bfloat16)), rois)
    assert torch.equal(pooled, expected)
    # The boxes stay float32: mmdet's cast to the maps' bf16 would move
    # 30.9 to 31.0.
    assert not torch.equal(pooled, mmdets(
        tuple(f.float() for f in maps(torch.bfloat16)),
        rois.bfloat16().float()))
