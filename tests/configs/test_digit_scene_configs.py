"""The small transfer configs (digit scenes) train and evaluate through
mmseg's and mmdet's own Runner loops on the CPU from a checkpoint of the
demo's pretraining config, as docs/transfer.md runs them."""
import re
import shutil

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmpretrain.models.utils import resize_pos_embed

from experiments import digit_scenes
from randsac_mm.precision import CPU_PRECISION_ENV, cpu_bf16_instructions

from ..conftest import REPO_ROOT, run_tool, save_moved_checkpoint

pytestmark = pytest.mark.heavy

DEMO = f'{REPO_ROOT}/configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py'
SEG = (f'{REPO_ROOT}/configs/segmentation/'
       'upernet_randsac-vit-mini-p4_1xb8-4k_digit-scenes-64x64.py')
DET = (f'{REPO_ROOT}/configs/detection/'
       'mask-rcnn_randsac-vit-mini-p4_fpn_1xb8-6e_digit-scenes-64x64.py')


@pytest.fixture(scope='module')
def scenes(tmp_path_factory):
    out = tmp_path_factory.mktemp('scenes')
    digit_scenes.make_scenes(str(out), 16, 8, log=lambda line: None)
    return str(out)


@pytest.fixture(scope='module')
def demo_checkpoint(tmp_path_factory):
    """A checkpoint of the demo's pretraining model (32 px, 8x8 tokens),
    its weights moved off their initial values."""
    import randsac_mm.registration  # noqa: F401
    from randsac_mm.run.builds import build_model_for_checks
    torch.manual_seed(0)
    model = build_model_for_checks(Config.fromfile(DEMO))
    return save_moved_checkpoint(
        model, tmp_path_factory.mktemp('ckpt') / 'demo.pth')


def options(checkpoint, scenes, length):
    """--cfg-options of a short run on ``scenes`` (``length``: the
    train_cfg keys)."""
    return ['--cfg-options', f'model.backbone.init_cfg.checkpoint='
            f'{checkpoint}',
            f'train_dataloader.dataset.data_root={scenes}/',
            f'val_dataloader.dataset.data_root={scenes}/',
            'train_dataloader.num_workers=0',
            'train_dataloader.persistent_workers=False',
            'val_dataloader.num_workers=0',
            'val_dataloader.persistent_workers=False',
            *[f'train_cfg.{k}={v}' for k, v in length.items()],
            'default_hooks.checkpoint.interval=1']


def test_segmentation_config_loads_the_demo_encoder(demo_checkpoint):
    from mmseg.registry import MODELS

    import randsac_mm.downstream  # noqa: F401
    cfg = Config.fromfile(SEG)
    cfg.model.backbone.init_cfg.checkpoint = demo_checkpoint
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = MODELS.build(cfg.model)
        model.init_weights()
    source = torch.load(demo_checkpoint)['state_dict']
    loaded = model.backbone.state_dict()
    encoder = [k for k in loaded if not k.startswith('fpn')]
    assert any(k.startswith('layers.5.') for k in encoder)
    for key in encoder:
        expected = source['backbone.' + key]
        if key == 'pos_embed':  # 8x8 tokens at 32 px -> 16x16 at 64 px
            expected = resize_pos_embed(expected, (8, 8), (16, 16),
                                        'bicubic', 0)
            assert torch.allclose(loaded[key], expected, atol=1e-5)
        else:
            assert torch.equal(loaded[key], expected), key
    assert cfg.model.decode_head.num_classes == 11
    # bf16 on a GPU and on a CPU with bf16 instructions, else float32.
    assert (cfg.optim_wrapper.type, cfg.optim_wrapper.precision) == (
        'AutocastOptimWrapper', 'auto')


def test_segmentation_trains_and_evaluates_on_the_cpu(
        demo_checkpoint, scenes, tmp_path):
    out = run_tool(['tools/train.py', SEG, '--device', 'cpu', '--work-dir',
                    tmp_path / 'w', *options(demo_checkpoint, scenes, dict(
                        max_iters=2, val_interval=2))])
    log = out.stdout + out.stderr
    assert re.search(r'mIoU: \d+\.\d+', log), log[-3000:]
    # Every class of the scenes is evaluated, the background among them.
    assert re.search(r'\|\s*background\s*\|', log)
    assert (tmp_path / 'w' / 'iter_2.pth').exists()


