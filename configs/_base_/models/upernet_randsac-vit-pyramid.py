# UperNet on the RandSAC encoder (mmseg scope), BEiT's segmentation model
# for self-supervised ViT-B checkpoints (microsoft/unilm beit/
# semantic_segmentation/configs/beit/upernet/
# upernet_beit_base_12_512_slide_160k_ade20k_pt.py): the encoder tapped at
# blocks (3, 5, 7, 11), rescaled to strides 4, 8, 16, 32 (the stride-4
# branch with SyncBN); drop path 0.1; UPerHead 768 channels, FCN auxiliary
# head (256 channels, loss weight 0.4); SyncBN; 150 classes (ADE20K). The
# input side (backbone img_size, the preprocessor's size, the test's crop)
# is the data's crop_size: each leaf sets it from its data config.
# Where our ViT differs from BEiT's: BEiT fine-tunes with a relative
# position bias per block and layer scale (init 0.1); ours keeps the
# pretraining's absolute position embedding (interpolated to the input's
# token grid, then learned) and has no layer scale.
norm_cfg = dict(type='SyncBN', requires_grad=True)
data_preprocessor = dict(
    type='SegDataPreProcessor',
    mean=[123.675, 116.28, 103.53],
    std=[58.395, 57.12, 57.375],
    bgr_to_rgb=True,
    pad_val=0,
    seg_pad_val=255)
model = dict(
    type='EncoderDecoder',
    data_preprocessor=data_preprocessor,
    backbone=dict(
        type='RandSACViTPyramid',
        arch='base',
        patch_size=16,
        drop_path_rate=0.1,
        out_indices=(3, 5, 7, 11),
        scales=(4, 2, 1, 0.5),
        norm_cfg=norm_cfg,
        pos_embed_type='learned',
        init_cfg=dict(type='Pretrained', checkpoint='', prefix='backbone.')),
    decode_head=dict(
        type='UPerHead',
        in_channels=[768, 768, 768, 768],
        in_index=[0, 1, 2, 3],
        pool_scales=(1, 2, 3, 6),
        channels=768,
        dropout_ratio=0.1,
        num_classes=150,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False,
                         loss_weight=1.0)),
    auxiliary_head=dict(
        type='FCNHead',
        in_channels=768,
        in_index=2,
        channels=256,
        num_convs=1,
        concat_input=False,
        dropout_ratio=0.1,
        num_classes=150,
        norm_cfg=norm_cfg,
        align_corners=False,
        loss_decode=dict(type='CrossEntropyLoss', use_sigmoid=False,
                         loss_weight=0.4)),
    train_cfg=dict(),
    test_cfg=dict(mode='whole'))
