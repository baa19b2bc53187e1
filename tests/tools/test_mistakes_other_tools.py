"""A new user's mistakes with the export, analysis and benchmark tools:
each is refused before any work, exit code 2, on one line that names the
argument and what it takes, no traceback; and every tool's ``--help`` has
its whole description and every option's help and default.

The silent wrong results of before have their own checks: an export that
left out ``ln2`` (tests/checkpoint/test_export.py compares the features), and
the throughput benchmark's 0.00 for unmeasured columns
(tests/experiments/benchmarks/test_throughput.py).

Most rows run the tool's ``main`` in this process (``tool_runs``), the
``AS_A_USER`` rows in a process of their own, as a user runs them."""
import os
import re
import subprocess
import sys

import pytest
import torch
from mmengine.config import Config

from randsac_mm.cli.args import HelpFormatter

from ..conftest import REPO_ROOT
from ..tool_runs import (
    as_a_user,
    in_process,
    parser_of,
    run_in_process,
    run_process,
)

DEMO = 'configs/demo/'
PRETRAIN = DEMO + 'randsac_vit-mini-p4_square-16to4_digits.py'
FINETUNE = DEMO + 'vit-mini-p4_finetune_digits.py'
LINEAR = DEMO + 'vit-mini-p4_linear_digits.py'
SUPERVISED = DEMO + 'vit-mini-p4_1xb64-10e_digits.py'
CIFAR = ('configs/pretrain/'
         'randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py')
MAE_CIFAR = 'configs/pretrain/mae_vit-small-p4_8xb64-amp-1600e_cifar10.py'

EXPORT = 'tools/model_converters/export.py'
DOWNSTREAM = 'tools/model_converters/randsac2downstream.py'
MEMORY = 'tools/analysis/pretrain_memory.py'
FLOPS = 'tools/analysis/get_flops.py'
# Experiment commands: modules run with python -m (tool_command).
BLOBS = 'experiments.benchmarks.blob_counts'
GEOMETRY = 'experiments.benchmarks.layout_geometry'
THROUGHPUT = 'experiments.benchmarks.throughput'
PIPELINE = 'experiments.benchmarks.data_pipeline'
LAYOUT = 'experiments.benchmarks.layout_speed'
STUDY = 'experiments.small_scale'
ACCEPTANCE = 'experiments.benchmarks.gpu_acceptance'
SCENES = 'experiments.digit_scenes'
PAPER_SCALE = 'experiments.paper_scale'
PAPER_SCALE_SPEED = 'experiments.benchmarks.paper_scale_speed'
TOOLS = [EXPORT, DOWNSTREAM, MEMORY, FLOPS, BLOBS, GEOMETRY, THROUGHPUT,
         PIPELINE, LAYOUT, STUDY, ACCEPTANCE, SCENES, PAPER_SCALE,
         PAPER_SCALE_SPEED]


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    """Inputs a user might hand the export by mistake."""
    from randsac_mm.apis import build_model
    folder = tmp_path_factory.mktemp('mistakes')
    (folder / 'notes.txt').write_text('export this\n')
    (folder / 'broken.py').write_text('model = dict(\n')  # not Python
    torch.save([1, 2, 3], folder / 'list.pth')
    torch.save(dict(state_dict={'backbone.w': torch.zeros(1)}),
               folder / 'bare.pth')
    # The demo's supervised ViT: ln1 on every token, ln2 on their average
    # (out_type='avg_featmap', final_norm=True).
    cfg = Config.fromfile(os.path.join(REPO_ROOT, SUPERVISED))
    model = build_model(cfg, seed=0, init=False)
    torch.save(dict(state_dict=model.state_dict(),
                    meta=dict(cfg=cfg.pretty_text)), folder / 'ln1_ln2.pth')
    return folder


# A config file with a syntax error, as the project's config reader says.
NOT_PYTHON = r'is not valid Python: .* \(line 1\)$'

