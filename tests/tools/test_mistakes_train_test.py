"""A new user's mistakes with tools/train.py, tools/test.py, the dist and
Slurm scripts and tools/pretrain_linear_finetune.py, one row each: the
tool stops before any work with exit code 2 and one line,
``<tool>: error: <what is wrong>, <what is allowed>``, naming the argument,
and no traceback (``--debug`` shows it). The silent wrong results
(a pretraining checkpoint scored by a linear-probe config, ``--resume``
training from scratch) are refusals too.

Most rows run the tool's ``main`` in this process (``tool_runs``); the
scripts' rows and a few of each Python tool's run in a process of their
own, as a user runs them. Checkpoints are built, not trained: the state
dict of a built model in mmengine's format, which is all the checks read.
"""
import os
import os.path as osp
import re
import subprocess
import sys

import pytest
import torch
from mmengine.config import Config

from randsac_mm.run.builds import build_model_for_checks

from ..conftest import DEMO_CLASSIFIER, REPO_ROOT, free_port
from ..tool_runs import run_in_process

DEMO = osp.join(REPO_ROOT, 'configs', 'demo')
LINEAR = osp.join(DEMO, 'vit-mini-p4_linear_digits.py')
PRETRAIN = osp.join(DEMO, 'randsac_vit-mini-p4_square-16to4_digits.py')
DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets', 'digits.py')
TINY_LINEAR = osp.join(REPO_ROOT, 'configs', 'benchmarks', 'linear',
                       'vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10.py')
CPU = ['--device', 'cpu']


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    """The inputs the rows name, by placeholder."""
    tmp = tmp_path_factory.mktemp('mistakes')

    def save(config, name, **extra):
        model = build_model_for_checks(Config.fromfile(config))
        path = tmp / name
        torch.save({'state_dict': model.state_dict(), 'meta': {}, **extra},
                   path)
        return str(path)

    (tmp / 'not_a_checkpoint.pth').write_text('epoch 10, top-1 98.2\n')
    torch.save({'epoch': 10, 'note': 'no weights'}, tmp / 'no_state.pth')
    # A pretraining config whose train_dataloader has no collate_fn.
    (tmp / 'no_collate.py').write_text(f"""
_base_ = [{PRETRAIN!r}]
_pipeline = {{{{_base_.train_dataloader.dataset.pipeline}}}}
train_dataloader = dict(_delete_=True, batch_size=8, num_workers=0,
                        sampler=dict(type='DefaultSampler', shuffle=True),
                        dataset=dict(type='DigitsDataset', split='train',
                                     pipeline=_pipeline))
""")
    (tmp / 'a_file').write_text('')
    (tmp / 'empty_work_dir').mkdir()
    # mmengine's CheckpointHook killed between removing epoch_1.pth and
    # writing epoch_2.pth: a pointer to a removed checkpoint.
    (tmp / 'dangling_work_dir').mkdir()
    (tmp / 'dangling_work_dir' / 'last_checkpoint').write_text(
        str(tmp / 'dangling_work_dir' / 'epoch_1.pth'))
    # Stand-ins for `python`: the wrong one on PATH, and a virtual
    # environment's (a script: a symlinked interpreter would lose the
    # environment it belongs to).
    for name, body in (('wrong_bin/python', 'echo "wrong python" >&2; exit 3'),
                       ('venv/bin/python', f'exec {sys.executable} "$@"')):
        script = tmp / name
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(f'#!/bin/sh\n{body}\n')
        script.chmod(0o755)
    return dict(
        tmp=str(tmp),
        pre=save(PRETRAIN, 'randsac_epoch_1.pth'),
        cls_weights=save(DEMO_CLASSIFIER, 'classifier_weights.pth'),
        not_ckpt=str(tmp / 'not_a_checkpoint.pth'),
        no_state=str(tmp / 'no_state.pth'),
        no_collate=str(tmp / 'no_collate.py'),
        a_file=str(tmp / 'a_file'),
        empty=str(tmp / 'empty_work_dir'),
        dangling=str(tmp / 'dangling_work_dir'),
        wrong_bin=str(tmp / 'wrong_bin'),
        venv=str(tmp / 'venv'),
    )


