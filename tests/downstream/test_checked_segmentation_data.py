"""The segmentation data sets refuse labels that do not fit their images:
an annotation of another size (at build, from the files' headers) and a
label beyond the classes (when its sample loads, in training and in
evaluation alike), each naming the file."""
import os.path as osp

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope
from PIL import Image

from experiments import digit_scenes
from randsac_mm.datasets import DataLayoutError

from ..conftest import REPO_ROOT

CONFIG = osp.join(REPO_ROOT, 'configs', 'segmentation',
                  'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py')
FIRST = 'annotations/training/scene_000000.png'


@pytest.fixture
def scenes(tmp_path):
    root = tmp_path / 'scenes'
    digit_scenes.make_scenes(str(root), 3, 1, log=lambda line: None)
    return root


def build(root, split='train'):
    from mmseg.registry import DATASETS

    import randsac_mm.downstream  # noqa: F401  (registers)
    cfg = Config.fromfile(CONFIG)[f'{split}_dataloader'].dataset
    with DefaultScope.overwrite_default_scope('mmseg'):
        return DATASETS.build(dict(cfg, data_root=str(root)))


def test_the_scenes_load_as_written(scenes):
    dataset = build(scenes)
    assert len(dataset) == 3
    labels = dataset[0]['data_samples'].gt_sem_seg.data
    assert int(labels.max()) <= 10


def test_an_annotation_of_another_size_is_refused_at_build(scenes):
    labels = np.asarray(Image.open(scenes / FIRST))
    Image.fromarray(labels[:56]).save(scenes / FIRST)
    with pytest.raises(DataLayoutError, match=r'1 annotations are not the '
                       r'size of their image \(first: .*scene_000000.png is '
                       r'64x56, its image 64x64\)'):
        build(scenes)


@pytest.mark.parametrize('split', ['train', 'val'])
def test_a_label_beyond_the_classes_is_named_when_loaded(scenes, split):
    folder = 'training' if split == 'train' else 'validation'
    path = sorted((scenes / 'annotations' / folder).iterdir())[0]
    labels = np.full_like(np.asarray(Image.open(path)), 50)
    Image.fromarray(labels).save(path)
    dataset = build(scenes, split)
    with pytest.raises(DataLayoutError, match=f'{path.name} holds label 50, '
                       r'beyond its 11 classes \(0 to 10; 255 is ignored\)'):
        dataset[0]
