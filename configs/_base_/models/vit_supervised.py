# A ViT trained from scratch with labels: the fine-tuning model
# (randsac_vit_finetune.py: averaged tokens, linear head, drop path 0.1,
# label smoothing, mixup, cutmix) initialised as DeiT's supervised ViTs
# (truncated normal, std 0.02, for linear layers and the learned position
# embedding; LayerNorm at 1 and 0) instead of from a checkpoint. A config on
# top gives the encoder's and the head's shapes.
_base_ = ['./randsac_vit_finetune.py']
model = dict(backbone=dict(init_cfg=[
    dict(type='TruncNormal', layer='Linear', std=0.02),
    dict(type='Constant', layer='LayerNorm', val=1.0, bias=0.0),
]))
