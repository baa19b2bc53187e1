"""The small-scale study (experiments.small_scale): its quick run and a tiny
learning curve end to end (``python -m experiments.small_scale``), and its
bookkeeping."""
import glob
import json
import os
import os.path as osp
import shutil
import subprocess
import sys

import pytest
import torch
from mmengine.config import Config
from PIL import Image

from experiments import small_scale as study
from experiments.small_scale import cli as study_cli
from experiments.small_scale import runs as study_runs
from randsac_mm.analysis.paper import find_model, paper_figure
from randsac_mm.cli.errors import UserError

from ..conftest import REPO_ROOT, run_tool
from ..data_factory import write_mnist

STUDY = ['-m', 'experiments.small_scale']
CONFIGS = osp.join(REPO_ROOT, 'configs', 'small_scale')
EVAL_DATA = osp.join(REPO_ROOT, 'configs', '_base_', 'datasets',
                     'fashion-mnist.py')
COMMITTED = osp.join(REPO_ROOT, 'docs', 'benchmarks', 'small_scale_curve')


def tool_args(*argv):
    """The command's arguments as its parse_args resolves them (presets
    applied), without running it."""
    return study.parse_args([str(a) for a in argv])[0]


@pytest.mark.heavy
def test_quick_study_writes_table_json_and_chart(tmp_path):
    root = write_mnist(str(tmp_path / 'fmnist'), train=300, test=100)
    work = tmp_path / 'study'
    args = [*STUDY, '--quick', '--data-root', root, '--work-dir', work]
    out = run_tool(args, timeout=600)
    result = json.loads((work / 'study.json').read_text())
    assert [r['variant'] for r in result['records']] == \
        study.QUICK['variants']
    # Paths inside the directory it ran from are recorded relative to it.
    assert result['settings']['configs'] == 'configs/small_scale'
    assert result['settings']['data_root'] == root
    assert result['settings']['device'] == 'cpu'  # unless asked
    summary = result['summary']['1']
    assert list(summary) == study.QUICK['variants']
    for record in result['records']:
        assert 0 <= record['linear'] <= 100 and 0 <= record['knn'] <= 100
    trained = json.loads(
        (work / 'runs' / 'square-m2_seed0' / 'pretrain.json').read_text())
    assert trained['final_loss'] < trained['first_loss']
    assert trained['settings']['epochs'] == 1
    assert 'device' not in trained['settings']  # as the committed records
    # The one paper ordering both of whose variants ran; one seed: no
    # standard error, and the table says so.
    [ordering] = result['orderings']
    assert (ordering['worse'], ordering['better']) == ('random', 'square-m2')
    [point] = ordering['readouts']['linear']['by_epoch']
    assert point['gap'] == pytest.approx(
        summary['square-m2']['linear']['mean'] -
        summary['random']['linear']['mean'])
    assert ordering['readouts']['linear']['verdict'] == \
        '1 seed: no verdict below 3'
    table = (work / 'study.md').read_text()
    assert '| patch-raster | Serialization, patch-raster (ViT-T) | 55.53 |' \
        in table
    assert table in out.stdout
    assert Image.open(work / 'study.png').size[0] > 500
    # A second run reuses every run and evaluation: nothing trains.
    again = run_tool(args, timeout=120)
    assert 'Epoch(train)' not in again.stdout + again.stderr
    assert json.loads((work / 'study.json').read_text())['records'] == \
        result['records']


@pytest.mark.heavy
def test_a_learning_curve_from_one_run_per_seed(tmp_path):
    """Two seeds, two epochs read out at 1 and 2, with the attentive
    probe; an interrupted run resumes from its last checkpoint."""
    root = write_mnist(str(tmp_path / 'fmnist'), train=200, test=100)
    work = tmp_path / 'curve'
    args = [*STUDY, '--variants', 'random', 'square-m2', '--seeds', '0', '1',
            '--epochs', '2', '--eval-epochs', '1', '2', '--probe', 'linear',
            'attentive', '--train-images', '128', '--test-images', '64',
            '--probe-epochs', '5', '--data-root', root, '--work-dir', work]
    run_tool(args, timeout=900)
    result = json.loads((work / 'study.json').read_text())
    assert list(result['summary']) == ['1', '2']
    for epoch in ('1', '2'):
        entry = result['summary'][epoch]['square-m2']
        assert entry['seeds'] == [0, 1] and len(entry['attentive']['values'])
        # The untrained encoder is the baseline at every epoch.
        assert result['summary'][epoch]['random'] == \
            result['summary']['1']['random']
    run = work / 'runs' / 'square-m2_seed1'
    assert {p.name for p in run.glob('epoch_*.pth')} == {'epoch_1.pth',
                                                          'epoch_2.pth'}
    [ordering] = result['orderings']
    points = ordering['readouts']['attentive']['by_epoch']
    assert [p['epoch'] for p in points] == [1, 2]
    assert all(p['se'] is not None for p in points)
    assert Image.open(work / 'curve.png').size[0] > 500
    # Records outlive checkpoints: a recorded run is not trained again.
    done = work / 'runs' / 'square-m2_seed0'
    before = (done / 'pretrain.json').read_text()
    for checkpoint in done.glob('epoch_*.pth'):
        checkpoint.unlink()
    # --report-only reports what is recorded and runs nothing else.
    out = run_tool(args[:5] + ['--seeds', '0', '5'] + args[8:] +
                   ['--report-only'], timeout=900)
    assert 'square-m2 seed 5: not recorded yet' in out.stdout
    partial = json.loads((work / 'study.json').read_text())
    assert partial['summary']['2']['square-m2']['seeds'] == [0]
    assert not (work / 'runs' / 'square-m2_seed5').exists()
    again = run_tool(args, timeout=900)
    assert (done / 'pretrain.json').read_text() == before
    assert not list(done.glob('epoch_*.pth'))
    # ... and says so.
    assert 'square-m2 seed 0 epoch 2: ' in again.stdout
    assert again.stdout.count('(recorded in --work-dir: reused)') == 2 * 3
    first = json.loads((run / 'eval_epoch2.json').read_text())
    # Interrupted after epoch 1: the run resumes and ends where it did.
    (run / 'pretrain.json').unlink()
    (run / 'epoch_2.pth').unlink()
    run_tool(args, timeout=900)
    resumed = json.loads((run / 'pretrain.json').read_text())
    assert resumed['resumed_from'] == 'epoch_1.pth'
    # Its training time counts epoch 1's, which the checkpoint carries.
    epoch_1 = torch.load(run / 'epoch_1.pth', map_location='cpu',
                         weights_only=False)
    before = epoch_1['message_hub']['runtime_info']['train_seconds']
    assert 0 < before < resumed['train_minutes'] * 60
    assert json.loads((run / 'eval_epoch2.json').read_text())['linear'] == \
        first['linear']


