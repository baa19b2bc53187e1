# Mask R-CNN on the digit scenes from the demo's RandSAC ViT-mini/4: the
# COCO config (mask-rcnn_randsac-vit-b_fpn_coco.py: the same model base and
# runtime) with what the scale requires, for the small transfer study on a
# CPU (docs/transfer.md):
# - the encoder of the demo's MNIST pretraining (6 x 96, patch 4) at the
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
# - fewer proposals and RoIs (below);
# - BN for SyncBN (one process), fp32 (the schedule base).
#   python -m experiments.digit_scenes
#   python tools/train.py configs/detection/mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-12e_digit-scenes-64x64.py \
#       --device cpu --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/demo/pretrain/epoch_10.pth
_base_ = [
    '../_base_/models/mask-rcnn_randsac-vit-pyramid_fpn.py',
    '../_base_/models/archs/vit-mini.py',
    '../_base_/datasets/digit_scenes_instance.py',
    '../_base_/schedules/mask-rcnn_adamw_digit-scenes_12e.py',
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
    rpn_head=dict(in_channels=channels, feat_channels=channels,
                  anchor_generator=dict(strides=strides + [16])),
    roi_head=dict(
        bbox_roi_extractor=dict(out_channels=channels,
                                featmap_strides=strides),
        bbox_head=dict(in_channels=channels, conv_out_channels=channels,
                       fc_out_channels=256, num_classes=10,
                       norm_cfg=norm_cfg),
        mask_roi_extractor=dict(out_channels=channels,
                                featmap_strides=strides),
        mask_head=dict(in_channels=channels, conv_out_channels=channels,
                       num_classes=10, norm_cfg=norm_cfg)),
    # Proposals and sampled RoIs scaled to 2 to 4 digits a scene (COCO has
    # about 7 objects an image): 200 proposals and 128 RoIs an image in
    # training, 100 proposals and 20 detections at test (2.6x faster steps
    # on 2 cores than COCO's 1000, 512, 1000 and 100).
    train_cfg=dict(rpn_proposal=dict(max_per_img=200),
                   rcnn=dict(sampler=dict(num=128))),
    test_cfg=dict(rpn=dict(max_per_img=100), rcnn=dict(max_per_img=20)))
default_hooks = _base_.schedule_hooks
