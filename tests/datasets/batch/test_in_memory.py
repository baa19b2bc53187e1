"""InMemoryBatchImages and BatchCropDataPreprocessor: a batch's draws are
each sample's own, keyed on (seed, epoch, index), whatever the batch and
the loader's workers; the device crop gives the per-sample pipeline's
pixels; RandSAC trains on the batches."""
import mmcv
import numpy as np
import pytest
import torch
from mmengine.dataset import default_collate
from mmpretrain.registry import DATASETS, MODELS

import randsac_mm.registration  # noqa: F401
from randsac_mm.engine.hooks.per_sample_seed_hook import find_epoch_keyed

from ...data_factory import write_mnist
from ...models.helpers import tiny_cfg

MEAN, STD = [40.0] * 3, [80.0] * 3  # any normalisation


@pytest.fixture(scope='module')
def mnist_root(tmp_path_factory):
    return write_mnist(str(tmp_path_factory.mktemp('mnist')), train=40)


def _dataset(root, **layout):
    return DATASETS.build(dict(
        type='InMemoryBatchImages',
        dataset=dict(type='CheckedMNIST', data_root=root, split='train'),
        crop=dict(scale=32, crop_ratio_range=(0.2, 1.0), backend='pillow',
                  interpolation='bicubic'),
        flip_prob=0.5,
        layout=dict(input_size=32, patch_size=4, **(
            layout or dict(segment='blob', num_segments=7)))))


def _fields(items):
    return [(item['inputs'].numpy(), tuple(item['data_samples'].crop_box),
             item['data_samples'].flip,
             tuple(item['data_samples'].token_rank)) for item in items]


def test_a_sample_draws_the_same_in_any_batch(mnist_root):
    dataset = _dataset(mnist_root)
    assert len(dataset) == 40 and dataset.images.shape == (40, 32, 32, 3)
    whole = _fields(dataset.__getitems__(list(range(40))))
    part = _fields(dataset.__getitems__([17, 3, 29]))
    for mine, theirs in zip(part, [whole[17], whole[3], whole[29]]):
        np.testing.assert_array_equal(mine[0], theirs[0])
        assert mine[1:] == theirs[1:]
    assert _fields([dataset[17]])[0][1:] == whole[17][1:]
    flips = [f[2] for f in whole]
    assert 0 < sum(flips) < 40
    dataset.set_epoch(1)
    again = _fields(dataset.__getitems__(list(range(40))))
    assert [f[1:] for f in again] != [f[1:] for f in whole]
    assert dataset.__getitems__([0])[0]['data_samples'].gt_label.item() == 0


def test_loader_workers_draw_what_the_main_process_draws(mnist_root):
    # Persistent workers, started at epoch 0, read each new epoch from the
    # shared clock: what they draw is what the main process draws.
    dataset = _dataset(mnist_root)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=8, num_workers=2, collate_fn=default_collate,
        persistent_workers=True)

    def batches(source):
        return [(b['inputs'], [tuple(s.crop_box) for s in b['data_samples']],
                 [tuple(s.token_rank) for s in b['data_samples']])
                for b in source]

    def in_main():
        return batches(default_collate(dataset.__getitems__(
            list(range(i, i + 8)))) for i in range(0, 40, 8))

    first = batches(loader)
    dataset.set_epoch(1, seed=5)
    second, expected = batches(loader), in_main()
    for (a, boxes_a, ranks_a), (b, boxes_b, ranks_b) in zip(second,
                                                           expected):
        assert torch.equal(a, b) and boxes_a == boxes_b and \
            ranks_a == ranks_b
    assert [f[1] for f in first] != [f[1] for f in second]


def test_the_hook_finds_the_data_set_inside_a_wrapper(mnist_root):
    # PerSampleSeedHook gives the epoch to what find_epoch_keyed finds,
    # through wrappers' ``dataset`` attributes (as mmengine's have).
    class Wrapper:
        def __init__(self, dataset):
            self.dataset = dataset
    dataset = _dataset(mnist_root)
    assert find_epoch_keyed(Wrapper(dataset)) == [dataset]