@pytest.mark.heavy
@pytest.mark.parametrize('committed, preset', [
    (COMMITTED, '--curve'),
    (osp.join(REPO_ROOT, 'docs', 'benchmarks', 'small_scale_curve150'),
     '--long-curve'),
])
def test_the_committed_training_length_report_is_what_its_records_give(
        tmp_path, committed, preset):
    """docs/benchmarks/small_scale_curve and _curve150: their records alone
    (no checkpoints and no Fashion-MNIST, as in a fresh clone) give the
    committed summary and gaps."""
    records = glob.glob(osp.join(committed, 'runs', '*', '*.json'))
    assert records
    for record in records:
        run = tmp_path / 'runs' / osp.basename(osp.dirname(record))
        run.mkdir(parents=True, exist_ok=True)
        shutil.copy(record, run)
    with open(osp.join(committed, 'study.json')) as f:
        theirs = json.load(f)
    # The seeds it was made over (the 30-epoch curve: 0 to 2 of every
    # variant, 3 and 4 of two; docs/small_scale_study.md, "Seeds 3 and 4").
    seeds = [str(seed) for seed in theirs['settings']['seeds']]
    out = run_tool([*STUDY, preset, '--report-only', '--seeds', *seeds,
                    '--work-dir', tmp_path], timeout=300)
    assert 'Epoch(train)' not in out.stdout + out.stderr
    ours = json.loads((tmp_path / 'study.json').read_text())
    for key in ('records', 'summary', 'orderings'):
        assert ours[key] == theirs[key], key


def test_a_report_of_recorded_runs_reads_no_data(tmp_path, monkeypatch):
    """report_only builds no data loader, whether or not Fashion-MNIST is
    installed: the readouts all come from the records."""
    for run in ('random_seed0', 'square-m2_seed0'):
        shutil.copytree(osp.join(COMMITTED, 'runs', run),
                        tmp_path / 'runs' / run)

    def no_data(*args, **kwargs):
        raise AssertionError('report_only built the labelled loaders')
    monkeypatch.setattr(study_cli, 'labelled_loaders', no_data)
    settings = study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA,
        variants=['random', 'patch-random', 'square-m2'], seeds=[0],
        epochs=30, eval_epochs=[5, 10, 20, 30],
        readouts=['linear', 'knn', 'attentive'], work_dir=str(tmp_path),
        report_only=True)
    lines = []
    result = study.run_study(settings, log=lines.append)
    assert 'patch-random seed 0: not recorded yet (report only)' in \
        ' '.join(lines)
    square = [r for r in result['records'] if r['variant'] == 'square-m2']
    assert [r['epoch'] for r in square] == [5, 10, 20, 30]
    with open(osp.join(COMMITTED, 'runs', 'square-m2_seed0',
                       'eval_epoch30.json')) as f:
        recorded = json.load(f)
    assert square[-1]['linear'] == recorded['linear'] == \
        pytest.approx(80.49, abs=0.01)


def test_a_runs_report_covers_the_runs_recorded_before_it(
        tmp_path, monkeypatch):
    """A study made one job at a time into one work dir: the last job's
    report is the whole study's, as --report-only over every variant and
    seed recorded gives it, not its own run's alone."""
    for run in ('random_seed0', 'mae_seed1', 'square-m2_seed0',
                'square-m2_seed1'):
        shutil.copytree(osp.join(COMMITTED, 'runs', run),
                        tmp_path / 'runs' / run)
    # Another preset's run in the folder is not this study's.
    (tmp_path / 'runs' / 'patch-raster_seed0').mkdir()

    def no_data(*args, **kwargs):
        raise AssertionError('a recorded run built the labelled loaders')
    monkeypatch.setattr(study_cli, 'labelled_loaders', no_data)
    curve = dict(study_cli.CURVE, configs=CONFIGS, eval_data=EVAL_DATA,
                 work_dir=str(tmp_path))
    lines = []
    ran = study.run_study(study.StudySettings(
        **dict(curve, variants=['square-m2'], seeds=[0])), log=lines.append)
    assert '[report] with the 3 runs recorded in --work-dir before: ' \
        'mae seed 1, random seed 0, square-m2 seed 1' in lines
    assert {(r['variant'], r['seed']) for r in ran['records']} == {
        ('random', 0), ('square-m2', 0), ('square-m2', 1), ('mae', 1)}
    assert ran['settings']['seeds'] == [0, 1]
    assert ran['settings']['variants'] == ['random', 'square-m2', 'mae']
    reported = study.run_study(study.StudySettings(
        **dict(curve, seeds=[0, 1], report_only=True)), log=lines.append)
    for key in ('records', 'summary', 'orderings'):
        assert ran[key] == reported[key], key
    # --report-only reports what it is asked.
    asked = study.run_study(study.StudySettings(**dict(
        curve, variants=['square-m2'], seeds=[0], report_only=True)),
        log=lines.append)
    assert {(r['variant'], r['seed']) for r in asked['records']} == {
        ('square-m2', 0)}


