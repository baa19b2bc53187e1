"""A new user's mistakes with tools/analysis/eval_frozen.py,
tools/visualization/vis_reconstruction.py, vis_segments.py and the demo
(python -m experiments.demo), one row each: exit code 2 and one line,
``<tool>: error: <what is wrong>, <what is allowed>``, naming the argument,
no traceback, before any work. Then what these tools show: progress on
stderr, no line per parameter from mmengine, a config's own layout drawn
and labelled (the evaluation's loaders and progress:
tests/evaluation/test_labelled_data_and_progress.py).

Most rows run the tool's ``main`` in this process (as its ``__main__``
does, through ``run_tool``, with its ``sys.argv``), a few in a process of
their own, as a user runs them. Checkpoints are built, not trained.
"""
import io
import logging
import os
import os.path as osp
import re
import runpy
import sys

import pytest
import torch
from mmengine.config import Config

from ..conftest import REPO_ROOT
from ..tool_runs import (
    as_a_user,
    in_process,
    run_in_process,
    run_process,
    tool_globals,
)

DEMO = osp.join(REPO_ROOT, 'configs', 'demo')
PRETRAIN = osp.join(DEMO, 'randsac_vit-mini-p4_square-16to4_digits.py')
LINEAR = osp.join(DEMO, 'vit-mini-p4_linear_digits.py')
CLASSIFIER = osp.join(DEMO, 'vit-mini-p4_1xb64-10e_digits.py')
DATASETS = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets')
DIGITS = osp.join(DATASETS, 'digits.py')  # no collate_fn, augmenting
DIGITS_PRETRAIN = osp.join(DATASETS, 'digits_randsac.py')

EVAL = 'tools/analysis/eval_frozen.py'
RECON = 'tools/visualization/vis_reconstruction.py'
SEGMENTS = 'tools/visualization/vis_segments.py'
DEMO_TOOL = 'experiments.demo'  # a module, run with -m (tool_command)
# mmengine's line per parameter: initialisation, optimizer options.
PARAMETER_LINE = re.compile(r' - torch\.Size\(|paramwise_options|'
                            r'init_weights')


def built(config):
    """The config's model, built as the tools build it, quietly."""
    from randsac_mm.apis import build_model
    from randsac_mm.evaluation import quiet_mmengine_info
    with quiet_mmengine_info():
        return build_model(Config.fromfile(config), seed=0)


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    """The inputs the rows name, by placeholder."""
    tmp = tmp_path_factory.mktemp('eval_pictures')

    def save(config, name, **extra):
        path = tmp / name
        torch.save({'state_dict': built(config).state_dict(), 'meta': {},
                    **extra}, path)
        return str(path)

    (tmp / 'not_a_checkpoint.pth').write_text('top-1 98.2\n')
    torch.save({'meta': {'epoch': 1}}, tmp / 'no_state.pth')
    (tmp / 'notes.png').write_text('not a picture\n')
    (tmp / 'a_file').write_text('')
    (tmp / 'broken.py').write_text('model = dict(\n')  # not Python
    (tmp / 'folder').mkdir()
    return dict(
        tmp=str(tmp),
        pre=save(PRETRAIN, 'randsac_epoch_1.pth'),
        cls=save(CLASSIFIER, 'classifier.pth'),
        not_ckpt=str(tmp / 'not_a_checkpoint.pth'),
        no_state=str(tmp / 'no_state.pth'),
        notes=str(tmp / 'notes.png'),
        a_file=str(tmp / 'a_file'),
        broken=str(tmp / 'broken.py'),
        folder=str(tmp / 'folder'),
        missing_dir=str(tmp / 'missing_dir'),
    )


