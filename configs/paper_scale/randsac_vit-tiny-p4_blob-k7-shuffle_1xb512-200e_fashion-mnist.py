# Paper Table "Segment Coherence", Shuffle K=7 (CIFAR10), at the paper's
# scale on Fashion-MNIST: the blob sizes of K=7, with tokens reassigned to
# segments at random (no spatial coherence).
_base_ = ['./_base_/randsac_vit-tiny-p4_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='blob', num_segments=7,
    coherent=False, serialization='random')))
