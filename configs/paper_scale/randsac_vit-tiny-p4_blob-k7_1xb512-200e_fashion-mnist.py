# Paper Table "Segment Coherence", K=7 (CIFAR10), at the paper's scale on
# Fashion-MNIST: 7 spatially coherent blobs in a random order (also Table
# "Segments" blob-random).
_base_ = ['./_base_/randsac_vit-tiny-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='blob', num_segments=7)))