def test_a_gpu_study_does_not_take_cpu_records_for_its_own(tmp_path):
    """The device is part of a record's settings when it is not the CPU
    (bf16 on a GPU is another run); the CPU's records keep their form, so
    those committed before --device existed still match."""
    cpu, cuda = (study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, variants=['random'],
        seeds=[0], readouts=['linear'], work_dir=str(tmp_path),
        device=device) for device in ('cpu', 'cuda'))
    folder = tmp_path / 'runs' / 'random_seed0'
    folder.mkdir(parents=True)
    wanted, path = study.recorded_readouts('random', 0, 0, cpu)
    assert wanted == dict(settings=dict(
        checkpoint=None, train_images=None, test_images=None,
        probe_epochs=90, data_root=None))
    with open(path, 'w') as f:
        json.dump(dict(wanted, linear=75.0), f)
    assert study.is_recorded('random', 0, 0, cpu)
    assert not study.is_recorded('random', 0, 0, cuda)
    assert study.recorded_readouts('random', 0, 0, cuda)[0]['settings'][
        'device'] == 'cuda'
    with_probe_images = study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, variants=['random'],
        seeds=[0], readouts=['linear'], work_dir=str(tmp_path),
        probe_images=6000)
    assert not study.is_recorded('random', 0, 0, with_probe_images)


def test_a_cuda_study_loads_with_workers_and_a_cpu_study_as_configured(
        tmp_path):
    def loader(device):
        return study.variant_config('square-m2', study.StudySettings(
            configs=CONFIGS, eval_data=EVAL_DATA, variants=['square-m2'],
            work_dir=str(tmp_path), device=device)).train_dataloader
    cuda, cpu = loader('cuda'), loader('cpu')
    assert (cuda.num_workers, cuda.persistent_workers, cuda.pin_memory) == \
        (study.CUDA_WORKERS, True, True)
    assert (cpu.num_workers, cpu.persistent_workers, cpu.pin_memory) == \
        (0, False, False)


def test_cuda_readouts_extract_features_in_full_float32():
    """A pretraining turns TF32 on for the process; the readouts turn it off
    while they run (a checkpoint reads out the same after a pretraining in
    the process as when its run is reused), then restore it."""
    matmul, conv = torch.backends.cuda.matmul, torch.backends.cudnn.conv
    before = matmul.fp32_precision, conv.fp32_precision
    try:
        matmul.fp32_precision = conv.fp32_precision = 'tf32'
        with study_runs._float32_matmuls('cuda'):
            assert (matmul.fp32_precision, conv.fp32_precision) == \
                ('ieee', 'ieee')
        assert (matmul.fp32_precision, conv.fp32_precision) == \
            ('tf32', 'tf32')
        with study_runs._float32_matmuls('cpu'):
            assert matmul.fp32_precision == 'tf32'
    finally:
        matmul.fp32_precision, conv.fp32_precision = before


def test_variant_configs_pretrain_at_the_devices_precision():
    """What a study relies on: the configs' optimizer wrapper autocasts to
    bf16 on CUDA and on a CPU with bf16 instructions, float32 elsewhere
    (precision='auto'; its rules: tests/test_precision.py)."""
    for name, (config, _) in study.VARIANTS.items():
        if config is None:
            continue
        wrapper = Config.fromfile(osp.join(CONFIGS, config)).optim_wrapper
        assert (wrapper.type, wrapper.dtype, wrapper.precision) \
            == ('AutocastOptimWrapper', 'bfloat16', 'auto'), name


def test_the_gpu_preset_resolves_to_all_images_on_cuda_without_running():
    args = tool_args('--gpu-study')
    assert (args.device, args.train_images, args.probe_images, args.epochs,
            args.seeds, args.work_dir) == (
                'cuda', 60000, 6000, 5, [0], 'work_dirs/small_scale_gpu')
    assert args.variants == ['random', 'patch-random', 'square-m2',
                             'blob-k7', 'blob-k7-shuffle',
                             'transformer-skip', 'mae']
    assert args.readouts == ['linear', 'knn', 'attentive']
    # Values given win over the preset's, even those equal to a default.
    args = tool_args('--gpu-study', '--seeds', '0', '1', '2', '--epochs',
                     '8', '--probe-images', '60000')
    assert (args.seeds, args.epochs, args.probe_images, args.device) == \
        ([0, 1, 2], 8, 60000, 'cuda')
    assert tool_args('--gpu-study', '--device', 'cpu').device == 'cpu'


def test_the_long_curve_preset_reads_150_epoch_runs_out_over_probe_seeds():
    args = tool_args('--long-curve')
    assert (args.epochs, args.eval_epochs, args.probe_seeds, args.device) \
        == (150, [30, 60, 100, 150], [0, 1, 2, 3, 4], 'cpu')
    assert args.readouts == ['linear', 'knn', 'attentive']
    # The segment orderings, the hierarchy and MAE (the skip layer's plain
    # transformer was cut before its runs).
    assert args.variants == ['random', 'patch-random', 'square-m2',
                             'square-16to4', 'blob-k7', 'blob-k7-shuffle',
                             'transformer-skip', 'mae']
    assert tool_args('--long-curve', '--probe-seeds', '7').probe_seeds == [7]
    # Its design: seeds 0-2, none added; each of the six paper orderings in
    # each readout (18 gaps), and pretraining helps apart (3).
    design = args.design
    assert (design.seeds, design.looks) == ((0, 1, 2), ())
    assert {k: len(v) for k, v in design.families.items()} == {
        'paper orderings': 18, 'pretraining helps': 3}
    assert ('random', 'square-m2', 'knn') in \
        design.families['pretraining helps']


