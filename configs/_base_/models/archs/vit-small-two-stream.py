# The two-stream ViT-S of paper Table "Performance of Architectures"
# (ImageNet100): ViT-S's width, heads and MLP (mmpretrain's 'deit-small')
# at 12 + 4 layers, the encoder's depth plus that of the decoder it
# replaces. mmpretrain's arch_zoo has no such shape, so it is stated here
# once, for the pretraining config and its two evaluation configs, which
# use it as _base_.encoder_arch.
encoder_arch = dict(embed_dims=384, num_layers=16, num_heads=6,
                    feedforward_channels=1536)