def test_the_device_crop_gives_the_per_sample_pipelines_inputs(mnist_root):
    dataset = _dataset(mnist_root)
    items = dataset.__getitems__(list(range(12)))
    preprocessor = MODELS.build(dict(type='BatchCropDataPreprocessor',
                                     mean=MEAN, std=STD, to_rgb=False))
    out = preprocessor(default_collate(items), training=True)['inputs']
    assert out.shape == (12, 3, 32, 32) and out.dtype == torch.float32
    for item, ours in zip(items, out):
        sample = item['data_samples']
        top, left, height, width = sample.crop_box
        image = item['inputs'].permute(1, 2, 0).numpy()
        crop = mmcv.imresize(
            mmcv.imcrop(image, np.array([left, top, left + width - 1,
                                         top + height - 1])),
            (32, 32), interpolation='bicubic', backend='pillow')
        if sample.flip:
            crop = crop[:, ::-1]
        expected = (torch.from_numpy(crop.copy()).permute(2, 0, 1).float()
                    - torch.tensor(MEAN)[:, None, None]) / \
            torch.tensor(STD)[:, None, None]
        torch.testing.assert_close(ours, expected)


def test_a_training_batchs_samples_stay_on_the_host_as_they_came(
        mnist_root):
    """Only the images are cast: the samples (their layouts, which RandSAC
    plans on the host) come back as the very objects the worker made, not
    copies, their labels not moved one by one."""
    dataset = _dataset(mnist_root)
    batch = default_collate(dataset.__getitems__(list(range(6))))
    preprocessor = MODELS.build(dict(type='BatchCropDataPreprocessor',
                                     mean=MEAN, std=STD, to_rgb=False))
    out = preprocessor(batch, training=True)
    assert all(ours is theirs for ours, theirs in zip(
        out['data_samples'], batch['data_samples'], strict=True))
    assert out['inputs'].is_contiguous()


def test_randsac_trains_on_the_batches(mnist_root):
    dataset = _dataset(mnist_root, segment='square', square_size=2,
                       hierarchy=(4, ))
    torch.manual_seed(0)
    model = MODELS.build(dict(tiny_cfg(), data_preprocessor=dict(
        type='BatchCropDataPreprocessor', mean=MEAN, std=STD,
        to_rgb=False)))
    model.init_weights()
    data = model.data_preprocessor(
        default_collate(dataset.__getitems__(list(range(8)))), True)
    loss = model(**data, mode='loss')['loss']
    assert torch.isfinite(loss) and loss > 0
    loss.backward()
    assert model.backbone.patch_embed.projection.weight.grad.abs().sum() > 0


def test_training_samples_of_another_data_set_are_refused():
    from mmpretrain.structures import DataSample
    preprocessor = MODELS.build(dict(type='BatchCropDataPreprocessor',
                                     mean=MEAN, std=STD))
    with pytest.raises(KeyError, match="batch's data samples carry no"):
        preprocessor(dict(inputs=torch.zeros(2, 3, 32, 32),
                          data_samples=[DataSample(), DataSample()]), True)


def test_whole_images_outside_training_are_normalised_only():
    """A readout's labelled images (no crop boxes) pass as they are, as
    the per-sample path's preprocessor passes them."""
    from mmpretrain.structures import DataSample
    kwargs = dict(mean=MEAN, std=STD, to_rgb=False)
    batch = dict(inputs=torch.randint(0, 256, (2, 3, 32, 32),
                                      dtype=torch.uint8),
                 data_samples=[DataSample(), DataSample()])
    ours = MODELS.build(dict(type='BatchCropDataPreprocessor', **kwargs))(
        batch, False)
    plain = MODELS.build(dict(type='SelfSupDataPreprocessor', **kwargs))(
        batch, False)
    assert ours['inputs'].shape == (2, 3, 32, 32)
    torch.testing.assert_close(ours['inputs'], plain['inputs'], rtol=0,
                               atol=0)