# The message follows '<tool>: error: ': argparse names the script,
# run_tool the path it was run as.
TOOL = r'^(tools/(\S+/)?)?'
# A config file with a syntax error, as the project's config reader says.
NOT_PYTHON = r'is not valid Python: .* \(line 1\)$'
ROWS = [
    # eval_frozen.py: configs of the wrong kind (4).
    as_a_user(
        'eval-linear-probe-config-as-config',
        [EVAL, LINEAR, '{pre}', '--data', DIGITS],
        r'eval_frozen\.py: error: config: vit-mini-p4_linear_digits\.py is '
        r'a classifier config .*; this tool takes a self-supervised '
        r'pretraining config \(RandSAC, MAE\): give the pretraining config '
        r'the checkpoint was trained with$'),
    in_process(
        'eval-data-config-as-config', [EVAL, DIGITS, '{pre}', '--data',
                                       DIGITS],
        r'eval_frozen\.py: error: config: digits\.py is a data config .*: '
        r'give the pretraining config; the data config goes to --data$'),
    in_process(
        'eval-pretraining-data-as-data',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS_PRETRAIN],
        r'eval_frozen\.py: error: --data: digits_randsac\.py has no '
        r'test_dataloader; it needs a train_dataloader and a '
        r'test_dataloader of labelled images'),
    in_process(
        'eval-pretraining-config-as-data',
        [EVAL, PRETRAIN, '{pre}', '--data', PRETRAIN],
        r'eval_frozen\.py: error: --data: randsac_vit-mini-p4_square-16to4_'
        r'digits\.py has no test_dataloader; it needs a train_dataloader'),
    # A config that is not Python: one line naming the argument (4).
    in_process(
        'eval-config-not-python', [EVAL, '{broken}', '{pre}', '--data',
                                   DIGITS],
        r'eval_frozen\.py: error: config: \S*broken\.py '
        + NOT_PYTHON),
    in_process(
        'eval-data-not-python', [EVAL, PRETRAIN, '{pre}', '--data',
                                 '{broken}'],
        r'eval_frozen\.py: error: --data: \S*broken\.py '
        + NOT_PYTHON),
    in_process(
        'recon-config-not-python',
        [RECON, '{broken}', '{pre}', '--dataset', '--out-dir',
         '{folder}'],
        r'vis_reconstruction\.py: error: config: \S*broken\.py '
        + NOT_PYTHON),
    in_process(
        'segments-config-not-python',
        [SEGMENTS, '--config', '{broken}', '--out-dir', '{folder}'],
        r'vis_segments\.py: error: --config: \S*broken\.py '
        + NOT_PYTHON),
    # eval_frozen.py, vis_reconstruction.py: CONFIG and CHECKPOINT swapped.
    in_process(
        'eval-config-and-checkpoint-swapped',
        [EVAL, '{pre}', PRETRAIN, '--data', DIGITS],
        r"eval_frozen\.py: error: config: '.*randsac_epoch_1\.pth' is not a "
        r'config file'),
    in_process(
        'recon-checkpoint-is-a-config',
        [RECON, PRETRAIN, PRETRAIN, '--dataset', '--out-dir', '{folder}'],
        r"vis_reconstruction\.py: error: checkpoint: '.*randsac_vit-mini-p4_"
        r"square-16to4_digits\.py' is a config file, not a checkpoint: give "
        r'the config first, then the checkpoint \(\.pth\)$'),
    # eval_frozen.py: not a checkpoint of the config (4).
    in_process(
        'eval-not-a-checkpoint', [EVAL, PRETRAIN, '{not_ckpt}', '--data',
                                  DIGITS],
        r'eval_frozen\.py: error: checkpoint: not_a_checkpoint\.pth is not '
        r'a checkpoint torch\.load can read \(.*\); give a \.pth that '
        r'training wrote$'),
    in_process(
        'eval-no-state-dict', [EVAL, PRETRAIN, '{no_state}', '--data',
                               DIGITS],
        r'eval_frozen\.py: error: checkpoint: no_state\.pth holds no '
        r'state_dict'),
    in_process(
        'eval-checkpoint-of-another-model',
        [EVAL, PRETRAIN, '{cls}', '--data', DIGITS],
        r"eval_frozen\.py: error: checkpoint: \S*classifier\.pth does not "
        r"fit randsac_vit-mini-p4_square-16to4_digits\.py's model "
        r'\(RandSAC\): \d+ of its \d+ weights are not in it .*; it holds '
        r'\d+ weights .* lacks .*, so the model would run with weights left '
        r'as initialised\. It looks like a classifier checkpoint: give a '
        r'checkpoint of that config'),
    in_process(
        'eval-no-checkpoint', [EVAL, PRETRAIN, '--data', DIGITS],
        r'eval_frozen\.py: error: give a CHECKPOINT or --random-init'),
    in_process(
        'eval-nothing-to-read', [EVAL, '--data', DIGITS],
        r'eval_frozen\.py: error: give CONFIG \(and a CHECKPOINT or '
        r'--random-init\), or --pixels$'),
    in_process(
        'eval-pixels-with-a-config', [EVAL, PRETRAIN, '--pixels', '--data',
                                      DIGITS],
        r'eval_frozen\.py: error: argument --pixels: reads no encoder; leave '
        r'out CONFIG, CHECKPOINT and --random-init$'),
    in_process(
        'eval-pixels-attentive', [EVAL, '--pixels', '--data', DIGITS,
                                  '--probe', 'linear', 'attentive'],
        r"eval_frozen\.py: error: argument --probe: \['attentive'\] read an "
        r"encoder's tokens or layers; with --pixels give some of "
        r"\['linear', 'knn'\]$"),
    # eval_frozen.py: the results' file, checked before the work (3).
    in_process(
        'eval-out-under-a-file',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--out',
         '{a_file}/x.json'],
        r'eval_frozen\.py: error: --out: cannot make .*a_file/x\.json '
        r'\(.*a_file is not a writable folder\); give a path in a writable '
        r'folder$'),
    in_process(
        'eval-out-is-a-folder',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--out', '{folder}'],
        r'eval_frozen\.py: error: --out: .*folder is a folder; give a file '
        r'name'),
    # eval_frozen.py: counts (5).
    in_process(
        'eval-more-train-images-than-there-are',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--train-images',
         '9999'],
        r'eval_frozen\.py: error: --train-images: 9999 images, but '
        r'train_dataloader of digits\.py has 1438; give at most 1438$'),
    in_process(
        'eval-k-beyond-the-training-images',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--train-images', '10'],
        r'eval_frozen\.py: error: --k: 20 neighbours, but there are 10 '
        r'training images; give --k at most 10$'),
    in_process(
        'eval-k-0', [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--k', '0'],
        r'eval_frozen\.py: error: argument --k: must be >= 1, got 0$'),
    in_process(
        'eval-temperature-0',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--temperature', '0'],
        r'eval_frozen\.py: error: argument --temperature: must be '
        r'> 0, got 0$'),
    in_process(
        'eval-probe-epochs-0',
        [EVAL, PRETRAIN, '{pre}', '--data', DIGITS, '--probe-epochs', '0'],
        r'eval_frozen\.py: error: argument --probe-epochs: must be '
        r'>= 1, got 0$'),
    # vis_reconstruction.py (6).
    in_process(
        'recon-num-2000', [RECON, PRETRAIN, '{pre}', '--dataset', '--num',
                           '2000'],
        r'vis_reconstruction\.py: error: argument --num: must be in '
        r'\[1, 16\] \(one picture column each\), got 2000$'),
    in_process(
        'recon-17-images', [RECON, PRETRAIN, '{pre}', '--img'] +
        ['{notes}'] * 17,
        r'vis_reconstruction\.py: error: argument --img: 17 images; '
        r'at most 16'),
    in_process(
        'recon-out-dir-is-a-file',
        [RECON, PRETRAIN, '{pre}', '--dataset', '--out-dir', '{a_file}'],
        r'vis_reconstruction\.py: error: --out-dir: .*a_file is a file; '
        r'give a folder$'),
    in_process(
        'recon-not-an-image',
        [RECON, PRETRAIN, '{pre}', '--img', '{notes}', '--out-dir',
         '{folder}'],
        r'vis_reconstruction\.py: error: --img: .*notes\.png is not an image '
        r'PIL can read'),
    in_process(
        'recon-linear-probe-config',
        [RECON, LINEAR, '{pre}', '--dataset', '--out-dir', '{folder}'],
        r'vis_reconstruction\.py: error: config: vit-mini-p4_linear_digits'
        r'\.py is a classifier config .*; this tool takes a self-supervised '
        r'pretraining config'),
    in_process(
        'recon-checkpoint-of-another-model',
        [RECON, PRETRAIN, '{cls}', '--dataset', '--out-dir', '{folder}'],
        r'vis_reconstruction\.py: error: checkpoint: \S*classifier\.pth does '
        r'not fit'),
    # vis_segments.py (7).
    in_process(
        'segments-option-against-the-config',
        [SEGMENTS, '--config', PRETRAIN, '--square-size', '3', '--out-dir',
         '{folder}'],
        r'vis_segments\.py: error: --square-size: 3, but the layout of '
        r'randsac_vit-mini-p4_square-16to4_digits\.py has square_size=2; '
        r"leave it out to draw the config's layout$"),
    in_process(
        'segments-index-beyond-the-data',
        [SEGMENTS, '--config', DIGITS, '--index', '9999', '--input-size',
         '32', '--patch-size', '4', '--square-size', '2', '--out-dir',
         '{folder}'],
        r'vis_segments\.py: error: --index: 9999, but the dataset of '
        r'digits\.py has 1438 images; give 0 to 1437$'),
    in_process(
        'segments-out-dir-is-a-file',
        [SEGMENTS, '--img', 'sklearn:flower.jpg', '--out-dir', '{a_file}'],
        r'vis_segments\.py: error: --out-dir: .*a_file is a file'),
    in_process(
        'segments-square-does-not-divide',
        [SEGMENTS, '--img', 'sklearn:flower.jpg', '--square-size', '5',
         '--out-dir', '{missing_dir}'],
        r'vis_segments\.py: error: --square-size/--hierarchy: square_size '
        r'\(M\) must divide'),
    in_process(
        'segments-patch-does-not-divide',
        [SEGMENTS, '--img', 'sklearn:flower.jpg', '--input-size', '100'],
        r'vis_segments\.py: error: --input-size/--patch-size: input_size '
        r'100x100 must be divisible by patch_size 16'),
    in_process(
        'segments-gif-smaller-than-the-grid',
        [SEGMENTS, '--img', 'sklearn:flower.jpg', '--gif-side', '3'],
        r'vis_segments\.py: error: --gif-side: 3 px, less than the 12 '
        r'tokens of a side; give at least 12$'),
    in_process(
        'segments-unknown-sample-photo',
        [SEGMENTS, '--img', 'sklearn:nope.jpg'],
        r"vis_segments\.py: error: argument --img: scikit-learn has "
        r"china\.jpg, flower\.jpg, not 'nope\.jpg'$"),
    # The demo (2).
    in_process(
        'demo-too-many-pictures', [DEMO_TOOL, '--num-pictures', '100'],
        r'python -m experiments\.demo: error: argument --num-pictures: must '
        r'be in \[1, 16\]'),
    in_process(
        'demo-work-dir-is-a-file', [DEMO_TOOL, '--work-dir', '{a_file}'],
        r'python -m experiments\.demo: error: --work-dir: .*a_file is a '
        r'file; give a folder$'),
]


