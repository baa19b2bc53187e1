"""End-to-end runs of tools/train.py, tools/test.py and tools/dist_train.sh
on the embedded digits, on the CPU."""
import json
import re
import shutil

import pytest
import torch

from ..conftest import DEMO_CLASSIFIER, run_tool, train_iterations

pytestmark = pytest.mark.heavy

# 256 training images, batch 64: 4 iterations an epoch in one process.
# The suite trains on the CPU on purpose (tools/train.py refuses to
# without a usable GPU otherwise).
CPU = ['--device', 'cpu']
SMALL = ['train_dataloader.dataset.indices=256', 'train_cfg.val_interval=100',
         'default_hooks.logger.interval=1']


def train(work_dir, *flags, options=(), epochs=1):
    return run_tool(['tools/train.py', DEMO_CLASSIFIER, *CPU, '--work-dir',
                     work_dir, *flags, '--cfg-options',
                     f'train_cfg.max_epochs={epochs}', *SMALL, *options])


@pytest.fixture(scope='module')
def one_epoch(tmp_path_factory):
    """A one-epoch run, shared: (work dir, its process). Tests that resume
    it copy the work dir first."""
    work_dir = tmp_path_factory.mktemp('one_epoch')
    return work_dir, train(work_dir, epochs=1)


def copy_of(one_epoch, tmp_path):
    """The shared run's work dir copied to ``tmp_path``, its last_checkpoint
    pointer naming the copy."""
    shutil.copytree(one_epoch[0], tmp_path, dirs_exist_ok=True)
    (tmp_path / 'last_checkpoint').write_text(str(tmp_path / 'epoch_1.pth'))
    return tmp_path


def test_train_writes_checkpoint_that_test_evaluates(one_epoch, tmp_path):
    work_dir, proc = one_epoch
    assert train_iterations(proc.stdout + proc.stderr)[-1] == (1, 4, 4)
    ckpt = work_dir / 'epoch_1.pth'
    assert ckpt.is_file()

    out = run_tool(['tools/test.py', DEMO_CLASSIFIER, ckpt, *CPU, '--work-dir',
                    tmp_path / 'test', '--out', tmp_path / 'preds.pkl'])
    line = [ln for ln in out.stdout.splitlines()
            if ln.startswith('Test metrics: ')][-1]
    metrics = json.loads(line[len('Test metrics: '):])
    assert 0.0 <= metrics['accuracy/top1'] <= 100.0
    saved = json.loads((tmp_path / 'test' / 'test_metrics.json').read_text())
    assert saved == metrics
    # The logged figure is the printed one.
    logged = re.findall(r'Epoch\(test\).*accuracy/top1: ([\d.]+)',
                        out.stdout + out.stderr)
    assert float(logged[-1]) == pytest.approx(metrics['accuracy/top1'],
                                              abs=1e-3)
    assert (tmp_path / 'preds.pkl').is_file()


def test_resume_continues_from_latest_checkpoint(one_epoch, tmp_path):
    copy_of(one_epoch, tmp_path)
    proc = run_tool(['tools/train.py', DEMO_CLASSIFIER, *CPU, '--work-dir',
                     tmp_path, '--resume', '--cfg-options',
                     'train_cfg.max_epochs=2', *SMALL])
    log = proc.stdout + proc.stderr
    assert 'resumed epoch: 1, iter: 4' in log
    # Only epoch 2 was trained in the resumed run.
    assert {e for e, _, _ in train_iterations(log)} == {2}
    # A training checkpoint (message hub included) loads weights-only.
    import randsac_mm.registration  # noqa: F401
    ckpt = torch.load(tmp_path / 'epoch_2.pth')
    assert ckpt['meta']['epoch'] == 2 and ckpt['meta']['iter'] == 8


