# Supervised training from scratch: the fine-tuning schedule (the paper's
# "common practice of supervised ViT training") without layer-wise lr
# decay, since no layer is pretrained. The paper gives no length for its
# supervised row; 100 epochs, as fine-tuning, is our choice, so the row
# differs from fine-tuning in the initialisation only.
_base_ = ['./finetune_adamw_100e.py']
optim_wrapper = dict(paramwise_cfg=dict(layer_decay_rate=1.0))
