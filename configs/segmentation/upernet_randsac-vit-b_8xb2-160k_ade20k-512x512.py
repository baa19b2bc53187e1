# UperNet on ADE20K from the ImageNet-1K RandSAC ViT-B (paper Appendix
# "Semantic segmentation on ADE20K": BEiT's setting). BEiT's recipe for
# self-supervised checkpoints, microsoft/unilm beit/semantic_segmentation/
# configs/beit/upernet/upernet_beit_base_12_512_slide_160k_ade20k_pt.py with
# its _base_ files: the model in _base_/models/upernet_randsac-vit-pyramid.py,
# the data in _base_/datasets/ade20k_seg.py, the schedule (lr 7e-4, fp16) in
# _base_/schedules/upernet_adamw_160k.py; here the input side from the crop
# (32x32 tokens) and the slide test, crop 512, stride 341. Targets: paper
# Table "Semantic Segmentation on ADE20K", rows RandSAC-Square (K=16->4),
# from configs/randsac_vit-b_in1k.py, and RandSAC-Square (K=9).
#   tools/dist_train.sh configs/segmentation/upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py 8 \
#       --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/randsac_vit-b_in1k/epoch_1600.pth
# The checkpoint may be the raw pretraining one (position embeddings are
# interpolated on load) or the output of tools/model_converters/
# randsac2downstream.py --to mmseg.
_base_ = [
    '../_base_/models/upernet_randsac-vit-pyramid.py',
    '../_base_/datasets/ade20k_seg.py',
    '../_base_/schedules/upernet_adamw_160k.py',
    '../_base_/seg_runtime.py',
]
data_preprocessor = dict(size=_base_.crop_size)
model = dict(
    data_preprocessor=data_preprocessor,
    backbone=dict(img_size=_base_.crop_size[0]),
    test_cfg=dict(mode='slide', crop_size=_base_.crop_size,
                  stride=(341, 341)))
default_hooks = _base_.schedule_hooks
