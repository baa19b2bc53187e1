"""The frozen evaluation's data and reporting, as the tools use them: a
data config without ``collate_fn`` gives the same features as one with
``default_collate``; a classifier's training images are spread over the
data set and not augmented; every stage reports its progress; a model
builds without mmengine's line per parameter inside
``quiet_mmengine_info``."""
import io
import logging
import os.path as osp
import re

import pytest
import torch
from mmengine.config import Config

from ..conftest import REPO_ROOT

DEMO = osp.join(REPO_ROOT, 'configs', 'demo')
PRETRAIN = osp.join(DEMO, 'randsac_vit-mini-p4_square-16to4_digits.py')
DATASETS = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets')
DIGITS = osp.join(DATASETS, 'digits.py')  # no collate_fn, augmenting
# What mmengine logs per parameter when a model initialises.
PARAMETER_LINE = re.compile(r' - torch\.Size\(|paramwise_options|'
                            r'init_weights')


def built(config):
    """The config's model, built as the tools build it, quietly."""
    from randsac_mm.apis import build_model
    from randsac_mm.evaluation import quiet_mmengine_info
    with quiet_mmengine_info():
        return build_model(Config.fromfile(config), seed=0)


@pytest.fixture(scope='module')
def digit_loaders():
    """32 training and 32 test digits of the usual data config (no
    collate_fn), and of the same config with default_collate."""
    from randsac_mm.evaluation import labelled_loaders
    usual = Config.fromfile(DIGITS)
    stacked = Config.fromfile(DIGITS)
    for key in ('train_dataloader', 'test_dataloader'):
        stacked[key]['collate_fn'] = dict(type='default_collate')
    return [labelled_loaders(cfg, 32, 32, spread=True, unaugmented=True)
            for cfg in (usual, stacked)]


def test_both_collations_give_the_same_features(digit_loaders):
    from randsac_mm.evaluation import extract_features, extract_layer_features
    model = built(PRETRAIN)
    (usual, _), (stacked, _) = digit_loaders
    assert usual.collate_fn.func.__name__ == 'pseudo_collate'
    for extract in (extract_features, extract_layer_features,
                    lambda m, loader: extract_features(m, loader, True)):
        features, labels = extract(model, usual)
        expected, expected_labels = extract(model, stacked)
        assert torch.equal(features, expected)
        assert torch.equal(labels, expected_labels)


def test_one_pass_gives_each_kind_as_a_pass_of_its_own(digit_loaders):
    """RandSAC's extract_feat pools: its tokens are read by a hook in the
    same pass, bit for bit what a second backbone pass gives (how they
    were made before), and each kind equals its pass alone."""
    from randsac_mm.evaluation import extract_feature_kinds
    from randsac_mm.evaluation.frozen_features import _batches
    model = built(PRETRAIN)
    loader = digit_loaders[0][1]
    together = extract_feature_kinds(model, loader,
                                     ['pooled', 'tokens', 'layers'])
    with torch.no_grad():
        tokens = torch.cat([model.backbone(images)[-1].flatten(2)
                            .transpose(1, 2) for images, _ in
                            _batches(model, loader)])
    assert tokens.shape == (32, 64, 128)
    assert torch.equal(together['tokens'][0], tokens)
    for kind in ('pooled', 'layers'):
        alone, labels = extract_feature_kinds(model, loader, [kind])[kind]
        assert torch.equal(together[kind][0], alone)
        assert torch.equal(together[kind][1], labels)
    # The hook read the last layer: the probe feature is its tokens' mean.
    torch.testing.assert_close(together['pooled'][0], tokens.mean(1))
    assert together['layers'][0].shape == (32, 6, 128)
    with pytest.raises(ValueError, match=r"kinds must be some of "
                       r"\['pooled', 'tokens', 'layers'\], got \['cls'\]"):
        extract_feature_kinds(model, loader, ['cls'])