@pytest.mark.parametrize('argv, message, real', ROWS)
def test_a_mistake_is_one_line_naming_the_argument(files, argv, message,
                                                   real, monkeypatch,
                                                   capsys):
    argv = [a.format(**files) for a in argv]
    code, out, err = (run_process(argv) if real else
                      run_in_process(argv, monkeypatch, capsys))
    lines = err.strip().splitlines()
    assert code == 2, out[-3000:] + err[-3000:]
    assert 'Traceback' not in err
    assert re.search(TOOL + message, lines[-1]), lines[-1]
    # One line says what is wrong (argparse's usage lines come before it).
    assert sum(': error: ' in line for line in lines) == 1, err
    # Before any work: nothing written, no progress.
    assert not os.listdir(files['folder'])
    assert not osp.exists(files['missing_dir'])
    assert 'features of the' not in err and not PARAMETER_LINE.search(out)


def test_debug_shows_the_traceback(files, monkeypatch, capsys):
    argv = [EVAL, LINEAR, files['pre'], '--data', DIGITS, '--debug']
    monkeypatch.setattr(sys, 'argv', argv)
    namespace = runpy.run_path(osp.join(REPO_ROOT, EVAL), run_name='tool')
    from randsac_mm.cli.errors import UserError
    with pytest.raises(UserError, match='config: vit-mini-p4_linear'):
        namespace['run_tool'](namespace['main'])