def test_the_largest_orderings_preset_declares_two_linear_gaps_at_150():
    """The confirmatory study of the paper's two largest orderings: the
    150-epoch study's settings, one family of two linear-probe gaps over
    seeds 0-2, the partners' runs read from the 150-epoch study."""
    args = tool_args('--largest-orderings')
    long = tool_args('--long-curve')
    for key in ('epochs', 'eval_epochs', 'readouts', 'probe_seeds',
                'cpu_precision', 'device'):
        assert getattr(args, key) == getattr(long, key), key
    assert args.seeds == [0, 1, 2]
    assert args.variants == ['random', 'patch-raster', 'patch-random',
                             'two-stream', 'transformer-skip']
    design = args.design
    assert (design.seeds, design.looks) == ((0, 1, 2), ())
    assert design.families == {'largest orderings': (
        ('patch-raster', 'patch-random', 'linear'),
        ('two-stream', 'transformer-skip', 'linear'))}
    assert 'commit 20dc78d, before the first run' in design.declared
    assert [(w, b) for w, b, _ in args.plan.orderings] == [
        ('patch-raster', 'patch-random'), ('two-stream', 'transformer-skip')]
    assert {name: osp.relpath(path, REPO_ROOT) for name, path in
            args.reused_runs.items()} == {
        name: osp.join('docs', 'benchmarks', 'small_scale_curve150')
        for name in ('random', 'patch-random', 'transformer-skip')}


def _config_leaves(node, prefix=''):
    """{dotted key: value} of every leaf of a config's dict."""
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, (list, tuple)):
        items = enumerate(node)
    else:
        return {prefix: node}
    leaves = {}
    for key, value in items:
        leaves.update(_config_leaves(value, f'{prefix}.{key}'.lstrip('.')))
    return leaves


def test_the_largest_orderings_pairs_differ_only_in_what_they_compare():
    """Each pair of the confirmatory study shares every setting but the one
    the paper's table compares: patch-raster and patch-random only the
    serialization; two-stream and transformer-skip only the architecture
    (one shared 8-layer stack against a 6-layer encoder and a 2-layer
    decoder with the skip layer), the data, recipe and segments alike."""
    missing = object()

    def differing(worse, better):
        a, b = (_config_leaves(Config.fromfile(osp.join(
            CONFIGS, study.VARIANTS[name][0])).to_dict())
            for name in (worse, better))
        return {key: (a.get(key, missing), b.get(key, missing))
                for key in a.keys() | b.keys()
                if a.get(key, missing) != b.get(key, missing)}

    assert differing('patch-raster', 'patch-random') == {
        'train_dataloader.dataset.pipeline.3.serialization':
            ('raster', 'random')}
    architecture = differing('two-stream', 'transformer-skip')
    assert architecture.pop('model.backbone.type') == (
        'RandSACTwoStreamViT', 'RandSACViT')
    assert architecture.pop('model.backbone.arch.num_layers') == (8, 6)
    assert {key.split('.')[:2] == ['model', 'neck'] for key in architecture
            } == {True}
    assert architecture['model.neck.skip_connection'] == (missing, True)
    assert architecture['model.neck.num_layers'] == (missing, 2)


def test_reused_runs_are_read_from_their_study_and_never_trained(tmp_path):
    """A variant of ``reused_runs`` is read from the other study's records;
    one that study has not recorded is refused, not trained into its
    folder; the report names where those runs come from."""
    largest = dict(study_cli.LARGEST, configs=CONFIGS, eval_data=EVAL_DATA,
                   work_dir=str(tmp_path / 'largest'))
    reported = study.run_study(study.StudySettings(
        **dict(largest, report_only=True)), log=lambda line: None)
    assert {r['variant'] for r in reported['records']} == {
        'random', 'patch-random', 'transformer-skip'}
    with open(osp.join(REPO_ROOT, 'docs', 'benchmarks',
                       'small_scale_curve150', 'runs',
                       'transformer-skip_seed2', 'eval_epoch150.json')) as f:
        recorded = json.load(f)['linear']
    assert [r['linear'] for r in reported['records']
            if (r['variant'], r['seed'], r['epoch']) ==
            ('transformer-skip', 2, 150)] == [recorded]
    assert reported['settings']['reused_runs']['patch-random'] == \
        osp.relpath(osp.join(REPO_ROOT, 'docs', 'benchmarks',
                             'small_scale_curve150'))
    from experiments.small_scale.report import markdown
    assert 'The runs of random, patch-random, transformer-skip are those ' \
        'recorded in ' in markdown(reported)
    empty = tmp_path / 'elsewhere'
    (empty / 'runs').mkdir(parents=True)
    settings = study.StudySettings(**dict(
        largest, variants=['patch-random'], seeds=[0],
        reused_runs={'patch-random': str(empty)}))
    with pytest.raises(UserError, match=r'patch-random seed 0: its runs are '
                       r'reused from .*elsewhere, which does not record '
                       r'this run'):
        study.run_one('patch-random', 0, settings, loaders=None)
    assert os.listdir(empty / 'runs') == []


def test_the_curve_declares_seeds_3_and_4_a_further_look():
    design = tool_args('--curve').design
    assert (design.seeds, design.looks) == ((0, 1, 2), ((3, 4), ))
    assert {k: len(v) for k, v in design.families.items()} == {
        'paper orderings': 15, 'pretraining helps': 3}
    assert tool_args().design is None  # its own settings' (study_design)


