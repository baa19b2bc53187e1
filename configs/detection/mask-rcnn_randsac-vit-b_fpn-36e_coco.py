# The COCO transfer of mask-rcnn_randsac-vit-b_fpn_coco.py (Li et al.
# 2021's model and data) on a short schedule, our own choice before that
# recipe: AdamW lr 1e-4, weight decay 0.05, layer decay 0.65, 36 epochs
# with steps at 27 and 33, batch 16 = 8 GPUs x 2. About a third of the
# benchmark's 100 epochs at a quarter of its batch: for quicker runs.
#   tools/dist_train.sh configs/detection/mask-rcnn_randsac-vit-b_fpn-36e_coco.py 8 \
#       --cfg-options model.backbone.init_cfg.checkpoint=work_dirs/randsac_vit-b_in1k/epoch_1600.pth
_base_ = [
    './_base_/mask-rcnn_randsac-vit-b_fpn_lsj-1024_coco.py',
    '../_base_/schedules/mask-rcnn_adamw_36e.py',
]
