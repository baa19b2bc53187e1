"""Mask R-CNN under bf16 autocast: float32 where its tensors enter mmcv's
compiled ops.

mmcv 2.1's CPU kernels of NMS and RoIAlign take float32 only (``expected
scalar type Float but found BFloat16``), and autocast cannot cast their
inputs: they are pybind functions, not torch operators. Under bf16 autocast
(``AutocastOptimWrapper``, ``precision='auto'`` on a CPU with bf16
instructions) two tensors reach them in bf16: the RPN's scores and box
deltas (NMS of the proposals) and the FPN's maps (RoIAlign of every RoI).
These two mmdet classes take them in float32; the convolutions and linear
layers around them still autocast. In float32 they are mmdet's own,
unchanged: the casts do nothing.

The digit-scene Mask R-CNN config uses them (``configs/_base_/models/
mask-rcnn_randsac-vit-pyramid_fpn.py`` keeps mmdet's, for the COCO recipe's
fp16 on GPUs, which mmcv's CUDA kernels take).
"""
from mmdet.models.dense_heads import RPNHead
from mmdet.models.roi_heads.roi_extractors import SingleRoIExtractor
from mmdet.registry import MODELS

__all__ = ['Float32ProposalRPNHead', 'Float32RoIExtractor']


@MODELS.register_module()
class Float32ProposalRPNHead(RPNHead):
    """mmdet's ``RPNHead`` whose proposals are decoded and NMS-ed from
    float32 scores and deltas."""

    def predict_by_feat(self, cls_scores, bbox_preds, *args, **kwargs):
        """Args as ``BaseDenseHead.predict_by_feat``: per level, scores
        [B, A, H, W] and deltas [B, A * 4, H, W], cast to float32 (the
        public entry of the proposals, in training and in testing)."""
        return super().predict_by_feat(
            [score.float() for score in cls_scores],
            [delta.float() for delta in bbox_preds], *args, **kwargs)


@MODELS.register_module()
class Float32RoIExtractor(SingleRoIExtractor):
    """mmdet's ``SingleRoIExtractor`` that pools float32 maps at float32
    boxes (mmdet casts the boxes to the maps' dtype, and bf16 would round
    a box's corners to a quarter of a pixel at 64)."""

    def forward(self, feats, rois, roi_scale_factor=None):
        """feats: tuple of [B, C, H_l, W_l]; rois: [K, 5] (image index,
        x1, y1, x2, y2) -> [K, C, out_h, out_w], float32."""
        return super().forward(tuple(f.float() for f in feats),
                               rois.float(), roi_scale_factor)