# (id, command line: '{tmp}' is the fixture's folder, the message's regex)
MISTAKES = [
    # 1. An export timm and transformers cannot compute: refused, why named.
    ('export-ln1-ln2', [EXPORT, '{tmp}/ln1_ln2.pth', '--out-dir',
                        '{tmp}/out'],
     r"checkpoint ln1_ln2\.pth: export to timm: this encoder norms every "
     r"token \(final_norm=True, ln1\) and their average \(out_type="
     r"'avg_featmap', ln2\); timm's ViT has one of the two norms, never "
     r'both.*Exportable: '),
    ('export-ln2-to-hf', [EXPORT, '{tmp}/ln1_ln2.pth', '--to', 'hf',
                          '--out-dir', '{tmp}/out'],
     r"checkpoint ln1_ln2\.pth: export to transformers: this encoder norms "
     r"the averaged tokens \(out_type='avg_featmap', ln2\)"),
    # 2. Not a checkpoint.
    ('export-text-file', [EXPORT, '{tmp}/notes.txt'],
     r'checkpoint: notes\.txt is not a checkpoint torch\.load can read '
     r'\(.*\); give a \.pth that training wrote'),
    ('export-not-a-dict', [EXPORT, '{tmp}/list.pth'],
     r'checkpoint: list\.pth holds no state_dict .*; give a \.pth that '
     r'training wrote'),
    ('export-no-config', [EXPORT, '{tmp}/bare.pth'],
     r"checkpoint: bare\.pth stores no config .*; give its config with "
     r'--config'),
    ('export-config-not-python', [EXPORT, '{tmp}/bare.pth', '--config',
                                  '{tmp}/broken.py'],
     r'--config: \S*broken\.py ' + NOT_PYTHON),
    ('export-wrong-config', [EXPORT, '{tmp}/bare.pth', '--config',
                             PRETRAIN],
     r"checkpoint: \S*bare\.pth does not fit randsac_vit-mini-p4_square-"
     r"16to4_digits\.py's model \(RandSAC\): \d+ of its \d+ weights are "
     r'not in it .*: give a checkpoint of that config, or the config it was '
     r'trained with$'),
    ('export-data-config', [EXPORT, '{tmp}/bare.pth', '--config',
                            'configs/_base_/datasets/digits.py'],
     r'--config: digits\.py is a data config .*; this tool takes a '
     r'self-supervised pretraining config'),
    ('downstream-text-file', [DOWNSTREAM, '{tmp}/notes.txt', '{tmp}/o.pth',
                              '--to', 'mmseg'],
     r'src: notes\.txt is not a checkpoint torch\.load can read \(.*\); '
     r'give a \.pth that training wrote'),
    ('downstream-img-size', [DOWNSTREAM, '{tmp}/bare.pth', '{tmp}/o.pth',
                             '--to', 'mmseg', '--img-size', '0'],
     r'argument --img-size: must be >= 1, got 0'),
    # 3. The memory of a pretraining step, asked of a classifier.
    ('memory-finetune', [MEMORY, FINETUNE],
     r'configs: vit-mini-p4_finetune_digits\.py is a classifier config '
     r'.*; this tool takes a self-supervised pretraining config'),
    ('memory-linear', [MEMORY, LINEAR],
     r'configs: vit-mini-p4_linear_digits\.py is a classifier config'),
    ('memory-gpus', [MEMORY, PRETRAIN, '--gpus', '0'],
     r'argument --gpus: must be >= 1, got 0'),
    ('memory-gpu-mem', [MEMORY, PRETRAIN, '--gpu-mem', '-8'],
     r'argument --gpu-mem: must be > 0, got -8'),
    # 4. Every count and rate of the throughput benchmark.
    ('throughput-batch', [THROUGHPUT, '--batch-size', '0'],
     r'argument --batch-size: must be >= 1, got 0'),
    ('throughput-iters', [THROUGHPUT, '--iters', '0'],
     r'argument --iters: must be >= 1, got 0'),
    ('throughput-repeats', [THROUGHPUT, '--repeats', '-1'],
     r'argument --repeats: must be >= 1, got -1'),
    ('throughput-warmup', [THROUGHPUT, '--warmup', '-1'],
     r'argument --warmup: must be >= 0, got -1'),
    ('throughput-passes', [THROUGHPUT, '--passes', '0'],
     r'argument --passes: must be >= 1, got 0'),
    ('throughput-peak', [THROUGHPUT, '--peak-tflops', '0'],
     r'argument --peak-tflops: must be > 0, got 0'),
    # 5. The data pipeline of a dataset that hands over decoded arrays.
    ('pipeline-cifar', [PIPELINE, CIFAR],
     r'config: randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10\.py: '
     r'its training pipeline \(PerSampleSeed -> RandomResizedCrop .*\) does'
     r' not load image files.*Allowed: a config whose pipeline starts with '
     r'LoadImageFromFile'),
    ('pipeline-demo', [PIPELINE, PRETRAIN],
     r'config: randsac_vit-mini-p4_square-16to4_digits\.py: its training '
     r'pipeline .* does not load image files'),
    ('pipeline-classifier', [PIPELINE, FINETUNE],
     r'config: vit-mini-p4_finetune_digits\.py is a classifier config'),
    ('pipeline-mae', [PIPELINE, MAE_CIFAR],
     r'config: mae_vit-small-p4_8xb64-amp-1600e_cifar10\.py: the config has'
     r' no RandSACSegmentGenerator'),
    ('pipeline-mfu', [PIPELINE, PRETRAIN, '--mfu', '1.5'],
     r'argument --mfu: must be in \(0, 1\], got 1\.5'),
    ('pipeline-images', [PIPELINE, PRETRAIN, '--images', '0'],
     r'argument --images: must be >= 1, got 0'),
    # 8. The other tools.
    ('flops-classifier', [FLOPS, FINETUNE],
     r'config: vit-mini-p4_finetune_digits\.py is a classifier config .*; '
     r'this tool takes a self-supervised pretraining config'),
    ('flops-mae', [FLOPS, MAE_CIFAR],
     r'config: mae_vit-small-p4_8xb64-amp-1600e_cifar10\.py: the config has'
     r' no RandSACSegmentGenerator'),
    ('flops-no-file', [FLOPS, 'configs/nope.py'],
     r"config: no such file 'configs/nope\.py'; give a config file$"),
    ('blobs-no-blob', [BLOBS, CIFAR, '--samples', '10', '--out',
                       '{tmp}/b.json'],
     r"configs: none of the given configs is a RandSAC pretraining config "
     r"with blob segments \(segment='blob'\)"),
    ('blobs-samples', [BLOBS, '--samples', '0'],
     r'argument --samples: must be >= 1, got 0'),
    ('geometry-mae', [GEOMETRY, MAE_CIFAR, '--out', '{tmp}/g.json'],
     r'configs: mae_vit-small-p4_8xb64-amp-1600e_cifar10\.py: the config '
     r'has no RandSACSegmentGenerator'),
    ('geometry-classifier', [GEOMETRY, FINETUNE],
     r'configs: vit-mini-p4_finetune_digits\.py is a classifier config .*; '
     r'this tool takes a self-supervised pretraining config'),
    ('geometry-samples', [GEOMETRY, PRETRAIN, '--samples', '0'],
     r'argument --samples: must be >= 1, got 0'),
    # A file that is no config: refused by name, not a traceback.
    ('geometry-text-file', [GEOMETRY, '{tmp}/notes.txt'],
     r"configs: '\S*notes\.txt' is not a config file \(\.py, "),
    ('blobs-text-file', [BLOBS, '{tmp}/notes.txt'],
     r"configs: '\S*notes\.txt' is not a config file \(\.py, "),
    ('pipeline-text-file', [PIPELINE, '{tmp}/notes.txt'],
     r"config: '\S*notes\.txt' is not a config file \(\.py, "),
    ('layout-repeats', [LAYOUT, '--repeats', '0'],
     r'argument --repeats: must be >= 1, got 0'),
    ('study-eval-epochs', [STUDY, '--eval-epochs', '0'],
     r'argument --eval-epochs: must be >= 1, got 0'),
    ('acceptance-iters', [ACCEPTANCE, '--out', '{tmp}/acc', '--iters', '0'],
     r'argument --iters: must be >= 1, got 0'),
    ('paper-scale-budget', [PAPER_SCALE, '--budget-minutes', '0'],
     r'argument --budget-minutes: must be > 0, got 0'),
    ('paper-scale-variant', [PAPER_SCALE, '--variants', 'square-m4'],
     r"argument --variants: invalid choice: 'square-m4'"),
    ('speed-off-the-batch-path', [PAPER_SCALE_SPEED, '--config', CIFAR],
     r'--config: configs/pretrain/randsac_vit-tiny-p4_square-m2_8xb64-amp-'
     r'800e_cifar10\.py is not on the batch data path'),
    ('speed-steps', [PAPER_SCALE_SPEED, '--steps', '0'],
     r'argument --steps: must be >= 1, got 0'),
]