def run(argv, files, env=None):
    argv = [a.format(**files) for a in argv]
    if argv[0].endswith('.py'):
        argv = [sys.executable] + argv
    full_env = dict(os.environ, PYTHONUNBUFFERED='1', OMP_NUM_THREADS='1',
                    PYTHON=sys.executable, PORT=str(free_port()))
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value.format(**files)
    return subprocess.run(argv, cwd=REPO_ROOT, env=full_env,
                          capture_output=True, text=True, timeout=300)


TRAIN, TEST = 'tools/train.py', 'tools/test.py'
CHAIN = 'tools/pretrain_linear_finetune.py'
# The plain `python` on PATH lacks torch (after `make demo`): the scripts
# must not use it.
WRONG_PYTHON = dict(PYTHON=None, PATH='{wrong_bin}:' + os.environ['PATH'])

# id, command line, the message after '<tool>: error: ', environment.
ROWS = [
    # 1. The right Python, and GPUS.
    ('dist-train-venv-python', ['tools/dist_train.sh', DATA, '2', *CPU],
     r'^tools/train\.py: error: config: digits\.py is a data config',
     dict(WRONG_PYTHON, VIRTUAL_ENV='{venv}')),
    pytest.param(
        ['tools/dist_train.sh', DATA, '2', *CPU],
        r'^tools/train\.py: error: config: digits\.py is a data config',
        dict(WRONG_PYTHON, VIRTUAL_ENV=None), id='dist-train-checkout-python',
        marks=pytest.mark.skipif(
            not osp.isfile(osp.join(REPO_ROOT, '.venv', 'bin', 'python')),
            reason='no .venv in this checkout')),
    ('dist-test-venv-python',
     ['tools/dist_test.sh', LINEAR, '{pre}', '2', *CPU],
     r'^tools/test\.py: error: checkpoint: .*randsac_epoch_1\.pth does not '
     r'fit the model of the config', dict(WRONG_PYTHON, VIRTUAL_ENV='{venv}')),
    ('dist-train-no-gpus', ['tools/dist_train.sh', DEMO_CLASSIFIER],
     r'^tools/dist_train\.sh: error: GPUS is missing; usage: '
     r'tools/dist_train\.sh CONFIG GPUS', None),
    ('dist-train-gpus-0', ['tools/dist_train.sh', DEMO_CLASSIFIER, '0'],
     r"^tools/dist_train\.sh: error: GPUS must be a positive integer "
     r"\(processes on this node\), got '0'$", None),
    ('dist-train-option-for-gpus',
     ['tools/dist_train.sh', DEMO_CLASSIFIER, '--work-dir', 'x'],
     r"^tools/dist_train\.sh: error: GPUS must be a positive integer "
     r"\(processes on this node\), got '--work-dir'$", None),
    ('dist-test-no-gpus', ['tools/dist_test.sh', LINEAR, '{pre}'],
     r'^tools/dist_test\.sh: error: GPUS is missing; usage: ', None),
    ('slurm-missing-arguments', ['tools/slurm_train.sh', 'gpu', 'job'],
     r'^tools/slurm_train\.sh: error: missing CONFIG WORK_DIR; usage: ',
     None),
    # 2. A checkpoint test.py would score wrongly, or none at all.
    ('test-pretraining-checkpoint', [TEST, LINEAR, '{pre}', *CPU],
     r"^tools/test\.py: error: checkpoint: .*randsac_epoch_1\.pth does not "
     r'fit the model of the config: 4 of its 82 weights are not in '
     r"it \(neck\.1\.bn\.running_mean, neck\.1\.bn\.running_var, "
     r"head\.fc\.weight, head\.fc\.bias\).*so testing would score weights "
     r"left as initialised\. It looks like a pretraining checkpoint "
     r"\(RandSAC, MAE\): fine-tune or linear-probe it first with "
     r"tools/train\.py .*or evaluate it frozen with "
     r"tools/analysis/eval_frozen\.py$", None),
    ('test-not-a-checkpoint', [TEST, DEMO_CLASSIFIER, '{not_ckpt}', *CPU],
     r"^tools/test\.py: error: checkpoint: not_a_checkpoint\.pth is not "
     r'a checkpoint torch\.load can read', None),
    ('test-no-state-dict', [TEST, DEMO_CLASSIFIER, '{no_state}', *CPU],
     r"^tools/test\.py: error: checkpoint: no_state\.pth holds no "
     r"state_dict \(it holds \['epoch', 'note'\]\): not a model checkpoint",
     None),
    ('test-missing-checkpoint', [TEST, DEMO_CLASSIFIER, 'nope.pth', *CPU],
     r"^tools/test\.py: error: checkpoint: no such file 'nope\.pth'", None),
    ('test-arguments-swapped', [TEST, '{cls_weights}', DEMO_CLASSIFIER, *CPU],
     r"^tools/test\.py: error: config: '.*classifier_weights\.pth' is not a "
     r'config file', None),
    ('test-out-not-pkl',
     [TEST, DEMO_CLASSIFIER, '{cls_weights}', '--out', 'x.json', *CPU],
     r"^tools/test\.py: error: --out: x\.json does not end with \.pkl; give "
     r"such a file name$", None),
    # 3. --resume with nothing to resume, or another model's checkpoint.
    ('resume-nothing-to-resume',
     [TRAIN, DEMO_CLASSIFIER, '--resume', '--work-dir', '{empty}', *CPU],
     r'^tools/train\.py: error: --resume: no training checkpoint in '
     r'.*empty_work_dir to resume from; drop --resume to start a new run',
     None),
    ('resume-dangling-pointer',
     [TRAIN, DEMO_CLASSIFIER, '--resume', '--work-dir', '{dangling}', *CPU],
     r'^tools/train\.py: error: --resume: no training checkpoint in '
     r'.*dangling_work_dir to resume from \(its last_checkpoint names '
     r'.*dangling_work_dir/epoch_1\.pth, which does not exist\); drop '
     r'--resume', None),
    # A requeued job (tools/slurm_train.sh) starts again where nothing was
    # saved, but not where a checkpoint was saved and then lost.
    ('resume-if-saved-dangling-pointer',
     [TRAIN, DEMO_CLASSIFIER, '--resume-if-saved', '--work-dir',
      '{dangling}', *CPU],
     r'^tools/train\.py: error: --resume-if-saved: no training checkpoint '
     r'in .*dangling_work_dir to resume from \(its last_checkpoint names '
     r'.*dangling_work_dir/epoch_1\.pth, which does not exist\); drop '
     r'--resume-if-saved', None),
    ('resume-if-saved-and-resume',
     [TRAIN, DEMO_CLASSIFIER, '--resume-if-saved', '--resume', *CPU],
     r'^tools/train\.py: error: --resume-if-saved: not with --resume \(one '
     r'decides where the run starts\)$', None),
    ('resume-another-models-checkpoint',
     [TRAIN, DEMO_CLASSIFIER, '--resume', '{pre}', '--work-dir', '{empty}',
      *CPU],
     r"^tools/train\.py: error: --resume: .*randsac_epoch_1\.pth does not fit"
     r' the model of the config: 4 of its 57 weights are not in it '
     r'.*It looks like a pretraining checkpoint', None),
    ('resume-weights-only',
     [TRAIN, DEMO_CLASSIFIER, '--resume', '{cls_weights}', '--work-dir',
      '{empty}', *CPU],
     r"^tools/train\.py: error: --resume: .*classifier_weights\.pth holds the"
     r" model's weights but no training state \(meta\.epoch, meta\.iter, "
     r'optimizer\)', None),
    # A resume the config asks for itself names the config's keys, and
    # says to turn it off rather than to drop a flag not given.
    ('resume-config-another-models-checkpoint',
     [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{empty}', *CPU, '--cfg-options',
      'resume=True', 'load_from={pre}'],
     r'^tools/train\.py: error: config: load_from \(resume=True\): '
     r'.*randsac_epoch_1\.pth does not fit the model of the config: .*to '
     r'start from its encoder, set resume=False \(--cfg-options '
     r'resume=False\) and give', None),
    ('resume-config-weights-only',
     [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{empty}', *CPU, '--cfg-options',
      'resume=True', 'load_from={cls_weights}'],
     r'^tools/train\.py: error: config: load_from \(resume=True\): '
     r".*classifier_weights\.pth holds the model's weights but no training "
     r'state .*to start from its weights, set resume=False', None),
    ('resume-missing-file',
     [TRAIN, DEMO_CLASSIFIER, '--resume', 'nope.pth', *CPU],
     r"^tools/train\.py: error: --resume: no such file 'nope\.pth'; give a "
     r"checkpoint file$",
     None),
    # 4. Configs of the wrong kind.
    ('test-pretraining-config', [TEST, PRETRAIN, '{pre}', *CPU],
     r'^tools/test\.py: error: config: randsac_vit-mini-p4_square-16to4_'
     r'digits\.py is a self-supervised pretraining config .*a pretraining '
     r'config has no test loop', None),
    ('train-data-config', [TRAIN, DATA, *CPU],
     r'^tools/train\.py: error: config: digits\.py is a data config '
     r'\(dataloaders, no model\); this tool takes ', None),
    ('train-runtime-config',
     [TRAIN, 'configs/_base_/default_runtime.py', *CPU],
     r'^tools/train\.py: error: config: default_runtime\.py is a runtime '
     r'config \(hooks and environment, no model, no data\); ', None),
    ('train-missing-config', [TRAIN, 'configs/nope.py', *CPU],
     r"^tools/train\.py: error: config: no such file 'configs/nope\.py'",
     None),
    # 5. A pretraining config whose batches are not stacked.
    ('train-no-collate', [TRAIN, '{no_collate}', *CPU],
     r'^tools/train\.py: error: config: train_dataloader\.collate_fn is not '
     r"set \(pseudo_collate\); pretraining models .*set train_dataloader\."
     r"collate_fn=dict\(type='default_collate'\)", None),
    # 6. The chain checks before its first stage: each stage's config as
    # its tools/train.py would (the preflight), the refusal naming it.
    ('chain-pretraining-without-collate',
     [CHAIN, '{no_collate}', LINEAR, DEMO_CLASSIFIER, *CPU],
     r'^tools/pretrain_linear_finetune\.py: error: pretrain_config: '
     r'no_collate\.py: train_dataloader\.collate_fn is not set', None),
    ('chain-missing-pretrain-checkpoint',
     [CHAIN, PRETRAIN, '--pretrain-checkpoint', 'missing.pth', *CPU],
     r"^tools/pretrain_linear_finetune\.py: error: --pretrain-checkpoint: no "
     r"such file 'missing\.pth'", None),
    ('chain-pretraining-config-as-linear',
     [CHAIN, PRETRAIN, PRETRAIN, DEMO_CLASSIFIER, *CPU],
     r'^tools/pretrain_linear_finetune\.py: error: linear_config: '
     r'randsac_.*is a self-supervised pretraining config', None),
    ('chain-linear-config-of-another-encoder',
     [CHAIN, PRETRAIN, TINY_LINEAR, DEMO_CLASSIFIER, *CPU],
     r'^tools/pretrain_linear_finetune\.py: error: pretrain_config: '
     r'linear_config .*vit-tiny-p4_8xb2048-linear-coslr-90e_cifar10\.py: '
     r'init_cfg\.checkpoint: the model of .*randsac_vit-mini-p4_square-'
     r'16to4_digits\.py does not fit the backbone: .* another shape', None),
    ('chain-not-a-checkpoint',
     [CHAIN, PRETRAIN, '--pretrain-checkpoint', '{not_ckpt}', *CPU],
     r'^tools/pretrain_linear_finetune\.py: error: --pretrain-checkpoint: '
     r'not_a_checkpoint\.pth is not a checkpoint', None),
    # 7. Options refused at parse time, naming the option.
    ('chain-gpus-0', [CHAIN, PRETRAIN, '--gpus', '0', *CPU],
     r'^tools/pretrain_linear_finetune\.py: error: argument --gpus: must be '
     r'>= 1, got 0$', None),
    ('chain-option-without-value',
     [CHAIN, PRETRAIN, '--linear-options', 'train_cfg.max_epochs', *CPU],
     r"^tools/pretrain_linear_finetune\.py: error: argument --linear-options:"
     r" 'train_cfg\.max_epochs' is not KEY=VALUE", None),
    ('train-cfg-option-without-value',
     [TRAIN, DEMO_CLASSIFIER, '--cfg-options', 'train_cfg.max_epochs', *CPU],
     r"^tools/train\.py: error: argument --cfg-options: "
     r"'train_cfg\.max_epochs' is not KEY=VALUE", None),
    # 8. What the library raises, as one line.
    ('train-empty-pretrained-checkpoint', [TRAIN, LINEAR, *CPU],
     r'^tools/train\.py: error: init_cfg\.checkpoint is empty: pass the '
     r'pretraining checkpoint with --cfg-options model\.backbone\.init_cfg\.'
     r'checkpoint=', None),
    ('train-float16-on-cpu',
     [TRAIN, DEMO_CLASSIFIER, '--amp-dtype', 'float16', *CPU],
     r"^tools/train\.py: error: --amp-dtype: 'float16' is not available on "
     r"cpu; allowed: \('bfloat16',\)$", None),
    ('train-fp32-with-amp',
     [TRAIN, DEMO_CLASSIFIER, '--fp32', '--amp', *CPU],
     r'^tools/train\.py: error: --fp32: not with --amp or --amp-dtype \(one '
     r'precision a run\)$', None),
    ('train-work-dir-is-a-file',
     [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{a_file}', *CPU],
     r'^tools/train\.py: error: --work-dir: .*a_file is a file; give a '
     r'folder$', None),
    ('train-launcher-pytorch-without-torchrun',
     [TRAIN, DEMO_CLASSIFIER, '--launcher', 'pytorch', *CPU],
     r'^tools/train\.py: error: --launcher pytorch: RANK and WORLD_SIZE are '
     r'not set, so this process was not started by its launcher; start it '
     r'with torchrun: tools/dist_train\.sh CONFIG GPUS', None),
    ('test-launcher-slurm-on-cpu',
     [TEST, LINEAR, '{pre}', '--launcher', 'slurm', *CPU],
     r'^tools/test\.py: error: --launcher slurm needs CUDA GPUs; with '
     r'--device cpu use --launcher pytorch \(tools/dist_train\.sh\) or none$',
     None),
    # What the run builds first, refused before the work dir is made.
    ('train-unknown-model-key',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.nonsense=1', *CPU],
     r'^tools/train\.py: error: config: model\.backbone\.nonsense '
     r"\(RandSACViT\): VisionTransformer\.__init__\(\) got an unexpected "
     r"keyword argument 'nonsense'; remove it or correct its name$", None),
    ('train-unknown-pipeline-key',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'train_dataloader.dataset.pipeline.3.square_size=2', *CPU],
     r'^tools/train\.py: error: config: train_dataloader\.dataset\.pipeline'
     r'\.3\.square_size \(PackInputs\): PackInputs\.__init__\(\) got an '
     r"unexpected keyword argument 'square_size'", None),
    ('train-image-size-not-patches',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.img_size=30', *CPU],
     r'^tools/train\.py: error: RandSACViT: img_size 30 must be divisible by '
     r'patch_size 4', None),
    ('train-square-not-tiling',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'train_dataloader.dataset.pipeline.2.square_size=3', *CPU],
     r'^tools/train\.py: error: square_size \(M\) must divide both sides of '
     r'the 8x8 token grid', None),
    ('train-batch-size-zero',
     [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{empty}', '--cfg-options',
      'train_dataloader.batch_size=0', *CPU],
     r'^tools/train\.py: error: config: train_dataloader\.batch_size=0; give '
     r'at least 1$', None),
    # A value outside what its class can use, refused by the class
    # (randsac_mm.argument_limits; mmpretrain's layer decay by name in
    # run.foreign_limits) when the dry run builds it. Before,
    # each passed --dry-run: layer decay 0 froze the encoder in silence,
    # -0.5 made learning rates negative, 1.5 17 times larger at the input;
    # drop path 1.0 gave NaN at iteration 1; an unknown arch was
    # mmpretrain's AssertionError without its key.
    *[(f'train-layer-decay-{rate}',
       [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{empty}', '--cfg-options',
        f'optim_wrapper.paramwise_cfg.layer_decay_rate={rate}', *CPU],
       r'^tools/train\.py: error: config: optim_wrapper\.paramwise_cfg\.'
       rf'layer_decay_rate={re.escape(rate)}: give a number in \(0, 1\]$',
       None) for rate in ('0', '-0.5', '1.5')],
    ('train-drop-path-one',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.drop_path_rate=1.0', *CPU],
     r'^tools/train\.py: error: config: model\.backbone\.drop_path_rate=1\.0:'
     r' give a number in \[0, 1\)$', None),
    ('train-unknown-arch',
     [TRAIN, PRETRAIN, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.arch=gigantic', *CPU],
     r"^tools/train\.py: error: config: model\.backbone\.arch='gigantic': "
     r"give a name of RandSACViT's arch_zoo \(b, base, .*\) or a dict of "
     r'embed_dims, num_layers, num_heads and feedforward_channels$', None),
    # The linear probe's BatchNorm1d cannot train on one sample. Before:
    # 'Expected more than 1 value per channel' after the dry run passed,
    # even after a whole epoch, at its last batch.
    ('train-batch-norm-batch-of-one',
     [TRAIN, LINEAR, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.init_cfg.checkpoint={pre}',
      'train_dataloader.batch_size=1', *CPU],
     r'^tools/train\.py: error: config: train_dataloader\.batch_size=1: the '
     r'model normalises over the batch \(neck\.1\.bn: BatchNorm1d\), which '
     r'cannot train on one sample; give a batch size of 2 or more$', None),
    ('train-batch-norm-last-batch-of-one',
     [TRAIN, LINEAR, '--work-dir', '{empty}', '--cfg-options',
      'model.backbone.init_cfg.checkpoint={pre}',
      'train_dataloader.dataset.indices=9', 'train_dataloader.batch_size=4',
      *CPU],
     r'^tools/train\.py: error: config: train_dataloader: the last batch of '
     r'each epoch holds 1 sample \(9 images a process at batch_size 4\): '
     r'.*; set train_dataloader\.drop_last=True, or another batch size$',
     None),
    ('train-unknown-vis-backend',
     [TRAIN, DEMO_CLASSIFIER, '--work-dir', '{empty}', '--cfg-options',
      'visualizer.vis_backends.0.type=TensorBoardBackend', *CPU],
     r"^tools/train\.py: error: config: visualizer\.vis_backends\.0\.type="
     r"'TensorBoardBackend' is no registered logging backend; mmengine's: "
     r'LocalVisBackend, TensorboardVisBackend, ', None),
    ('train-zero-epochs',
     [TRAIN, DEMO_CLASSIFIER, '--cfg-options', 'train_cfg.max_epochs=0',
      *CPU],
     r'^tools/train\.py: error: config: train_cfg\.max_epochs=0 asks for no '
     r'training; give at least 1 \(--cfg-options train_cfg\.max_epochs=N\)$',
     None),
]