@pytest.mark.parametrize('change, message', [
    (dict(crop=dict(scale=32, backend='pillow', interpolation='lanczos')),
     "crop.interpolation must be one of"),
    (dict(crop=dict(scale=32)),  # mmpretrain's default backend
     "crop.backend must be 'pillow' .*, got 'cv2'"),
    (dict(flip_prob=1.5), r'flip_prob must be in \[0, 1\], got 1.5'),
    (dict(layout=dict(input_size=64, patch_size=4)),
     r'layout.input_size 64 is not the crop size \(32, 32\)'),
    (dict(layout=dict(input_size=32, patch_size=4, square_size=2)),
     "segment='square' has no option"),
])
def test_bad_arguments_are_refused_naming_them(mnist_root, change, message):
    cfg = dict(type='InMemoryBatchImages',
               dataset=dict(type='CheckedMNIST', data_root=mnist_root),
               crop=dict(scale=32, backend='pillow'),
               layout=dict(input_size=32, patch_size=4))
    cfg.update(change)
    if 'square_size' in cfg['layout']:
        cfg['layout']['segment'] = 'patch'
        message = "segment='patch' has no option"
    with pytest.raises(ValueError, match=message):
        DATASETS.build(cfg)


def test_cifar_pickles_and_labels_are_held(tmp_path):
    from ...data_factory import write_cifar
    dataset = DATASETS.build(dict(
        type='InMemoryBatchImages',
        dataset=dict(type='CheckedCIFAR10',
                     data_root=write_cifar(str(tmp_path / 'cifar10'))),
        crop=dict(scale=32, backend='pillow'),
        layout=dict(input_size=32, patch_size=4)))
    source = DATASETS.build(dict(
        type='CheckedCIFAR10', data_root=str(tmp_path / 'cifar10'),
        pipeline=[]))
    assert dataset.images.shape == (len(source), 32, 32, 3)
    for i in (0, len(source) - 1):
        info = source.get_data_info(i)
        np.testing.assert_array_equal(dataset.images[i], info['img'])
        assert dataset.labels[i] == info['gt_label']
    assert dataset.metainfo['classes'] == source.metainfo['classes']


def test_without_a_layout_samples_carry_no_ranks_and_mae_trains(
        mnist_root):
    dataset = DATASETS.build(dict(
        type='InMemoryBatchImages',
        dataset=dict(type='CheckedMNIST', data_root=mnist_root),
        crop=dict(scale=32, crop_ratio_range=(0.2, 1.0), backend='pillow',
                  interpolation='bicubic')))
    items = dataset.__getitems__([0, 1, 2, 3])
    assert 'token_rank' not in items[0]['data_samples']
    with_layout = _dataset(mnist_root).__getitems__([0, 1, 2, 3])
    assert [tuple(i['data_samples'].crop_box) for i in items] == \
        [tuple(i['data_samples'].crop_box) for i in with_layout]
    torch.manual_seed(0)
    mae = MODELS.build(dict(
        type='MAE',
        data_preprocessor=dict(type='BatchCropDataPreprocessor', mean=MEAN,
                               std=STD, to_rgb=False),
        backbone=dict(type='MAEViT', arch=dict(
            embed_dims=32, num_layers=1, num_heads=2,
            feedforward_channels=64), img_size=32, patch_size=4,
            mask_ratio=0.75),
        neck=dict(type='MAEPretrainDecoder', num_patches=64, patch_size=4,
                  in_chans=3, embed_dim=32, decoder_embed_dim=32,
                  decoder_depth=1, decoder_num_heads=2),
        head=dict(type='MAEPretrainHead', patch_size=4,
                  loss=dict(type='PixelReconstructionLoss',
                            criterion='L2'))))
    mae.init_weights()
    data = mae.data_preprocessor(default_collate(items), True)
    assert torch.isfinite(mae(**data, mode='loss')['loss'])
