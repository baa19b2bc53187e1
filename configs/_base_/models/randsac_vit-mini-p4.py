# RandSAC ViT-mini/4 for 32 px images on a CPU (the small-scale study and
# the demo): ViT-T/4's recipe (masked transformer decoder, raw pixel
# targets, as the paper's Section 3) at 6 layers x 96 wide x 3 heads (ViT-T's
# head count, half its depth and width), with a 2-layer decoder.
_base_ = ['./randsac_vit-tiny-p4.py', './archs/vit-mini.py']
model = dict(
    # (The small-scale two-stream variant changes num_layers only.)
    backbone=dict(arch=dict(_delete_=True, **_base_.encoder_arch)),
    neck=dict(embed_dims=96, num_layers=2))
