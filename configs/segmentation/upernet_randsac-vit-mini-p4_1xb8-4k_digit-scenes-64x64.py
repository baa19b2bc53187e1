# UperNet on the digit scenes from the demo's RandSAC ViT-mini/4: the ADE20K
# config (upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py: the same model
# base, runtime and optimizer) with what the scale requires, for the small
# transfer study on a CPU (docs/transfer_study.md):
# - the encoder of the demo's MNIST pretraining (6 x 96, patch 4), run for
#   160 epochs, the length that pays (docs/transfer_study.md), at the
#   scenes' 64 px: 16x16 tokens, as 512 px gives ViT-B/16 32x32; its
#   pretraining's normalisation (MNIST5k's statistics, not ImageNet's);
# - taps after blocks (1, 2, 3, 5), BEiT's (3, 5, 7, 11) of 12 at 6 blocks;
#   the pyramid one level coarser than BEiT's, scales (2, 1, 0.5, 0.25):
#   strides 2, 4, 8, 16 at patch 4 (a 32x32 finest map for digits 16 to
#   28 px high; stride 1 made UperNet's head 80% of a step, 0.89 s);
# - heads narrowed with the encoder (768 -> 128 channels, auxiliary 256 ->
#   64), 11 classes;
# - BN for SyncBN (one process), fp32 (the schedule base), whole-scene test.
#   python -m experiments.demo --pretrain-epochs 160 --work-dir work_dirs/demo_pre160
#   python -m experiments.digit_scenes
#   python tools/train.py configs/segmentation/upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py \
#       --device cpu --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/demo_pre160/pretrain/epoch_160.pth
_base_ = [
    '../_base_/models/upernet_randsac-vit-pyramid.py',
    '../_base_/models/archs/vit-mini.py',
    '../_base_/datasets/digit_scenes_seg.py',
    '../_base_/schedules/upernet_adamw_digit-scenes_4k.py',
    '../_base_/seg_runtime.py',
    '../_base_/normalisation/mnist5k.py',
]
norm_cfg = dict(type='BN', requires_grad=True)
data_preprocessor = dict(size=_base_.crop_size, mean=_base_.mnist5k_mean,
                         std=_base_.mnist5k_std)
encoder_width = _base_.encoder_arch['embed_dims']
model = dict(
    data_preprocessor=data_preprocessor,
    backbone=dict(arch=dict(_delete_=True, **_base_.encoder_arch),
                  img_size=_base_.crop_size[0],
                  patch_size=4, out_indices=(1, 2, 3, 5),
                  scales=(2, 1, 0.5, 0.25), norm_cfg=norm_cfg),
    decode_head=dict(in_channels=[encoder_width] * 4, channels=encoder_width,
                     num_classes=11, norm_cfg=norm_cfg),
    auxiliary_head=dict(in_channels=encoder_width,
                        channels=encoder_width // 2, num_classes=11,
                        norm_cfg=norm_cfg))
default_hooks = _base_.schedule_hooks