# Rows run as a user, in a process of their own: one tool and one
# experiment command (the exit code and the one line on stderr, which the
# shared error path gives every tool); the rest in this process.
AS_A_USER = {'flops-classifier', 'study-eval-epochs'}


@pytest.mark.parametrize('argv, message, real', [
    (as_a_user if m[0] in AS_A_USER else in_process)(*m) for m in MISTAKES])
def test_a_mistake_is_one_line_exit_2_no_traceback(files, argv, message,
                                                   real, monkeypatch,
                                                   capsys):
    args = [a.format(tmp=files) for a in argv]
    code, out, err = (run_process(args) if real else
                      run_in_process(args, monkeypatch, capsys))
    assert code == 2, out[-2000:] + err[-3000:]
    assert 'Traceback' not in err, err[-3000:]
    # argparse's own errors come after the usage; ours are the only line.
    last = err.strip().splitlines()[-1]
    tool = os.path.basename(args[0])
    assert re.match(rf'(python -m )?\S*{re.escape(tool)}: error: ', last), \
        last
    assert re.search(message, last), last
    if not last.startswith('usage') and 'argument ' not in last:
        assert err.strip() == last  # one line, no usage
    assert not (files / 'out').exists()  # refused before writing


@pytest.mark.heavy
def test_debug_shows_the_traceback(files):
    proc = subprocess.run(
        [sys.executable, EXPORT, str(files / 'list.pth'), '--debug'],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and 'Traceback' in proc.stderr
    assert 'Error: checkpoint: list.pth holds no state_dict' \
        in proc.stderr


@pytest.mark.parametrize('path', TOOLS)
def test_help_is_whole_and_every_option_explained(path, monkeypatch):
    module, parser = parser_of(path, monkeypatch)
    assert parser.description == module.__doc__  # the whole docstring
    assert parser.formatter_class is HelpFormatter
    options = {s for a in parser._actions for s in a.option_strings}
    assert '--debug' in options
    for action in parser._actions:
        assert action.help, f'{path}: {action.dest} has no help'
        if action.default is None and action.option_strings and \
                action.nargs != 0 and not action.required:
            # HelpFormatter prints '(default: None)': say what None means.
            assert 'None' in action.help, f'{path}: {action.dest}'
    if module.__file__.endswith('__init__.py'):  # a package: __main__.py
        main_file = module.__file__.replace('__init__.py', '__main__.py')
        assert 'run_tool(main, prog=PROG)' in open(main_file).read()
    else:
        source = open(module.__file__).read()
        assert "if __name__ == '__main__':\n    run_tool(main" in source
    # No line continuation collapsed in the printed usage examples.
    assert not re.search(r'(\.py|-m \S+) {3,}[^#\s]', parser.format_help())
