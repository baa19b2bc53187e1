# The mini ViT of the small-scale study and of the demo's MNIST pretraining
# (configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py): 6 layers x 96
# wide x 3 heads, MLP 384 (ViT-T's head count, half its depth and width).
# Not in mmpretrain's arch_zoo: stated here once, for the pretraining model
# (randsac_vit-mini-p4.py) and the transfer configs that take its
# checkpoints, as _base_.encoder_arch.
encoder_arch = dict(embed_dims=96, num_layers=6, num_heads=3,
                    feedforward_channels=384)
