"""HostSamplesDataPreprocessor: mmpretrain's SelfSupDataPreprocessor whose
training batches leave their data samples on the host, as the loader made
them; outside training it casts them as mmpretrain's does."""
import numpy as np
import torch
from mmpretrain.registry import MODELS
from mmpretrain.structures import DataSample

KWARGS = dict(mean=[40.0, 50.0, 60.0], std=[80.0, 70.0, 60.0], to_rgb=True)


def batch(size=4):
    samples = []
    for i in range(size):
        sample = DataSample(metainfo=dict(img_path=f'image_{i}.jpg'))
        sample.set_field(np.random.default_rng(i).permutation(16),
                         'token_rank')
        samples.append(sample.set_gt_label(i))
    images = torch.randint(0, 256, (size, 3, 16, 16), dtype=torch.uint8)
    return dict(inputs=images, data_samples=samples)


def test_training_normalises_the_images_as_mmpretrain_and_keeps_samples():
    data = batch()
    ours = MODELS.build(dict(type='HostSamplesDataPreprocessor', **KWARGS))(
        data, True)
    theirs = MODELS.build(dict(type='SelfSupDataPreprocessor', **KWARGS))(
        data, True)
    torch.testing.assert_close(ours['inputs'], theirs['inputs'], rtol=0,
                               atol=0)
    # The very objects the loader gave: not copies (theirs are).
    assert all(a is b for a, b in zip(ours['data_samples'],
                                      data['data_samples'], strict=True))
    assert not any(a is b for a, b in zip(theirs['data_samples'],
                                          data['data_samples']))


def test_on_another_device_only_the_images_move_in_training():
    """The meta device stands for a GPU: the images go there; the samples'
    labels stay on the host in training, and go outside it, as
    mmpretrain's preprocessor sends them (validation and test steps)."""
    data = batch()
    preprocessor = MODELS.build(dict(type='HostSamplesDataPreprocessor',
                                     **KWARGS)).to('meta')
    trained = preprocessor(data, True)
    assert trained['inputs'].device.type == 'meta'
    assert {s.gt_label.device.type for s in trained['data_samples']} == \
        {'cpu'}
    read_out = preprocessor(data, False)
    assert read_out['inputs'].device.type == 'meta'
    assert {s.gt_label.device.type for s in read_out['data_samples']} == \
        {'meta'}
    # The layouts are numpy either way: RandSAC plans them on the host.
    assert all(isinstance(s.token_rank, np.ndarray)
               for s in read_out['data_samples'])
