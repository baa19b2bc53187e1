# The demo's mini ViT for 32 px digits: 6 layers x 128 wide x 4 heads, MLP
# 512. mmpretrain's arch_zoo has nothing this small, so it is stated here
# once, for the demo's pretraining, linear probe and fine-tuning configs
# (and, at 4 layers, its supervised smoke test), which use it as
# _base_.encoder_arch.
encoder_arch = dict(embed_dims=128, num_layers=6, num_heads=4,
                    feedforward_channels=512)