def train_losses(log):
    """{iteration: logged loss} of an iteration-based run's log.

    The printed log, not ``experiments.scalars.logged_scalars``: runs made
    in this process share mmengine's first Visualizer, so a second run's
    scalars.json lands in the first run's work dir."""
    return {int(i): float(v) for i, v in re.findall(
        r'Iter\(train\) \[\s*(\d+)/\d+\].*?\sloss: (\d+\.\d+)', log)}


def test_segmentation_resumes_on_its_own_loaders(demo_checkpoint, scenes,
                                                 tmp_path):
    # The config's loaders (mmengine's InfiniteSampler, one persistent
    # worker): on resume the loop skips the batches already trained on,
    # which once ended in StopIteration (RandomStateHook reset the loop's
    # iterator). The resumed iterations log the uninterrupted run's losses.
    def train(work_dir, *resume):
        out = run_tool([
            'tools/train.py', SEG, '--device', 'cpu', '--work-dir', work_dir,
            *resume, '--cfg-options',
            f'model.backbone.init_cfg.checkpoint={demo_checkpoint}',
            f'train_dataloader.dataset.data_root={scenes}/',
            f'val_dataloader.dataset.data_root={scenes}/',
            'train_cfg.max_iters=4', 'train_cfg.val_interval=4',
            'default_hooks.checkpoint.interval=2',
            'default_hooks.logger.interval=1'])
        return out.stdout + out.stderr

    full = train(tmp_path / 'full')
    (tmp_path / 'resumed').mkdir()
    shutil.copy(tmp_path / 'full' / 'iter_2.pth', tmp_path / 'resumed')
    resumed = train(tmp_path / 'resumed', '--resume')
    assert 'Advance dataloader 2 steps' in resumed, resumed[-3000:]
    losses = train_losses(full)
    assert sorted(losses) == [1, 2, 3, 4], full[-3000:]
    assert train_losses(resumed) == {i: losses[i] for i in (3, 4)}


def test_detection_trains_and_evaluates_on_the_cpu(
        demo_checkpoint, scenes, tmp_path):
    from mmdet.registry import MODELS

    import randsac_mm.downstream  # noqa: F401
    cfg = Config.fromfile(DET)
    assert cfg.model.backbone.window_size == 8  # true windows of 16x16
    assert cfg.model.roi_head.bbox_head.num_classes == 10
    with DefaultScope.overwrite_default_scope('mmdet'):
        MODELS.build(cfg.model)
    ann = f'{scenes}/annotations/instances_validation.json'
    out = run_tool(['tools/train.py', DET, '--device', 'cpu', '--work-dir',
                    tmp_path / 'w', *options(demo_checkpoint, scenes, dict(
                        max_epochs=1, val_interval=1)),
                    f'val_evaluator.ann_file={ann}',
                    # After a few iterations no box scores 0.05: keep every
                    # box so that the COCO metrics are computed.
                    'model.test_cfg.rcnn.score_thr=0.0'])
    log = out.stdout + out.stderr
    assert re.search(r'coco/bbox_mAP: -?\d+\.\d+', log), log[-3000:]
    assert re.search(r'coco/segm_mAP: -?\d+\.\d+', log)


@pytest.mark.skipif(cpu_bf16_instructions() is None,
                    reason='this CPU has no bf16 instructions')
def test_detection_trains_in_bf16_on_a_cpu_with_bf16(demo_checkpoint, scenes,
                                                     tmp_path):
    """The config's precision='auto' on this CPU: bf16 autocast, with the
    RPN's proposals and the RoI features float32 where mmcv's ops take
    them (randsac_mm.downstream.float32_mmcv_ops)."""
    ann = f'{scenes}/annotations/instances_validation.json'
    out = run_tool(['tools/train.py', DET, '--device', 'cpu', '--work-dir',
                    tmp_path / 'w', *options(demo_checkpoint, scenes, dict(
                        max_epochs=1, val_interval=1)),
                    f'val_evaluator.ann_file={ann}',
                    'model.test_cfg.rcnn.score_thr=0.0'],
                   env={CPU_PRECISION_ENV: None})  # the suite's float32 off
    log = out.stdout + out.stderr
    assert 'precision: bfloat16 autocast on the CPU: it computes bf16 ' \
        'natively' in log, log[-3000:]
    losses = [float(x) for x in re.findall(r'\bloss: ([\d.]+)', log)]
    assert losses and all(0 < x < 20 for x in losses)
    assert re.search(r'coco/bbox_mAP: -?\d+\.\d+', log)
