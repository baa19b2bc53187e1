# The COCO transfer of mask-rcnn_randsac-vit-b_fpn_coco.py (Li et al.
# 2021's model and data) on a short schedule, our own choice before that
# recipe: AdamW lr 1e-4, weight decay 0.05, layer decay 0.65, 36 epochs
# with steps at 27 and 33, batch 16 = 8 GPUs x 2. About a third of the
# benchmark's 100 epochs at a quarter of its batch: for quicker runs.
#   tools/dist_train.sh configs/detection/mask-rcnn_randsac-vit-b_fpn-36e_coco.py 8 \
#       --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/randsac_vit-b_in1k/epoch_1600.pth
_base_ = [
    '../_base_/models/mask-rcnn_randsac-vit-pyramid_fpn.py',
    '../_base_/datasets/coco_instance_lsj-1024.py',
    '../_base_/schedules/mask-rcnn_adamw_36e.py',
    '../_base_/det_runtime.py',
]
model = dict(backbone=dict(img_size=_base_.image_size[0]))
default_hooks = _base_.schedule_hooks
