"""The data sets of the configs build from their own default data roots,
which are relative (``data/ade/ADEChallengeData2016``, ``data/coco/``,
``data/digit_scenes``): mmengine joins ``data_prefix`` and ``ann_file`` to
a relative root too, and the layout check must not join them twice."""
import os.path as osp

import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope

from experiments import digit_scenes

from .. import data_factory
from ..conftest import REPO_ROOT

CONFIGS = osp.join(REPO_ROOT, 'configs')
SEG = 'segmentation/upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py'
DET = 'detection/mask-rcnn_randsac-vit-b_fpn_coco.py'
SEG_SMALL = ('segmentation/upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-'
             '64x64.py')
DET_SMALL = ('detection/mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-'
             'scenes-64x64.py')


def write_ade20k(root):
    data_factory.write_ade20k(root)


def write_coco(root):
    data_factory.write_coco(root)


def write_scenes(root):
    digit_scenes.make_scenes(root, 4, 2, log=lambda line: None)


@pytest.mark.parametrize('config, scope, write, count', [
    (SEG, 'mmseg', write_ade20k, 4),
    (DET, 'mmdet', write_coco, 4),
    (SEG_SMALL, 'mmseg', write_scenes, 4),
    (DET_SMALL, 'mmdet', write_scenes, 4),
])
def test_the_configs_data_set_builds_from_its_relative_root(
        config, scope, write, count, tmp_path, monkeypatch):
    import importlib

    import randsac_mm.downstream  # noqa: F401  (registers)
    cfg = Config.fromfile(osp.join(CONFIGS, config))
    root = cfg.train_dataloader.dataset.data_root
    assert not osp.isabs(root)
    write(str(tmp_path / root))
    monkeypatch.chdir(tmp_path)
    registry = importlib.import_module(f'{scope}.registry').DATASETS
    dataset_cfg = dict(cfg.train_dataloader.dataset, pipeline=[])
    with DefaultScope.overwrite_default_scope(scope):
        dataset = registry.build(dataset_cfg)
    assert len(dataset) == count