@pytest.mark.heavy
def test_eval_frozen_shows_progress_and_no_line_per_parameter(files,
                                                              tmp_path):
    """The usual mmpretrain data config (no collate_fn, augmenting train
    pipeline, MNIST-like data sorted by class in MNIST5k): every step's
    progress on stderr, the results alone on stdout."""
    out = tmp_path / 'r.json'
    code, stdout, stderr = run_process([
        EVAL, PRETRAIN, files['pre'], '--data', DIGITS, '--train-images',
        '64', '--test-images', '64', '--probe-epochs', '1', '--probe',
        'linear', 'knn', 'attentive', 'layers', '--out', str(out)])
    assert code == 0, stderr[-3000:]
    # The encoder's precision in each pass's title: the suite's float32.
    # One pass over each loader gives what all four readouts read.
    for stage in ('features of the 64 training images (pooled, tokens and '
                  'layers; 1 batch, float32)',
                  'features of the 64 test images (pooled, tokens and '
                  'layers; 1 batch, float32)',
                  'linear probe: 1 epoch on 64 features',
                  'k-NN (k=20): 64 test images',
                  'attentive probe: 1 epoch on 64 x 64 tokens',
                  'linear probes of the 6 layers: 6 x 1 epoch'):
        assert stage + '\n' in stderr, stderr
    assert stderr.count('] 1/1,') == 5 and '] 6/6,' in stderr
    assert not PARAMETER_LINE.search(stdout + stderr)
    assert 'Loads checkpoint' not in stdout + stderr
    lines = stdout.splitlines()
    assert lines[0].startswith('linear probe ') and '(128-d features)' in \
        lines[0]
    assert lines[1].startswith('linear probe per layer: 1: ')
    assert lines[2] == f'wrote {out}' and len(lines) == 3


