# Mask R-CNN on the digit scenes from the demo's RandSAC ViT-mini/4: the
# COCO config (mask-rcnn_randsac-vit-b_fpn_coco.py: the same model base and
# runtime) with what the scale requires, for the small transfer study on a
# CPU (docs/transfer_study.md):
# - the encoder of the demo's MNIST pretraining (6 x 96, patch 4), run for
#   160 epochs, the length that pays (docs/transfer_study.md), at the
#   scenes' 64 px: 16x16 tokens, with its pretraining's normalisation
#   (MNIST5k's statistics, not ImageNet's); taps after blocks (1, 2, 3,
#   5), which attend globally, blocks 0 and 4 within 8x8 token windows
#   (2x2 true windows: 8 divides 16);
# - at patch 4 the pyramid's scales (4, 2, 1, 0.5) give strides 1, 2, 4, 8
#   (ViT-B/16's 4, 8, 16, 32 are the same multiples of its token grid): the
#   RPN's anchors and the RoI extractors follow (anchors of 8 to 128 px for
#   digits of 16 to 28);
# - FPN and heads narrowed with the encoder (256 -> 64 channels, box head
#   fc 1024 -> 256), 10 classes;
# - fewer proposals, RoIs and RoIAlign samples (below);
# - BN for SyncBN (one process); bf16 autocast on a CPU with bf16
#   instructions, else float32 (the schedule base), the RPN's proposals and
#   the RoI extractors in float32, as mmcv's CPU NMS and RoIAlign take
#   (randsac_mm/downstream/float32_mmcv_ops.py).
#   python -m experiments.demo --pretrain-epochs 160 --work-dir work_dirs/demo_pre160
#   python -m experiments.digit_scenes
#   python tools/train.py configs/detection/mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py \
#       --device cpu --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/demo_pre160/pretrain/epoch_160.pth
_base_ = [
    '../_base_/models/mask-rcnn_randsac-vit-pyramid_fpn.py',
    '../_base_/models/archs/vit-mini.py',
    '../_base_/datasets/digit_scenes_instance.py',
    '../_base_/schedules/mask-rcnn_adamw_digit-scenes_6e.py',
    '../_base_/det_runtime.py',
    '../_base_/normalisation/mnist5k.py',
]
norm_cfg = dict(type='BN', requires_grad=True)
channels = 64
strides = [1, 2, 4, 8]
model = dict(
    data_preprocessor=dict(mean=_base_.mnist5k_mean, std=_base_.mnist5k_std),
    backbone=dict(arch=dict(_delete_=True, **_base_.encoder_arch),
                  img_size=_base_.image_size[0], patch_size=4,
                  out_indices=(1, 2, 3, 5), window_size=8),
    neck=dict(in_channels=[_base_.encoder_arch['embed_dims']] * 4,
              out_channels=channels, norm_cfg=norm_cfg),
    rpn_head=dict(type='Float32ProposalRPNHead', in_channels=channels,
                  feat_channels=channels,
                  anchor_generator=dict(strides=strides + [16])),
    roi_head=dict(
        bbox_roi_extractor=dict(type='Float32RoIExtractor',
                                roi_layer=dict(sampling_ratio=2),
                                out_channels=channels,
                                featmap_strides=strides),
        bbox_head=dict(in_channels=channels, conv_out_channels=channels,
                       fc_out_channels=256, num_classes=10,
                       norm_cfg=norm_cfg),
        mask_roi_extractor=dict(type='Float32RoIExtractor',
                                roi_layer=dict(sampling_ratio=2),
                                out_channels=channels,
                                featmap_strides=strides),
        mask_head=dict(in_channels=channels, conv_out_channels=channels,
                       num_classes=10, norm_cfg=norm_cfg)),
    # Proposals and RoIs scaled to 2 to 4 digits a scene (COCO has about 7
    # objects an image), measured on 2 cores, batch 8 (1.57 s a step with
    # 2000 boxes into NMS and 512 RoIs, 0.81 s with all of these):
    # - RPN: 500 boxes a level into NMS, not 2000 (16,368 anchors an image,
    #   12,288 of them at stride 1; mmcv's CPU NMS took 16% of a step),
    #   200 proposals in training, 100 at test;
    # - 64 sampled RoIs an image, not 512 (16 positives for 2 to 4 digits;
    #   the 4-conv box head on every RoI took most of the convolutions);
    # - 2x2 samples a RoIAlign bin, not one per pixel (sampling_ratio 0:
    #   up to 16 at stride 1, where mmcv's CPU RoIAlign backward took 20%);
    # - 20 detections an image at test.
    train_cfg=dict(rpn_proposal=dict(nms_pre=500, max_per_img=200),
                   rcnn=dict(sampler=dict(num=64))),
    test_cfg=dict(rpn=dict(nms_pre=500, max_per_img=100),
                  rcnn=dict(max_per_img=20)))
default_hooks = _base_.schedule_hooks
