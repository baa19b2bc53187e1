# RandSAC-Square (16 -> 4), ViT-B/16 at 192 px, on any folder of your own
# unlabeled images (searched recursively; .jpg, .jpeg, .png, .webp, .bmp):
#   tools/dist_train.sh configs/pretrain/randsac_vit-base-p16_square-16to4_8xb512-amp-1600e_own-images.py 8 \
#       --cfg-options train_dataloader.dataset.data_root=/path/to/images
# Everything else is configs/randsac_vit-b_in1k.py (the paper's ImageNet-1K
# recipe); with fewer images or GPUs, shorten the schedule
# (train_cfg.max_epochs, param_scheduler) and add --auto-scale-lr.
_base_ = ['../randsac_vit-b_in1k.py']
train_dataloader = dict(
    dataset=dict(_delete_=True, type='UnlabeledImageFolder',
                 data_root='data/own_images',
                 # the main config's pipeline, its segment layout included
                 pipeline=_base_.train_dataloader.dataset.pipeline))
