"""A new readout from this file alone: the nearest class centroid.

``NearestCentroid`` is what a user writes to add a readout
(docs/architecture.md, "Adding a readout"). The fixture registers it for
this module's tests only: the registry is global, and other tests expect
the built-in readouts alone.
"""
import os.path as osp
import runpy

import pytest
import torch

from randsac_mm.evaluation import (
    READOUTS,
    Readout,
    accuracy_readouts,
    evaluate_frozen,
    mean_over_probe_seeds,
    readout_title,
    register_readout,
)
from randsac_mm.evaluation.progress import stage

from ..conftest import REPO_ROOT


class NearestCentroid(Readout):
    """Each test feature takes the class of the nearest training-class mean
    (cosine)."""
    title = 'nearest centroid'

    def read(self, train, test, settings, report=None):
        (features, labels), (test_features, test_labels) = train, test
        tick = stage(report, f'{self.title}: {len(test_features)} test '
                     'images', 1)
        classes = int(labels.max()) + 1
        centroids = torch.stack([features[labels == c].mean(0)
                                 for c in range(classes)])
        scores = torch.nn.functional.normalize(test_features, dim=1) @ \
            torch.nn.functional.normalize(centroids, dim=1).T
        accuracy = (scores.argmax(1) == test_labels).float().mean() * 100
        if tick is not None:
            tick()
        return {'centroid': float(accuracy)}


@pytest.fixture(autouse=True, scope='module')
def centroid():
    register_readout('centroid')(NearestCentroid)
    yield
    READOUTS.unregister('centroid')


class Loader(list):
    """A data loader of two labelled batches, as the frozen evaluation
    reads them (``dataset`` for the progress titles)."""
    dataset = range(8)


@pytest.fixture
def loaders():
    from mmpretrain.structures import DataSample
    g = torch.Generator().manual_seed(0)

    def batch(offset):
        # Two classes the encoder can tell apart: bright and dark images.
        images = torch.rand(4, 3, 32, 32, generator=g) * 40 + \
            torch.tensor([0., 200., 0., 200.])[:, None, None, None]
        samples = [DataSample().set_gt_label(i % 2) for i in range(4)]
        return dict(inputs=images, data_samples=samples)
    return Loader([batch(0), batch(1)]), Loader([batch(2), batch(3)])


def test_the_registry_knows_it_as_an_accuracy_readout():
    assert 'centroid' in READOUTS
    assert accuracy_readouts()[-1] == 'centroid'
    assert readout_title('centroid') == 'nearest centroid'


def test_the_frozen_evaluation_runs_it_with_the_built_in_ones(loaders):
    from ..models.helpers import build_model
    model = build_model('skip')
    titles = []

    def report(title, total):
        titles.append(title)
        return lambda: None
    result = evaluate_frozen(model, *loaders, readouts=('centroid', 'knn'),
                             k=3, progress=report)
    assert set(result) == {'centroid', 'knn', 'feature_dim'}
    assert 0 <= result['centroid'] <= 100
    assert titles[-2:] == ['k-NN (k=3): 8 test images',
                           'nearest centroid: 8 test images']
    # Its accuracy is averaged and spread over probe seeds like the others.
    runs = [dict(centroid=80.0, feature_dim=32),
            dict(centroid=90.0, feature_dim=32)]
    mean = mean_over_probe_seeds(runs, [0, 1])
    assert mean['centroid'] == 85.0
    assert mean['probe_seed_sd'] == pytest.approx(dict(centroid=50 ** 0.5))


def test_the_tools_offer_it(tmp_path):
    """``eval_frozen.py --probe`` takes its choices from the registry."""
    namespace = runpy.run_path(
        osp.join(REPO_ROOT, 'tools', 'analysis', 'eval_frozen.py'),
        run_name='tool')
    files = [tmp_path / name for name in ('config.py', 'model.pth',
                                          'data.py')]
    for path in files:
        path.write_text('')
    args = namespace['parse_args']([str(files[0]), str(files[1]), '--data',
                                    str(files[2]), '--probe', 'centroid',
                                    'linear'])
    assert args.probe == ['centroid', 'linear']