# One Python tool's row runs as a user, in a process of their own; the
# scripts' rows always do. The rest run in this process.
AS_A_USER = {'train-data-config'}


def as_param(row):
    """A row of ``ROWS`` as ``(argv, message, env, real)``: real (a process
    of its own, heavy) for the scripts and ``AS_A_USER``."""
    if isinstance(row, type(pytest.param())):
        argv, message, env = row.values
        return pytest.param(argv, message, env, True, id=row.id,
                            marks=[*row.marks, pytest.mark.heavy])
    name, argv, message, env = row
    real = argv[0].endswith('.sh') or name in AS_A_USER
    return pytest.param(argv, message, env, real, id=name,
                        marks=[pytest.mark.heavy] if real else [])


@pytest.mark.parametrize('argv, message, env, real', map(as_param, ROWS))
def test_a_mistake_is_one_line_naming_the_argument(files, argv, message,
                                                   env, real, monkeypatch,
                                                   capsys):
    if real:
        proc = run(argv, files, env)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        code, out, err = run_in_process([a.format(**files) for a in argv],
                                        monkeypatch, capsys)
    lines = err.strip().splitlines()
    assert code == 2, out[-3000:] + err[-3000:]
    assert 'Traceback' not in err
    assert 'wrong python' not in err
    print(lines[-1])  # the message, in pytest -rA's report
    assert re.search(message, lines[-1]), lines[-1]
    # One line says what is wrong (argparse's usage lines come before it).
    assert sum(': error: ' in line for line in lines) == 1, err
    # Nothing was started: no training, nothing in the work dir.
    assert 'Epoch(' not in out + err
    assert not os.listdir(files['empty'])
    assert not osp.exists(osp.join(REPO_ROOT, 'x'))


