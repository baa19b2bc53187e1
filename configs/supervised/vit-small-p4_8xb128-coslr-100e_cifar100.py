# Paper Table "Low-data pre-training on CIFAR 10 and 100", Supervised row,
# CIFAR100 column. ViT-S/4 trained from scratch with labels: the fine-tuning
# recipe (the paper's "common practice of supervised ViT training"; AdamW
# lr 2e-3 = 5e-4 x 1024 / 256, batch 1024 = 8 x 128) with no layer-wise lr
# decay, since no layer is pretrained, and a random initialisation instead
# of a checkpoint: truncated normal (std 0.02, as DeiT) for linear layers
# and the learned position embedding, LayerNorm at 1 and 0 (mmpretrain's
# encoder layers then draw their MLP weights with Xavier); the head as in
# fine-tuning. 100 epochs, as fine-tuning, is our choice: the paper gives no
# length for this row. Its validation accuracy is the row's number.
_base_ = ['../benchmarks/finetune/vit-small-p4_8xb128-coslr-100e_cifar100.py']
model = dict(backbone=dict(init_cfg=[
    dict(type='TruncNormal', layer='Linear', std=0.02),
    dict(type='Constant', layer='LayerNorm', val=1.0, bias=0.0)]))
optim_wrapper = dict(paramwise_cfg=dict(layer_decay_rate=1.0))