def test_tokens_of_an_encoder_without_a_feature_map_are_refused(
        digit_loaders):
    """A backbone whose last output is tokens [B, N, C] (a ViT with
    out_type 'raw') has no raster map to read: a clear error, and the
    model is left without the extraction's hooks."""
    from randsac_mm.evaluation import extract_feature_kinds
    model = built(PRETRAIN)
    raw = model.backbone.register_forward_hook(
        lambda module, args, out: (out[-1].flatten(2).transpose(1, 2),))
    with pytest.raises(ValueError, match=r'tokens need an encoder that '
                       r'gives a feature map \[B, C, h, w\], got '
                       r'\(32, 64, 128\)'):
        extract_feature_kinds(model, digit_loaders[0][1], ['tokens'])
    raw.remove()
    assert not model.backbone._forward_hooks
    assert not any(layer._forward_hooks for layer in model.backbone.layers)


def test_training_images_are_spread_and_not_augmented(digit_loaders):
    """A classifier's data config: the training images go through the test
    pipeline in order; a count picks images all over the data set."""
    from randsac_mm.evaluation import labelled_loaders
    (train, test), _ = digit_loaders
    assert [type(t).__name__ for t in train.dataset.pipeline.transforms] \
        == ['PackInputs'] and not train.sampler.shuffle
    assert len(train.dataset) == 32 == len(test.dataset)
    # MNIST5k is sorted by class: its first 64 digits are all zeros.
    import randsac_mm.registration  # noqa: F401
    mnist, _ = labelled_loaders(osp.join(DATASETS, 'mnist5k.py'), 64, 10,
                                spread=True)
    labels = {int(mnist.dataset.get_data_info(i)['gt_label'])
              for i in range(64)}
    assert labels == set(range(10))
    first, _ = labelled_loaders(osp.join(DATASETS, 'mnist5k.py'), 64, 10)
    assert {int(first.dataset.get_data_info(i)['gt_label'])
            for i in range(64)} == {0}  # the study's subsets: unchanged


def test_progress_reports_every_step(digit_loaders):
    from randsac_mm.evaluation import evaluate_frozen
    model = built(PRETRAIN)
    stages = {}

    def progress(title, total):
        stages[title] = [total, 0]

        def tick():
            stages[title][1] += 1

        return tick

    train, test = digit_loaders[0]
    result = evaluate_frozen(model, train, test, k=5, probe_epochs=2,
                             readouts=('linear', 'knn', 'layers'),
                             probe_seeds=[0, 1], progress=progress)
    assert all(total == done for total, done in stages.values()), stages
    # One pass over each loader gives what every readout reads.
    assert stages['features of the 32 training images (pooled and layers; '
                  '1 batch, float32)'] == [1, 1]
    assert stages['probe seed 1: linear probe: 2 epochs on 32 features'] \
        == [2, 2]
    assert stages['probe seed 0: k-NN (k=5): 32 test images'] == [1, 1]
    assert stages['probe seed 0: linear probes of the 6 layers: 6 x 2 '
                  'epochs'] == [12, 12]
    # Quiet by default, and the same result.
    assert evaluate_frozen(model, train, test, k=5, probe_epochs=2,
                           readouts=('linear', 'knn', 'layers'),
                           probe_seeds=[0, 1]) == result


def test_models_build_without_a_line_per_parameter():
    """A process without a Runner: mmengine logs a line per parameter at
    INFO when a model initialises, not inside quiet_mmengine_info."""
    from mmengine.logging import MMLogger

    from randsac_mm.apis import build_model
    from randsac_mm.evaluation import quiet_mmengine_info
    logger = MMLogger.get_instance('quiet_build_test', log_level='INFO')
    before = logger.level
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        build_model(PRETRAIN)
        loud = stream.getvalue()
        stream.seek(0)
        stream.truncate()
        with quiet_mmengine_info():
            build_model(PRETRAIN)
            logger.warning('still shown')
        after = logger.level
    finally:
        logger.removeHandler(handler)
    assert len(PARAMETER_LINE.findall(loud)) > 50
    assert stream.getvalue() == 'still shown\n'
    assert after == before  # as it was