def test_debug_shows_the_traceback(files, monkeypatch, capsys):
    code, _, err = run_in_process(
        [a.format(**files) for a in [TEST, LINEAR, '{pre}', *CPU, '--debug']],
        monkeypatch, capsys)
    assert code != 0
    assert 'Traceback (most recent call last)' in err
    assert 'UserError: checkpoint: ' in err
    assert 'does not fit the model of the config' in err


@pytest.mark.parametrize('argv', [
    [TEST, DEMO_CLASSIFIER, '{cls_weights}', *CPU, '--dry-run'],
    [CHAIN, PRETRAIN, '--pretrain-checkpoint', '{pre}', *CPU, '--dry-run']],
    ids=['test-its-own-checkpoint', 'chain-its-pretraining-checkpoint'])
def test_the_checks_pass_what_is_right(files, argv, monkeypatch, capsys):
    """The checks refuse only the mistakes: the model's own checkpoint is
    tested, the chain accepts a pretraining checkpoint of its config."""
    code, out, err = run_in_process([a.format(**files) for a in argv],
                                    monkeypatch, capsys)
    assert code == 0, err[-3000:]
    assert 'the checks passed' in out


def test_a_logging_backend_whose_package_is_missing_is_refused_at_dry_run(
        files, monkeypatch, capsys):
    """Before: the dry run passed, and the run died at its first log with a
    chained ImportError, after making its work dir."""
    import importlib.util
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *a: None
                        if name == 'tensorboard' else find_spec(name, *a))
    code, out, err = run_in_process(
        [TRAIN, DEMO_CLASSIFIER, '--dry-run', '--work-dir', files['empty'],
         '--cfg-options', 'visualizer.vis_backends.0.type='
         'TensorboardVisBackend', *CPU], monkeypatch, capsys)
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        'tools/train.py: error: config: visualizer.vis_backends.0 '
        '(TensorboardVisBackend) logs with the tensorboard package, which is '
        'not installed: pip install tensorboard, or remove that backend')
    assert not os.listdir(files['empty'])


def test_tensorboard_logs_a_run_as_docs_tools_md_shows(tmp_path, monkeypatch,
                                                       capsys):
    code, out, err = run_in_process(
        [TRAIN, DEMO_CLASSIFIER, '--work-dir', str(tmp_path), '--cfg-options',
         'visualizer.vis_backends.0.type=TensorboardVisBackend',
         'train_cfg.max_epochs=1', 'train_dataloader.dataset.indices=64',
         'val_dataloader.dataset.indices=64', *CPU], monkeypatch, capsys)
    assert code == 0, err[-3000:]
    events = list(tmp_path.glob('*/vis_data/events.out.tfevents.*'))
    assert events and events[0].stat().st_size > 0