def test_resuming_a_finished_run_says_so_and_trains_nothing(one_epoch,
                                                             tmp_path):
    copy_of(one_epoch, tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for resume in (['--resume'], ['--resume', tmp_path / 'epoch_1.pth']):
        proc = run_tool(['tools/train.py', DEMO_CLASSIFIER, *CPU,
                         '--work-dir', tmp_path, *resume, '--cfg-options',
                         'train_cfg.max_epochs=1', *SMALL])
        assert proc.stdout.strip().splitlines()[-1] == (
            f'tools/train.py: nothing left to train: {tmp_path}/epoch_1.pth '
            'ends epoch 1 of train_cfg.max_epochs=1; raise it (--cfg-options '
            'train_cfg.max_epochs=N) to train on')
        assert 'Epoch(' not in proc.stdout + proc.stderr
        # Nothing written: no new timestamped log folder, no checkpoint.
        assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_resume_from_explicit_checkpoint_and_missing_path(one_epoch,
                                                          tmp_path):
    copy_of(one_epoch, tmp_path)
    proc = run_tool(['tools/train.py', DEMO_CLASSIFIER, *CPU, '--work-dir',
                     tmp_path / 'b', '--resume', tmp_path / 'epoch_1.pth',
                     '--cfg-options', 'train_cfg.max_epochs=2', *SMALL])
    assert 'resumed epoch: 1, iter: 4' in proc.stdout + proc.stderr
    with pytest.raises(pytest.fail.Exception,
                       match='--resume: no such file .*nope.pth'):
        run_tool(['tools/train.py', DEMO_CLASSIFIER, *CPU, '--resume',
                  tmp_path / 'nope.pth'])


@pytest.mark.parametrize('flags', [['--amp'], ['--amp-dtype', 'bfloat16']])
def test_amp_on_cpu_uses_bf16_autocast(tmp_path, flags):
    # Two iterations (bf16 autocast is slow on this CPU).
    proc = train(tmp_path, *flags,
                 options=['train_dataloader.dataset.indices=128'])
    log = proc.stdout + proc.stderr
    assert "type='AutocastOptimWrapper'" in log
    assert "dtype='bfloat16'" in log
    # Whatever the CPU: asked for, it runs (with a warning of the cost
    # where the CPU has no bf16 instructions).
    assert "precision: bfloat16 autocast on the CPU: precision='bfloat16' " \
        'asked for' in log
    losses = [float(x) for x in re.findall(r'\bloss: ([\d.]+)', log)]
    assert len(losses) == 2 and all(0 < x < 10 for x in losses)


PRETRAIN = 'configs/demo/randsac_vit-mini-p4_square-16to4_digits.py'


@pytest.mark.parametrize('flags, line', [
    # The suite's RANDSAC_CPU_PRECISION=float32 (tests/conftest.py).
    ([], 'precision: float32 on the CPU: RANDSAC_CPU_PRECISION=float32'),
    (['--fp32'], "precision: float32 on the CPU: precision='float32' asked "
     'for'),
])
def test_the_log_says_the_precision_and_why(tmp_path, flags, line):
    proc = run_tool(['tools/train.py', PRETRAIN, *CPU, *flags, '--work-dir',
                     tmp_path, '--cfg-options', 'train_cfg.max_epochs=1',
                     'train_dataloader.dataset.indices=64'])
    log = proc.stdout + proc.stderr
    assert log.count(line) == 1, log[-3000:]


def test_auto_scale_lr_scales_with_batch(tmp_path):
    proc = train(tmp_path, '--auto-scale-lr',
                 options=['train_dataloader.batch_size=32'])
    log = proc.stdout + proc.stderr
    assert ('LR is set based on batch size of 64 and the current batch size '
            'is 32. Scaling the original LR by 0.5.') in log


@pytest.mark.parametrize('tool, flags', [
    ('tools/train.py', ['--work-dir', '--resume', '--amp', '--amp-dtype',
                        '--fp32', '--auto-scale-lr', '--cfg-options',
                        '--launcher', '--no-validate', '--device']),
    ('tools/test.py', ['--work-dir', '--out', '--amp', '--cfg-options',
                       '--launcher', '--device']),
])
def test_help_documents_every_flag(tool, flags):
    out = run_tool([tool, '--help']).stdout
    for flag in flags:
        assert flag in out
    assert '{none,pytorch,slurm}' in out


def test_compile_adds_the_hook_once():
    from mmengine.config import Config

    from randsac_mm.cli.errors import UserError
    from randsac_mm.cli.run_flags import apply_train_args

    from ..tool_runs import tool_globals
    train_tool = tool_globals('tools/train.py', 'train_tool')
    args = train_tool['parse_args']([DEMO_CLASSIFIER, '--compile'])
    cfg = apply_train_args(
        Config(dict(custom_hooks=[dict(type='EMAHook')])), args)
    assert [h['type'] for h in cfg.custom_hooks] == ['EMAHook',
                                                     'CompileLossHook']
    with pytest.raises(UserError, match='^--compile: the config already has '
                       'a CompileLossHook in custom_hooks; drop one$'):
        apply_train_args(cfg, args)


def test_each_parameter_group_line_is_logged_once(tmp_path):
    """The checks build the optimizer quietly: the run's own build logs
    each parameter's group once (mmengine's ``paramwise_options`` lines had
    been printed by the check and again by the run)."""
    from ..conftest import REPO_ROOT
    pretrain = f'{REPO_ROOT}/configs/demo/' \
        'randsac_vit-mini-p4_square-16to4_digits.py'
    out = run_tool(['tools/train.py', pretrain, *CPU, '--work-dir', tmp_path,
                    '--cfg-options', 'train_cfg.max_epochs=1',
                    'train_dataloader.dataset.indices=64'])
    assert out.returncode == 0, out.stderr[-3000:]
    groups = re.findall(r'paramwise_options -- (\S+)', out.stdout + out.stderr)
    assert len(groups) > 10  # each norm and bias: no weight decay
    assert len(groups) == len(set(groups))
