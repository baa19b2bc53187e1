# Paper Table "Performance of Architectures", CIFAR10 Transformer-skip
# row, at the paper's scale on Fashion-MNIST: the decoder with trainable skip
# connections, each decoder layer reading a learned mix of the encoder
# layers. Blob segments 11 -> 5, as every row of that table.
_base_ = ['./_base_/randsac_vit-tiny-p4_norm-pix_fashion-mnist.py']
from randsac_mm.segments.config import with_segments  # noqa: E402

model = dict(neck=dict(skip_connection=True))
train_dataloader = dict(dataset=dict(layout=with_segments(
    _base_.layout, segment='blob', num_segments=11,
    hierarchy=(5, ))))