@pytest.mark.heavy
def test_vis_reconstruction_shows_progress_quietly(files, tmp_path):
    code, stdout, stderr = run_process([
        RECON, PRETRAIN, files['pre'], '--dataset', '--num', '2',
        '--out-dir', str(tmp_path)])
    assert code == 0, stderr[-3000:]
    assert f'2 images: predicting them, then writing reconstruction.png and ' \
        f'2 GIFs to {tmp_path} (4 steps)\n' in stderr
    assert '] 4/4,' in stderr
    assert not PARAMETER_LINE.search(stdout + stderr)
    assert stdout.startswith('wrote ') and len(os.listdir(tmp_path)) == 3


def test_the_demo_keeps_its_training_log_and_drops_parameter_lines(
        tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(REPO_ROOT)
    from experiments.demo import without_parameter_lines
    logger = logging.getLogger('demo_console_test')
    logger.setLevel(logging.INFO)
    console, log_file = io.StringIO(), tmp_path / 'run.log'
    logger.addHandler(logging.StreamHandler(console))
    logger.addHandler(logging.FileHandler(log_file))
    without_parameter_lines(logger)
    logger.info('paramwise_options -- backbone.ln1.bias:weight_decay=0.0')
    logger.info('\nbackbone.pos_embed - torch.Size([1, 64, 128]): \n'
                'Initialized by user-defined `init_weights` in RandSACViT \n ')
    logger.info('Epoch(train) [1][10/63]  loss: 0.5')
    for handler in logger.handlers:
        handler.close()
    assert console.getvalue() == 'Epoch(train) [1][10/63]  loss: 0.5\n'
    assert 'paramwise_options' in log_file.read_text()  # the file keeps all


def test_segments_of_a_config_are_its_own_layout(tmp_path, monkeypatch,
                                                 capsys):
    """--config with a pretraining config: 32 px, M=2, 16 -> 4 drawn and
    labelled, not the options' 192 px, M=3."""
    import numpy as np
    from PIL import Image

    from randsac_mm.datasets import RandSACSegmentGenerator
    from randsac_mm.visualization.layout_figures import (
        LayoutDraws,
        hierarchy_figure,
        schemes_figure,
    )
    argv = [SEGMENTS, '--config', PRETRAIN, '--out-dir', str(tmp_path)]
    monkeypatch.setattr(sys, 'argv', argv)
    namespace = runpy.run_path(osp.join(REPO_ROOT, SEGMENTS), run_name='t')
    namespace['run_tool'](namespace['main'])
    out = capsys.readouterr().out
    assert out.startswith(
        'layout: 32 px input, 4 px patches (8x8 tokens); randsac_vit-mini-'
        'p4_square-16to4_digits.py: random square M=2, 16 -> 4\n')
    stem = tmp_path / 'randsac_vit-mini-p4_square-16to4_digits_0'
    # 16 squares of the config: 17 frames (none .. all).
    assert Image.open(f'{stem}_reveal.gif').n_frames == 17
    spec = RandSACSegmentGenerator.from_config(Config.fromfile(PRETRAIN)).spec
    image = np.zeros((192, 192, 3), np.uint8)
    draws = LayoutDraws(np.random.default_rng(0))
    titles = schemes_figure(image, (8, 8), draws, str(tmp_path / 's.png'),
                            input_size=32, layout=spec)
    assert titles == ['(a) original 32px', '(b) raster pixel',
                      '(c) raster patch', '(d) random patch',
                      '(e) random square M=2, 16 -> 4 (config)',
                      '(f) random blob K=11']
    titles = hierarchy_figure(image, (8, 8), draws, str(tmp_path / 'h.png'),
                              layout=spec)
    assert titles[1].startswith('random square M=2, 16 -> 4 (config)\n')


def test_help_is_whole_and_shows_defaults(capsys, monkeypatch):
    for tool in (EVAL, RECON, SEGMENTS, DEMO_TOOL):
        monkeypatch.setattr(sys, 'argv', [tool, '--help'])
        namespace = tool_globals(tool, 't')
        with pytest.raises(SystemExit) as exit_:
            namespace['main']()
        assert exit_.value.code == 0
        text = capsys.readouterr().out
        doc = namespace['__doc__']
        # The whole description, as written (its last paragraph too).
        last = doc.strip().split('\n\n')[-1].splitlines()[0]
        assert last in text, tool
        assert '--debug' in text and '(default: ' in text
        entries = re.split(r'\n  (?=-)', text.split('\noptions:\n', 1)[1])
        assert len(entries) > 5
        for entry in entries:  # every option has its help
            words = [w for w in entry.split() if not (
                w.startswith(('-', '[', '{')) or w.rstrip(',').isupper())]
            assert len(words) >= 2, (tool, entry)


def test_eval_frozen_writes_its_json_where_its_help_says(tmp_path,
                                                         monkeypatch):
    """Next to the checkpoint; a random-init model's in its config's
    work_dirs folder (not the current folder), which parsing does not
    make: the JSON's write does."""
    monkeypatch.chdir(tmp_path)
    tool = tool_globals(EVAL, 't')
    (tmp_path / 'x.pth').write_bytes(b'checkpoint')
    checkpoint = tool['parse_args']([PRETRAIN, 'x.pth', '--data', DIGITS])
    assert checkpoint.out == 'x.pth.frozen_eval.json'
    random = tool['parse_args']([PRETRAIN, '--random-init', '--data',
                                 DIGITS])
    expected = osp.join('work_dirs', 'randsac_vit-mini-p4_square-16to4_'
                        'digits', 'random_init.frozen_eval.json')
    assert random.out == expected
    assert not (tmp_path / 'work_dirs').exists()
    assert tool['parse_args']([PRETRAIN, '--random-init', '--data', DIGITS,
                               '--out', 'y.json']).out == 'y.json'


def test_reconstructions_of_same_named_images_get_distinct_names():
    names = tool_globals(RECON, 't')['output_names']
    assert names(['a/x.png', 'b/y.png']) == ['x', 'y']
    assert names(['a/x.png', 'b/x.png', 'c/y.jpg']) == ['x_1', 'x_2', 'y']
    assert names(['a/x.png', 'b/x.png', 'x_1.png']) == ['x_1', 'x_2', 'x_1_3']
