# The two-stream ViT-T of paper Table "Performance of Architectures"
# (CIFAR10): ViT-T's width, heads and MLP (mmpretrain's 'deit-tiny') at
# 12 + 3 layers, the encoder's depth plus that of the decoder it replaces.
# mmpretrain's arch_zoo has no such shape, so it is stated here once, for
# the pretraining config and its two evaluation configs, which use it as
# _base_.encoder_arch.
encoder_arch = dict(embed_dims=192, num_layers=15, num_heads=3,
                    feedforward_channels=768)
