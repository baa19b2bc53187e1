"""The digit scenes of the small transfer study: what they are made of,
that they are the same from the same seed, and that mmseg's and mmdet's
own data set code reads them (and mmdet's COCO metric scores them)."""
import json
import os
import os.path as osp

import numpy as np
import pytest
from PIL import Image

from experiments import digit_scenes
from randsac_mm.cli.errors import UserError

SCENES = dict(train_scenes=24, val_scenes=12, size=64, seed=3)


@pytest.fixture(scope='module')
def scenes(tmp_path_factory):
    out = tmp_path_factory.mktemp('scenes')
    statistics = digit_scenes.make_scenes(str(out), log=lambda line: None,
                                          **SCENES)
    return out, statistics


def test_training_and_validation_digits_never_meet(scenes):
    _, statistics = scenes
    train, _, train_indices = digit_scenes.split_digits('train')
    _, _, test_indices = digit_scenes.split_digits('test')
    used_train = set(statistics['training']['mnist5k_indices'])
    used_val = set(statistics['validation']['mnist5k_indices'])
    assert used_train and used_val and not used_train & used_val
    assert used_train <= set(train_indices.tolist())
    assert used_val <= set(test_indices.tolist())
    assert len(train) == 4000  # the demo's pretraining digits


def test_scenes_hold_two_to_four_digits_with_their_classes(scenes):
    out, statistics = scenes
    for folder, count in (('training', 24), ('validation', 12)):
        split = statistics[folder]
        assert split['scenes'] == count
        per_scene = split['digits_per_scene']
        assert 2 <= per_scene['min'] <= per_scene['mean'] <= \
            per_scene['max'] <= 4
        assert sum(split['pixel_share'].values()) == pytest.approx(1)
        coco = json.loads((out / 'annotations' /
                           f'instances_{folder}.json').read_text())
        assert len(coco['images']) == count
        assert len(coco['annotations']) == split['digits']
    # The first scene: its class map is 0 off the ink, a digit's class on
    # its ink, and agrees with its COCO masks pixel for pixel.
    from pycocotools import mask as rle
    image = np.asarray(Image.open(out / 'images/training/scene_000000.png'))
    semantic = np.asarray(Image.open(
        out / 'annotations/training/scene_000000.png'))
    assert image.shape == semantic.shape == (64, 64)
    assert semantic[image < digit_scenes.INK].max() == 0
    assert semantic[image >= digit_scenes.INK].min() >= 1
    coco = json.loads((out / 'annotations/instances_training.json')
                      .read_text())
    rebuilt = np.zeros_like(semantic)
    for annotation in coco['annotations']:
        if annotation['image_id'] != 0:
            continue
        mask = rle.decode(annotation['segmentation']).astype(bool)
        assert not rebuilt[mask].any()  # a pixel has one owner
        rebuilt[mask] = annotation['category_id']  # 1 + the digit
        x, y, w, h = annotation['bbox']
        assert mask[y:y + h, x:x + w].sum() == mask.sum() == \
            annotation['area']
    np.testing.assert_array_equal(rebuilt, semantic)


def test_the_same_seed_gives_the_same_files(scenes, tmp_path):
    out, _ = scenes
    again = digit_scenes.make_scenes(str(tmp_path), log=lambda line: None,
                                     **dict(SCENES, train_scenes=5))
    # The validation stream does not depend on the training count.
    for name in ('images/validation/scene_000011.png',
                 'annotations/validation/scene_000011.png',
                 'images/training/scene_000004.png'):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes()
    assert again['validation']['pixel_share'] == \
        json.loads((out / 'statistics.json').read_text())['validation'][
            'pixel_share']
    other = digit_scenes.make_scenes(str(tmp_path / 'other'),
                                     log=lambda line: None,
                                     **dict(SCENES, seed=4))
    assert other['training']['pixel_share'] != \
        again['training']['pixel_share']


def build(scope, cfg):
    """``cfg`` built by ``scope``'s (mmseg's, mmdet's) data set registry,
    as its Runner would (the scope's transforms)."""
    import importlib

    from mmengine.registry import DefaultScope

    import randsac_mm.downstream  # noqa: F401  (registers)
    registry = importlib.import_module(f'{scope}.registry').DATASETS
    with DefaultScope.overwrite_default_scope(scope):
        return registry.build(cfg)


def test_mmseg_reads_the_segmentation_set(scenes):
    out, _ = scenes
    dataset = build('mmseg', dict(
        type='DigitScenesDataset', data_root=str(out),
        data_prefix=dict(img_path='images/validation',
                         seg_map_path='annotations/validation'),
        pipeline=[dict(type='LoadImageFromFile'),
                  dict(type='LoadAnnotations')]))
    assert len(dataset) == 12
    assert dataset.metainfo['classes'][0] == 'background'
    assert len(dataset.metainfo['classes']) == 11
    item = dataset[0]
    expected = np.asarray(Image.open(
        out / 'annotations/validation/scene_000000.png'))
    # No label shift: ADE20K's reduce_zero_label would ignore background.
    np.testing.assert_array_equal(item['gt_seg_map'], expected)
    assert item['img'].shape == (64, 64, 3)


