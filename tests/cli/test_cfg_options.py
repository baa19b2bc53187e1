"""--cfg-options that mean what they say: a validation data root moves the
COCO evaluator's ground truth with it (the config writes it as
``data_root + 'annotations/...'``, fixed when the file is read)."""
import os.path as osp

from mmengine.config import Config

from randsac_mm.cli.config_file import apply_cfg_options

from ..conftest import REPO_ROOT

MASK_RCNN = osp.join(
    REPO_ROOT, 'configs', 'detection',
    'mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py')
GROUND_TRUTH = 'annotations/instances_validation.json'


def test_the_evaluator_follows_a_new_validation_root(logged):
    cfg = Config.fromfile(MASK_RCNN)
    assert cfg.val_evaluator.ann_file == 'data/digit_scenes/' + GROUND_TRUTH
    apply_cfg_options(cfg, {'val_dataloader.dataset.data_root': '/s/',
                            'test_dataloader.dataset.data_root': '/t'})
    assert cfg.val_evaluator.ann_file == '/s/' + GROUND_TRUTH
    assert cfg.test_evaluator.ann_file == '/t/' + GROUND_TRUTH
    assert 'val_evaluator.ann_file follows it to /s/' \
        in '\n'.join(logged)


def test_an_evaluator_given_on_the_command_line_is_left_as_given():
    cfg = Config.fromfile(MASK_RCNN)
    apply_cfg_options(cfg, {'val_dataloader.dataset.data_root': '/s/',
                            'val_evaluator.ann_file': '/gt.json'})
    assert cfg.val_evaluator.ann_file == '/gt.json'
    untouched = Config.fromfile(MASK_RCNN)
    apply_cfg_options(untouched, {'train_dataloader.dataset.data_root': '/s'})
    assert untouched.val_evaluator.ann_file == \
        'data/digit_scenes/' + GROUND_TRUTH
