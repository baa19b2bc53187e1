"""An evaluator whose ground truth is not the file its split's data set
reads is refused before the run: a config that moves the data set's
``data_root`` (COCO's evaluator keeps ``data_root + 'annotations/...'``
from the base config) would score the new images against the old root's
annotations, rc 0."""
import os.path as osp

import pytest
from mmengine.config import Config

from randsac_mm.cli.errors import UserError
from randsac_mm.run.checks import check_evaluator_files

from ..cli.test_cfg_options import GROUND_TRUTH, MASK_RCNN
from ..tool_runs import run_command


def test_a_config_that_moves_the_data_root_alone_is_refused():
    cfg = Config.fromfile(MASK_RCNN)
    check_evaluator_files(cfg, 'val')  # the config as written
    cfg.merge_from_dict({'val_dataloader.dataset.data_root': 'elsewhere/'})
    with pytest.raises(UserError) as info:
        check_evaluator_files(cfg, 'val')
    assert str(info.value) == (
        f'config: val_evaluator.ann_file is data/digit_scenes/{GROUND_TRUTH}'
        f', but the val set reads elsewhere/{GROUND_TRUTH} (val_dataloader.'
        'dataset data_root + ann_file): the run would score against other '
        'ground truth; point both at the same file (--cfg-options '
        f'val_evaluator.ann_file=elsewhere/{GROUND_TRUTH})')
    check_evaluator_files(cfg, 'test')  # the test split still agrees


def test_the_same_bytes_elsewhere_pass(tmp_path):
    for root in ('a', 'b'):
        (tmp_path / root / 'annotations').mkdir(parents=True)
        (tmp_path / root / GROUND_TRUTH).write_text('{"images": []}')
    cfg = Config.fromfile(MASK_RCNN)
    cfg.merge_from_dict({
        'val_dataloader.dataset.data_root': f'{tmp_path}/a/',
        'val_evaluator.ann_file': f'{tmp_path}/b/{GROUND_TRUTH}'})
    check_evaluator_files(cfg, 'val')
    (tmp_path / 'b' / GROUND_TRUTH).write_text('{"images": [1]}')
    with pytest.raises(UserError, match='would score against other'):
        check_evaluator_files(cfg, 'val')


def test_train_and_test_refuse_it_in_one_line(tmp_path):
    config = tmp_path / 'moved.py'
    config.write_text(f"_base_ = [{MASK_RCNN!r}]\n"
                      "val_dataloader = dict(dataset=dict(data_root="
                      "'elsewhere/'))\ntest_dataloader = val_dataloader\n")
    for tool, extra in (('tools/train.py', []),
                        ('tools/test.py', [osp.join(tmp_path, 'x.pth')])):
        if extra:
            open(extra[0], 'wb').close()
        out = run_command([tool, str(config), *extra, '--device', 'cpu',
                           '--work-dir', str(tmp_path / 'w')])
        split = 'val' if tool.endswith('train.py') else 'test'
        assert out.returncode == 2, out.stderr[-2000:]
        assert out.stderr.strip().splitlines()[-1].startswith(
            f'{tool}: error: config: {split}_evaluator.ann_file is '
            'data/digit_scenes/'), out.stderr[-2000:]
        assert not (tmp_path / 'w').exists()
