"""The raw-pixel reference (randsac_mm.evaluation.evaluate_pixels): the
encoders' own readouts on the images' flattened pixels."""
import os.path as osp

import pytest
import torch

from randsac_mm.evaluation import (
    evaluate_pixels,
    knn_accuracy,
    labelled_loaders,
    linear_probe_accuracy,
    pixel_features,
    pixel_readouts,
)

from ..conftest import REPO_ROOT

DIGITS = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets', 'digits.py')


@pytest.fixture(scope='module')
def loaders():
    import randsac_mm.registration  # noqa: F401  (registers DigitsDataset)
    return labelled_loaders(DIGITS, 400, 200, spread=True, unaugmented=True)


def test_pixel_features_are_the_loaders_images_flattened(loaders):
    features, labels = pixel_features(loaders[1])
    batch = next(iter(loaders[1]))
    first = torch.stack(list(batch['inputs']))[0]  # [3, 32, 32]
    # Gray digits copied into three channels: each pixel counted once.
    assert torch.equal(first[0], first[2])
    assert features.shape == (200, first[0].numel())
    assert features.dtype == torch.float32
    assert torch.equal(features[0], first[0].flatten().float())
    assert labels.tolist()[:3] == [int(s.gt_label[0])
                                   for s in batch['data_samples'][:3]]


def test_channels_that_differ_are_all_kept():
    from mmpretrain.structures import DataSample
    images = torch.arange(2 * 3 * 2 * 2, dtype=torch.uint8).view(2, 3, 2, 2)
    batch = dict(inputs=images, data_samples=[
        DataSample().set_gt_label(label) for label in (0, 1)])
    features, labels = pixel_features([batch])
    assert torch.equal(features, images.flatten(1).float())
    assert labels.tolist() == [0, 1]


def test_the_pixels_are_read_out_as_an_encoders_features(loaders):
    train, test = (pixel_features(loader) for loader in loaders)
    result = evaluate_pixels(*loaders, probe_epochs=20, seed=3)
    assert result['linear'] == linear_probe_accuracy(
        *train, *test, epochs=20, warmup_epochs=2, seed=3)
    assert result['knn'] == knn_accuracy(*train, *test, k=20)
    assert result['feature_dim'] == train[0].shape[1]
    # Digits are easy for pixels: far above the 10% of chance.
    assert result['linear'] > 80 and result['knn'] > 80
    over_seeds = evaluate_pixels(*loaders, readouts=('linear', ),
                                 probe_epochs=20, probe_seeds=[3, 4])
    assert over_seeds['per_probe_seed'][0]['linear'] == result['linear']
    assert over_seeds['probe_seeds'] == [3, 4]


def test_readouts_that_need_an_encoder_are_refused(loaders):
    assert pixel_readouts() == ('linear', 'knn')
    with pytest.raises(ValueError, match=r"readouts: \['attentive'\] read an "
                       r"encoder's tokens or layers, which pixels do not "
                       r"have; allowed: \['linear', 'knn'\]"):
        evaluate_pixels(*loaders, readouts=('linear', 'attentive'))