def test_a_report_is_rewritten_from_the_records_its_json_holds(tmp_path):
    """The 5-epoch table keeps its runs' records only in its report:
    --from-json rewrites it and its markdown under the current rule, the
    records unchanged; without --report-only it is refused."""
    path = tmp_path / 'small_scale_study.json'
    shutil.copy(osp.join(REPO_ROOT, 'docs/benchmarks/small_scale_study.json'),
                path)
    before = json.loads(path.read_text())
    before['orderings'] = []  # as if written under another rule
    path.write_text(json.dumps(before))
    study_cli.main(['--report-only', '--from-json', str(path)])
    after = json.loads(path.read_text())
    assert after['records'] == before['records']
    assert after['orderings'] and after['design']['seeds'] == [0, 1, 2]
    from experiments.small_scale.report import markdown
    assert (tmp_path / 'small_scale_study.md').read_text() == \
        markdown(after)
    with pytest.raises(SystemExit) as exit_:
        study.parse_args(['--from-json', str(path)])
    assert exit_.value.code == 2


def test_the_length_studies_compute_in_float32_on_every_cpu():
    """Their runs are made on machines with bf16 instructions and without:
    the presets hold every CPU to float32 (a GPU run keeps its bf16), and
    a precision asked for wins."""
    for preset in ('--curve', '--long-curve'):
        assert tool_args(preset).cpu_precision == 'float32'
        assert tool_args(preset, '--device', 'cuda').cpu_precision is None
        assert tool_args(preset, '--cpu-precision', 'bfloat16') \
            .cpu_precision == 'bfloat16'
    assert tool_args().cpu_precision is None  # the CPU's own
    assert tool_args('--device', 'cuda', '--cpu-precision', 'float32') \
        .cpu_precision == 'float32'  # refused by StudySettings (below)


@pytest.mark.parametrize('cpu_precision, stamp', [
    ('float32', {}),  # the records of float32 name no precision
    (None, {'precision': 'bfloat16'}),
])
def test_a_study_stamps_its_runs_with_the_precision_it_holds_cpus_to(
        tmp_path, monkeypatch, cpu_precision, stamp):
    """On a CPU with bf16 instructions, a study held to float32 makes (and
    finds) float32 runs, the records of an AVX2 machine's; the variable is
    as before after it."""
    from experiments.records import settings_stamp
    from randsac_mm import precision
    monkeypatch.delenv(precision.CPU_PRECISION_ENV)
    monkeypatch.setattr(precision, 'cpu_bf16_instructions',
                        lambda: 'AVX512-BF16')
    stamps = []
    monkeypatch.setattr(study_cli, 'run_is_recorded', lambda *args: False)
    monkeypatch.setattr(study_cli, 'run_one', lambda *args: stamps.append(
        settings_stamp()) or [])
    monkeypatch.setattr(study_cli, 'write_results',
                        lambda records, settings: records)
    settings = study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, variants=['mae'], seeds=[0],
        cpu_precision=cpu_precision, work_dir=str(tmp_path))
    study_cli.run_study(settings, log=lambda line: None)
    assert stamps == [stamp]
    assert precision.CPU_PRECISION_ENV not in os.environ


def test_probe_seeds_are_passed_to_the_readouts_and_name_their_record(
        tmp_path, monkeypatch):
    """With probe seeds the readouts are their mean, and the record's
    settings name the seeds, so that a readout of one probe seed is never
    taken for it."""
    import randsac_mm.evaluation as evaluation
    asked = {}

    def evaluate_frozen(model, train, test, **kwargs):
        asked.update(kwargs)
        return dict(linear=80.0)
    monkeypatch.setattr(evaluation, 'evaluate_frozen', evaluate_frozen)
    monkeypatch.setattr(study_runs, 'build_model',
                        lambda *args, **kwargs: torch.nn.Identity())
    settings = study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, readouts=['linear'],
        probe_seeds=[0, 1, 2], work_dir=str(tmp_path))
    done = study.evaluate('random', 0, 0, settings, lambda: (None, None))
    assert asked['probe_seeds'] == [0, 1, 2] and done['linear'] == 80.0
    assert done['settings']['probe_seeds'] == [0, 1, 2]
    # One probe (the earlier studies' records) names none.
    single = study.recorded_readouts('random', 0, 0, study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, work_dir=str(tmp_path)))[0]
    assert 'probe_seeds' not in single['settings']


def test_quick_and_default_runs_are_cpu_runs():
    args = tool_args('--quick', '--device', 'cpu')
    assert (args.device, args.seeds, args.epochs, args.train_images) == \
        ('cpu', [0], 1, 256)
    assert tool_args('--quick').device == tool_args().device == 'cpu'
    assert tool_args('--curve').seeds is None  # StudySettings': 0 1 2
    with pytest.raises(SystemExit):
        tool_args('--quick', '--gpu-study')


@pytest.mark.skipif(torch.cuda.is_available(),
                    reason='this machine has a GPU: the run would train')
