# RandSAC ViT-mini/4 for 32 px images on a CPU (the small-scale study and
# the demo): ViT-T/4's recipe (masked transformer decoder, raw pixel
# targets, as the paper's Section 3) at 6 layers x 96 wide x 3 heads (ViT-T's
# head count, half its depth and width), with a 2-layer decoder.
_base_ = ['./randsac_vit-tiny-p4.py']
model = dict(
    # Not in mmpretrain's arch_zoo: its one statement (the small-scale
    # two-stream variant changes num_layers only).
    backbone=dict(arch=dict(_delete_=True, embed_dims=96, num_layers=6,
                            num_heads=3, feedforward_channels=384)),
    neck=dict(embed_dims=96, num_layers=2))