def test_mmseg_names_the_scenes_layout_when_missing(tmp_path):
    from randsac_mm.datasets.layout_errors import DataLayoutError
    with pytest.raises(DataLayoutError, match='(?s)digit scenes.*experiments'
                       r'\.digit_scenes'):
        build('mmseg', dict(
            type='DigitScenesDataset', data_root=str(tmp_path),
            data_prefix=dict(img_path='images/training',
                             seg_map_path='annotations/training'),
            pipeline=[]))


def test_mmdet_reads_the_instances_and_scores_them(scenes):
    import torch
    from mmdet.evaluation import CocoMetric
    from pycocotools import mask as rle

    from randsac_mm.datasets.grey_images import DIGIT_CLASSES
    out, _ = scenes
    ann_file = str(out / 'annotations/instances_validation.json')
    dataset = build('mmdet', dict(
        type='CheckedCocoDataset', data_root=str(out),
        ann_file='annotations/instances_validation.json',
        data_prefix=dict(img='images/validation/'),
        metainfo=dict(classes=DIGIT_CLASSES), filter_cfg=None,
        pipeline=[]))
    assert len(dataset) == 12
    coco = json.loads(open(ann_file).read())
    first = [a for a in coco['annotations'] if a['image_id'] == 0]
    item = dataset[0]
    assert [i['bbox_label'] for i in item['instances']] == \
        [a['category_id'] - 1 for a in first]
    # The ground truth given back as predictions scores AP 1 for boxes
    # and masks: the format is COCO's, as mmdet's metric reads it.
    metric = CocoMetric(ann_file=ann_file, metric=['bbox', 'segm'])
    metric.dataset_meta = dataset.metainfo
    samples = []
    for image in coco['images']:
        mine = [a for a in coco['annotations']
                if a['image_id'] == image['id']]
        boxes = torch.tensor([[x, y, x + w, y + h]
                              for x, y, w, h in (a['bbox'] for a in mine)],
                             dtype=torch.float32)
        masks = torch.from_numpy(np.stack([
            rle.decode(a['segmentation']) for a in mine]).astype(bool))
        samples.append(dict(img_id=image['id'], ori_shape=(64, 64),
                            pred_instances=dict(
                                bboxes=boxes, scores=torch.ones(len(mine)),
                                labels=torch.tensor(
                                    [a['category_id'] - 1 for a in mine]),
                                masks=masks)))
    metric.process({}, samples)
    results = metric.evaluate(len(samples))
    assert results['coco/bbox_mAP'] == pytest.approx(1.0)
    assert results['coco/segm_mAP'] == pytest.approx(1.0)


def test_a_scene_smaller_than_a_digit_is_refused(tmp_path):
    with pytest.raises(UserError, match='--size: 16 px; give at least 32'):
        digit_scenes.make_scenes(str(tmp_path), 1, 1, size=16)
    assert not osp.exists(tmp_path / 'images')


def _count(folder):
    return len(os.listdir(folder))


def test_fewer_scenes_over_more_replace_them_all(tmp_path):
    out = tmp_path / 'scenes'
    quiet = dict(log=lambda line: None, size=64)
    digit_scenes.make_scenes(str(out), 6, 3, **quiet)
    digit_scenes.make_scenes(str(out), 2, 1, **quiet)
    assert _count(out / 'images' / 'training') == 2
    assert _count(out / 'annotations' / 'validation') == 1
    assert json.loads((out / 'statistics.json').read_text())[
        'training']['scenes'] == 2
    assert not osp.exists(f'{out}.partial')


def test_an_interrupted_run_leaves_the_old_scenes_whole(tmp_path,
                                                        monkeypatch):
    out = tmp_path / 'scenes'
    digit_scenes.make_scenes(str(out), 2, 1, log=lambda line: None)
    before = sorted(p.name for p in (out / 'images' / 'training').iterdir())

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(digit_scenes, 'write_json', interrupted)
    with pytest.raises(KeyboardInterrupt):
        digit_scenes.make_scenes(str(out), 5, 1, log=lambda line: None)
    assert sorted(p.name for p in (out / 'images' / 'training').iterdir()) \
        == before  # the 5 new scenes stayed in scenes.partial


def test_a_folder_of_other_files_is_refused_and_kept(tmp_path):
    (tmp_path / 'mine.txt').write_text('keep me')
    with pytest.raises(UserError, match=r'--out: .* holds files that are '
                       'not digit scenes'):
        digit_scenes.make_scenes(str(tmp_path), 1, 1)
    assert os.listdir(tmp_path) == ['mine.txt']