@pytest.mark.heavy
def test_cuda_asked_on_a_machine_without_it_stops_before_training(
        tmp_path):
    work = tmp_path / 'study'
    proc = subprocess.run(
        [sys.executable, *STUDY, '--quick', '--device', 'cuda', '--data-root',
         tmp_path / 'none', '--work-dir', work], cwd=REPO_ROOT,
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    [message] = proc.stderr.splitlines()
    assert message.startswith('python -m experiments.small_scale: error: '
                              'argument --device: no usable CUDA GPU')
    assert 'pass --device cpu' in message
    assert not work.exists() and proc.stdout == ''


@pytest.mark.heavy
def test_a_report_of_gpu_runs_needs_no_gpu(tmp_path):
    """--report-only trains nothing, so --device cuda asks for no GPU there;
    the device still picks the records reported."""
    gpu = study.StudySettings(configs=CONFIGS, eval_data=EVAL_DATA,
                              variants=['random'], seeds=[0],
                              work_dir=str(tmp_path), device='cuda')
    (tmp_path / 'runs' / 'random_seed0').mkdir(parents=True)
    wanted, path = study.recorded_readouts('random', 0, 0, gpu)
    with open(path, 'w') as f:
        json.dump(dict(wanted, linear=74.5, knn=61.0), f)
    run_tool([*STUDY, '--variants', 'random', '--seeds', '0', '--device',
              'cuda', '--report-only', '--work-dir', tmp_path], timeout=120)
    [record] = json.loads((tmp_path / 'study.json').read_text())['records']
    assert (record['linear'], record['knn']) == (74.5, 61.0)


def test_a_report_of_a_folder_with_no_records_is_one_line(
        tmp_path, monkeypatch, capsys):
    """Before: a RuntimeError traceback naming report_only."""
    from ..tool_runs import run_in_process
    code, out, err = run_in_process(
        [*STUDY[1:], '--variants', 'random', '--seeds', '0',
         '--report-only', '--work-dir', str(tmp_path)], monkeypatch, capsys)
    assert code == 2 and 'Traceback' not in err  # a user error: as argparse
    assert err.strip().splitlines()[-1] == (
        f'python -m experiments.small_scale: error: --work-dir {tmp_path}: '
        'no run of these settings is recorded there; give the folder that '
        'holds the records, or run the study without --report-only first')
    assert not (tmp_path / 'study.json').exists()


def test_variant_configs_cite_their_paper_row_and_the_metafile_its_number():
    for name, (config, row) in study.VARIANTS.items():
        if config is None:
            continue
        header = open(osp.join(CONFIGS, config)).read().split('_base_')[0]
        assert 'Scales down' in header and 'Table' in header, name
        assert paper_figure(config) is not None, name
        assert find_model(config)['Config'].endswith(config), name
    assert paper_figure('randsac_vit-mini-p4_blob-k7_fashion-mnist.py') \
        == 82.52


def test_variant_configs_change_their_layout():
    def layout(variant):
        cfg = Config.fromfile(osp.join(CONFIGS, study.VARIANTS[variant][0]))
        [step] = [s for s in cfg.train_dataloader.dataset.pipeline
                  if s['type'] == 'RandSACSegmentGenerator']
        return step
    assert layout('patch-raster')['serialization'] == 'raster'
    assert layout('square-16to4')['hierarchy'] == (4, )
    assert layout('blob-k7-shuffle')['coherent'] is False
    assert layout('blob-7to3')['num_segments'] == 7
    skip = Config.fromfile(osp.join(
        CONFIGS, study.VARIANTS['transformer-skip'][0])).model
    assert skip.neck.skip_connection and skip.head.norm_pix
    mae = Config.fromfile(osp.join(CONFIGS, study.VARIANTS['mae'][0])).model
    assert mae.type == 'MAEMatchedToRandSAC' and mae.head.norm_pix


def test_orderings_name_variants_that_exist():
    for worse, better, _ in study.ORDERINGS:
        assert worse in study.VARIANTS and better in study.VARIANTS


def summaries(**values):
    """{epoch: summary} with linear readouts of seeds 0, 1, 2, ... given as
    {epoch 'e<N>': {variant: [value of seed 0, of seed 1, ...]}}."""
    out = {}
    for epoch, entries in values.items():
        records = [dict(variant=name, seed=seed, linear=value)
                   for name, seeds in entries.items()
                   for seed, value in enumerate(seeds)]
        out[int(epoch[1:])] = study.summarize(records, list(entries),
                                              ['linear'])
    return out


def gaps(summaries, readouts=('linear', )):
    """ordering_gaps under the design of the summaries' variants, these
    readouts and seeds 0-2."""
    variants = {v for s in summaries.values() for v in s}
    design = study.ordering_design(study.ORDERINGS, variants, readouts,
                                   seeds=(0, 1, 2))
    return study.ordering_gaps(summaries, list(readouts), design)


def test_gaps_are_t_tested_paired_by_seed_and_decided_at_the_longest():
    result = gaps(summaries(
        e5={'patch-random': [78.0, 78.3, 77.7],
            'square-m2': [78.2, 78.5, 77.9],
            'blob-k7': [79.0, 79.3, 78.7]},
        # Square - patch: 0.6, 0.7, 0.5 (t 10.4); blob - patch: 1.0, 0.2,
        # 0.6 (2.6 SE: decided by the old 2-SE rule, not by the t-test).
        e30={'patch-random': [80.0, 80.5, 79.5],
             'square-m2': [80.6, 81.2, 80.0],
             'blob-k7': [81.0, 80.7, 80.1]}))
    by_pair = {(o['worse'], o['better']): o['readouts']['linear']
               for o in result}
    squares = by_pair[('patch-random', 'square-m2')]
    assert [p['epoch'] for p in squares['by_epoch']] == [5, 30]
    point = squares['by_epoch'][1]
    assert (point['gap'], point['test'], point['df']) == (
        pytest.approx(0.6), 'paired', 2)
    assert point['se'] == pytest.approx(0.1 / 3 ** 0.5)
    assert point['p'] == pytest.approx(0.00913, abs=1e-5)
    # Holm over the family's two gaps: the smaller p times 2.
    assert point['family'] == 'paper orderings'
    assert point['p_holm'] == pytest.approx(2 * point['p'])
    assert squares['verdict'] == 'holds'
    # At 5 epochs, exploratory: printed with p, never decided.
    assert (squares['by_epoch'][0]['family'],
            squares['by_epoch'][0]['p_holm']) == (None, None)
    blobs = by_pair[('patch-random', 'blob-k7')]['by_epoch'][1]
    assert blobs['gap'] / blobs['se'] == pytest.approx(2.598, abs=1e-3)
    assert blobs['p'] == pytest.approx(0.1217, abs=1e-4)
    assert by_pair[('patch-random', 'blob-k7')]['verdict'] == \
        'undecided (p_holm ≥ 0.05)'
    reversed_ = gaps(summaries(
        e5={'patch-random': [81.0, 81.2, 80.8],
            'square-m2': [80.0, 80.1, 79.9]}))
    assert reversed_[0]['readouts']['linear']['verdict'] == 'reversed'
    # The report prints each gap's p beside it, p_holm and the verdict at
    # the longest.
    from experiments.small_scale.report import markdown
    at_30 = summaries(e30={'patch-random': [80.0, 80.5, 79.5],
                           'square-m2': [80.6, 81.2, 80.0]})
    design = study.ordering_design(study.ORDERINGS, list(at_30[30]),
                                   ['linear'], seeds=(0, 1, 2))
    table = markdown(dict(
        settings=dict(readouts=['linear']), records=[],
        summary={str(e): s for e, s in at_30.items()},
        orderings=study.ordering_gaps(at_30, ['linear'], design),
        design=design.as_dict()))
    assert '| +0.60 ± 0.06, p 0.009 | 0.009 | holds |' in table
    assert 'Families at 30 epochs, each corrected by Holm: paper orderings ' \
        '(1 gaps)' in table


def test_the_report_names_each_variants_runs_at_the_last_epoch():
    """Which seeds the report stands on, in seed order, with the minutes and
    loss of their last read-out epoch (a study under way: square-m2 lacks
    seed 2); the untrained encoder has neither."""
    from experiments.small_scale.report import markdown

    def record(variant, seed, epoch, loss, minutes):
        return dict(variant=variant, seed=seed, epoch=epoch, loss=loss,
                    pretrain_minutes=minutes, linear=80.0)
    records = [record('random', s, 0, None, 0.0) for s in (2, 0, 1)] + [
        record('square-m2', 1, 30, 0.3, 20.0),
        record('square-m2', 1, 150, 0.2196, 96.9),
        record('square-m2', 0, 30, 0.3, 20.0),
        record('square-m2', 0, 150, 0.2171, 99.4)]
    lines = markdown(dict(settings=dict(readouts=['linear']),
                          records=records, summary={'150': {}},
                          orderings=[], design=dict(seeds=[0, 1, 2],
                                                    looks=[], families={}),
                          pretrain_minutes=196.3)).splitlines()
    table = lines[lines.index('#### Runs recorded'):]
    assert 'the loss at epoch 150.' in table[2]
    assert table[4:8] == [
        '| variant | seeds | pretraining minutes | final loss |',
        '| --- | --- | --- | --- |',
        '| random | 0, 1, 2 | - | - |',
        '| square-m2 | 0, 1 | 99, 97 | 0.217, 0.220 |']
    assert table[9] == 'Pretraining in all: 196 minutes.'


def test_a_variant_lacking_seeds_is_paired_on_the_seeds_both_have():
    # A study under way: patch-random has seeds 0 and 1, square-m2 seeds 0,
    # 1, 2 and 3 (3 not planned), blob-k7 seeds 0 and 1.
    at_30 = study.summarize([
        dict(variant='patch-random', seed=0, linear=79.0),
        dict(variant='patch-random', seed=1, linear=81.0),
        *[dict(variant='square-m2', seed=s, linear=v)
          for s, v in enumerate([81.5, 81.0, 82.0, 81.7])],
        dict(variant='blob-k7', seed=0, linear=80.0),
        dict(variant='blob-k7', seed=1, linear=81.6)],
        ['patch-random', 'square-m2', 'blob-k7'], ['linear'])
    by_pair = {(o['worse'], o['better']): o['readouts']['linear']
               for o in gaps({30: at_30})}
    squares = by_pair[('patch-random', 'square-m2')]
    [point] = squares['by_epoch']
    assert (point['test'], point['sizes'], point['seeds']) == (
        'paired', [2, 2], [0, 1])
    assert point['extra_seeds'] == [[2, 3], []]
    assert point['gap'] == pytest.approx((2.5 + 0.0) / 2)
    # Fewer than three seeds on a side: no verdict.
    assert squares['verdict'] == '2 seeds: no verdict below 3'
    blobs = by_pair[('patch-random', 'blob-k7')]['by_epoch'][0]
    assert (blobs['test'], blobs['seeds']) == ('paired', [0, 1])
    assert blobs['gap'] == pytest.approx(0.8)


@pytest.mark.parametrize('kwargs, message', [
    (dict(variants=['blob-k99']), r"variants: unknown \['blob-k99'\]"),
    (dict(readouts=['cka']), r"readouts: unknown \['cka'\]"),
    (dict(seeds=[1, 1]), 'seeds must be distinct'),
    (dict(epochs=30, eval_epochs=[5, 10]), "end at the run's length 30"),
    (dict(epochs=30, eval_epochs=[10, 5, 30]), 'eval_epochs must increase'),
    (dict(device='gpu'),
     r"device must be one of \('cuda', 'cpu'\), got 'gpu'"),
    (dict(probe_images=0), 'probe_images must be >= 1 or None, got 0'),
    (dict(probe_seeds=[0, 0]), r'probe_seeds must be distinct, got \[0, 0\]'),
    (dict(probe_seeds=[]), 'probe_seeds: give at least one seed'),
    (dict(cpu_precision='auto'), r"cpu_precision must be one of "
     r"\('bfloat16', 'float32'\) or None, got 'auto'"),
    (dict(reused_runs={'blob-k99': 'x'}),
     r"reused_runs: unknown variants \['blob-k99'\]"),
    (dict(cpu_precision='float32', device='cuda'),
     "cpu_precision applies to CPU runs; device 'cuda' pretrains in bf16"),
])
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        study.StudySettings(configs=CONFIGS, eval_data=EVAL_DATA, **kwargs)


@pytest.mark.heavy
def test_the_command_refuses_bad_arguments():
    with pytest.raises(pytest.fail.Exception,
                       match='argument --epochs: must be >= 1, got 0'):
        run_tool([*STUDY, '--epochs', '0'], timeout=120)
    with pytest.raises(pytest.fail.Exception,
                       match="end at the run's length 4, got \\[2\\]"):
        run_tool([*STUDY, '--epochs', '4', '--eval-epochs', '2'],
                 timeout=120)


# The section of docs/small_scale_study.md that shows each report's tables.
STUDY_SECTIONS = {
    'docs/benchmarks/small_scale_study.json': 'The ablation table (5 epochs)',
    'docs/benchmarks/small_scale_curve/study.json':
        'The training-length study (30 epochs)',
    'docs/benchmarks/small_scale_curve150/study.json':
        'The training-length study at 150 epochs',
}


@pytest.mark.parametrize('json_path, md_path, preset', [
    ('docs/benchmarks/small_scale_study.json',
     'docs/benchmarks/small_scale_study.md', None),
    ('docs/benchmarks/small_scale_curve/study.json',
     'docs/benchmarks/small_scale_curve/study.md', '--curve'),
    ('docs/benchmarks/small_scale_curve150/study.json',
     'docs/benchmarks/small_scale_curve150/study.md', '--long-curve'),
])
def test_committed_study_results_have_the_schema_run_study_writes(
        json_path, md_path, preset):
    """The committed studies (the 5-epoch ablation table and the training
    length studies) hold what run_study writes now: its keys, records of
    one read-out epoch each, and the summary, orderings (under the preset's
    design, or that of the settings) and pretraining minutes those records
    give; their reports are study.report.markdown's."""
    from dataclasses import fields

    from experiments.small_scale.report import markdown
    with open(osp.join(REPO_ROOT, json_path)) as f:
        result = json.load(f)
    assert set(result) == {'settings', 'records', 'summary', 'orderings',
                           'design', 'pretrain_minutes'}
    settings = result['settings']
    # device, probe_images, plan, compile, workers, probe_seeds and
    # cpu_precision came later; a record without them ran at their
    # defaults (see study.runs._added_settings).
    # The design is the report's own key, not a setting.
    names = {f.name for f in fields(study.StudySettings)} - {'design'}
    later = {'device', 'probe_images', 'plan', 'compile', 'workers',
             'probe_seeds', 'cpu_precision', 'reused_runs'}
    assert names - later <= set(settings) <= names
    readouts, epochs = settings['readouts'], settings['eval_epochs']
    for record in result['records']:
        assert set(record) == {'variant', 'seed', 'epoch', 'loss',
                               'pretrain_minutes', *readouts}
        untrained = study.VARIANTS[record['variant']][0] is None
        assert record['epoch'] in ([0] if untrained else epochs)
        assert (record['loss'] is None) == untrained
    # As run_study: the untrained encoder is the baseline at every epoch.
    summaries = {epoch: study.summarize(
        [r for r in result['records'] if r['epoch'] in (0, epoch)],
        settings['variants'], readouts) for epoch in epochs}
    assert result['summary'] == {str(e): s for e, s in summaries.items()}
    design = tool_args(preset).design if preset else study.ordering_design(
        study.ORDERINGS, settings['variants'], readouts, settings['seeds'])
    assert result['design'] == design.as_dict()
    assert result['orderings'] == study.ordering_gaps(summaries, readouts,
                                                      design)
    assert result['pretrain_minutes'] == sum(
        r['pretrain_minutes'] for r in result['records']
        if r['epoch'] == epochs[-1])
    with open(osp.join(REPO_ROOT, md_path)) as f:
        assert markdown(result) == f.read()
    # docs/small_scale_study.md shows tables of each report, as written.
    section = STUDY_SECTIONS[json_path]
    with open(osp.join(REPO_ROOT, 'docs', 'small_scale_study.md')) as f:
        page = f.read()
    shown = [line for line in page.split(f'\n## {section}\n')[1].split(
        '\n## ')[0].splitlines() if line.startswith('|')]
    assert shown
    report = set(markdown(result).splitlines())
    assert [line for line in shown if line not in report] == []


@pytest.mark.parametrize('eval_epochs, config_interval, interval, kept', [
    ([200], 10, 10, 1),   # resumes near where it stopped; the last kept
    ([5], 5, 5, 1),
    ([5, 10, 20, 30], 5, 5, -1),   # a learning curve keeps them all
    ([7], 5, 1, 1),
])
def test_a_run_checkpoints_at_its_read_out_epochs_and_between(
        eval_epochs, config_interval, interval, kept):
    from mmengine.config import Config
    cfg = Config(dict(default_hooks=dict(checkpoint=dict(
        interval=config_interval, max_keep_ckpts=3))))
    study.set_checkpoints(cfg, eval_epochs)
    hook = cfg.default_hooks.checkpoint
    assert (hook.interval, hook.max_keep_ckpts) == (interval, kept)
    assert all(e % hook.interval == 0 for e in eval_epochs)


def test_readouts_of_other_settings_are_never_written_over(tmp_path):
    """A rerun in the same work dir with another data root is refused in
    one line before it evaluates; the first study's record stays."""
    from randsac_mm.cli.errors import UserError
    first, other = (study.StudySettings(
        configs=CONFIGS, eval_data=EVAL_DATA, variants=['random'],
        seeds=[0], readouts=['linear'], work_dir=str(tmp_path),
        data_root=root) for root in ('/data/a', '/data/b'))
    (tmp_path / 'runs' / 'random_seed0').mkdir(parents=True)
    wanted, path = study.recorded_readouts('random', 0, 0, first)
    with open(path, 'w') as f:
        json.dump(dict(wanted, linear=75.0), f)
    kept = open(path).read()

    def no_data():
        raise AssertionError('evaluated before refusing')
    with pytest.raises(UserError, match=r'--work-dir: .*eval_epoch0.json '
                       "records other settings .*'/data/a' there, '/data/b' "
                       r'here\): give another --work-dir \(that file is '
                       r'kept\)$'):
        study.evaluate('random', 0, 0, other, no_data)
    assert open(path).read() == kept
    assert not study.is_recorded('random', 0, 0, other)  # a report: not yet
