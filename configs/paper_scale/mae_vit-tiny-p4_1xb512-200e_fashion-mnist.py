# Paper Table "Low-data pre-training on CIFAR 10 and 100", MAE row, at the
# paper's scale on Fashion-MNIST with the ViT-T/4 of the other rows:
# mmpretrain's MAE (75% masking, normalised pixel targets) with a decoder
# matched to RandSAC's (the paper: "the same depth, attention head, and
# dimension as ours"), the RandSAC rows' data, augmentation and schedule;
# compared with the Transformer-skip row, as the paper compares MAE with
# RandSAC blob 11 -> 5.
_base_ = ['./_base_/randsac_vit-tiny-p4_norm-pix_fashion-mnist.py']
model = dict(type='MAEMatchedToRandSAC')  # see randsac_mm/models/algorithms
# MAE has no segment layout: the batches carry none.
train_dataloader = dict(dataset=dict(layout=None))
