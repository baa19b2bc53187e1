"""randsac_mm.analysis.paper: the paper's figures for a config, from the
installed configs/metafile.yml. The values below are typed from the
paper's tables (paper/randsac_paper.tex), so a wrong metafile entry fails
here."""
import json
import os.path as osp
import shutil
import subprocess
import sys

import pytest
import yaml

from randsac_mm.analysis.paper import (
    FINETUNE,
    LINEAR,
    METAFILE,
    PAPER_RESULTS,
    PaperLookupError,
    find_model,
    load_metafile,
    paper_figure,
    paper_flops,
    paper_results,
)

from ..conftest import REPO_ROOT

K7 = 'configs/pretrain/randsac_vit-tiny-p4_blob-k7_8xb64-amp-800e_cifar10.py'
MAIN = 'configs/randsac_vit-b_in1k.py'


def test_the_default_metafile_is_the_installed_packages():
    # An editable install links randsac_mm/.mim/configs to the checkout's.
    assert osp.samefile(METAFILE,
                        osp.join(REPO_ROOT, 'configs', 'metafile.yml'))
    assert len(load_metafile()['Models']) > 50


@pytest.mark.parametrize('config', [
    K7, osp.join(REPO_ROOT, K7), K7[len('configs/'):], osp.basename(K7),
    osp.basename(K7)[:-3]])
def test_a_config_is_found_by_path_file_name_or_model_name(config):
    assert find_model(config)['Config'] == K7


def test_a_copy_outside_the_installed_configs_is_found_by_name(tmp_path):
    copied = tmp_path / osp.basename(K7)
    shutil.copy(osp.join(REPO_ROOT, K7), copied)
    assert find_model(copied)['Config'] == K7


def test_a_path_in_the_repository_is_matched_by_path_not_by_name():
    # Its file name is the supervised row's; the fine-tuning config itself
    # has no figures of its own.
    finetune = ('configs/benchmarks/finetune/'
                'vit-small-p4_8xb128-coslr-100e_cifar10.py')
    with pytest.raises(PaperLookupError, match='no model of that config'):
        find_model(finetune)
    assert paper_figure('vit-small-p4_8xb128-coslr-100e_cifar10.py',
                        metric='Top 1 Accuracy') == 91.3


def test_an_unknown_config_names_the_closest_ones():
    with pytest.raises(PaperLookupError) as error:
        find_model('randsac_vit-tiny-p4_blob-k77_8xb64-amp-800e_cifar10.py')
    assert 'randsac_vit-tiny-p4_blob-k7_8xb64-amp-800e_cifar10' in \
        str(error.value)


def test_one_run_in_several_tables_gives_every_row():
    rows = {(r['Paper']['Table'], r['Paper']['Row']):
            (r['Metrics'][LINEAR], r['Metrics'][FINETUNE])
            for r in paper_results(K7)}
    assert rows == {('Segment Coherence', 'K=7'): (82.52, 91.14),
                    ('Segments', 'blob-random'): (82.52, 91.53),
                    ('Hierarchical Segment Prediction', 'blob 7'):
                    (82.52, 91.14)}
    assert paper_figure(K7) == 82.52  # every row agrees


def test_rows_that_disagree_need_a_table():
    with pytest.raises(ValueError, match='91.14.*91.53.*table='):
        paper_figure(K7, metric=FINETUNE)
    assert paper_figure(K7, metric=FINETUNE, table='Segments') == 91.53


def test_the_main_config_brings_its_transfers():
    results = paper_results(MAIN)
    figures = {(r['Dataset'], name): value for r in results
               for name, value in r['Metrics'].items()}
    assert figures[('ImageNet-1k', LINEAR)] == 68.9
    assert figures[('ImageNet-1k', FINETUNE)] == 83.9
    assert figures[('ADE20K', 'mIoU')] == 48.5
    assert figures[('COCO', 'box AP')] == 50.9
    assert figures[('COCO', 'mask AP')] == 45.0
    ade = next(r for r in results if r['Dataset'] == 'ADE20K')
    assert ade['Config'].startswith('configs/segmentation/')
    k9 = ('configs/pretrain/'
          'randsac_vit-base-p16_square-m4_8xb512-amp-1600e_in1k.py')
    assert paper_figure(k9, metric='mIoU') == 48.3
    assert paper_figure(k9) == 72.3


# The study's variants and the CIFAR10 linear probe of the row each scales
# down (formerly typed into the study's command line).
SMALL_SCALE = {
    'randsac_vit-mini-p4_patch-raster_fashion-mnist.py': 55.53,
    'randsac_vit-mini-p4_patch-random_fashion-mnist.py': 75.53,
    'randsac_vit-mini-p4_square-m2_fashion-mnist.py': 81.38,
    'randsac_vit-mini-p4_square-m2-16to4_fashion-mnist.py': 82.46,
    'randsac_vit-mini-p4_blob-k7_fashion-mnist.py': 82.52,
    'randsac_vit-mini-p4_blob-k7-shuffle_fashion-mnist.py': 76.69,
    'randsac_vit-mini-p4_blob-7to3_fashion-mnist.py': 82.71,
    'randsac_vit-mini-p4_blob-11to5_two-stream_fashion-mnist.py': 84.4,
    'randsac_vit-mini-p4_blob-11to5_transformer_fashion-mnist.py': 88.0,
    'randsac_vit-mini-p4_blob-11to5_transformer-skip_fashion-mnist.py': 89.5,
    'mae_vit-mini-p4_fashion-mnist.py': 87.3,
}


@pytest.mark.parametrize('config, linear', SMALL_SCALE.items())
def test_a_small_scale_variant_gives_the_row_it_scales_down(config, linear):
    [result] = paper_results(config)
    assert result['Dataset'] == 'CIFAR-10'
    assert result['Config'].startswith('configs/pretrain/')
    assert paper_figure(config) == linear


def test_no_config_and_no_figure_give_none():
    assert paper_figure(None) is None
    large = ('configs/pretrain/'
             'randsac_vit-large-p16_square-16to4_16xb256-amp-1600e_in1k.py')
    assert paper_results(large) == []
    assert paper_figure(large) is None
    assert paper_figure(K7, metric='mIoU') is None
    assert paper_figure(K7, dataset='ImageNet-100') is None


def test_flops_table():
    flops = paper_flops()
    assert {row: (f['two-stream'], f['transformer'], f['transformer-skip'])
            for row, f in flops.items()} == {
        'ViT-T': ('499.60 M', '483.82 M', '484.26 M'),
        'ViT-S': ('10.94 G', '6.73 G', '6.77 G'),
        'ViT-B': ('35.74 G', '21.25 G', '21.49 G')}
    assert flops['ViT-B']['config'] == MAIN
    assert 'transformer-skip' in flops['ViT-T']['config']


def test_architecture_rows_keep_the_parameter_counts():
    two_stream = ('configs/pretrain/randsac_vit-small-p16_blob-11to5_'
                  'two-stream_8xb512-amp-800e_in100.py')
    [row] = paper_results(two_stream)
    assert row['Paper'] == {'Table': 'Performance of Architectures',
                            'Row': 'Two-stream'}
    assert row['Metrics'] == {LINEAR: 62.4, FINETUNE: 84.6,
                              'Encoder Parameters': '30M',
                              'Decoder Parameters': '0M'}


def write_metafile(tmp_path, models):
    path = tmp_path / 'metafile.yml'
    path.write_text(yaml.safe_dump({'Collections': [], 'Models': models}))
    return str(path)


def model(name, results=None, **extra):
    return dict(Name=name, Config=f'configs/pretrain/{name}.py',
                **{PAPER_RESULTS: results}, **extra)


def result(lin, table='T', row='r'):
    return dict(Task='Image Classification', Dataset='CIFAR-10',
                Metrics={LINEAR: lin}, Paper=dict(Table=table, Row=row))


def test_an_explicit_metafile_is_read(tmp_path):
    scales_down = dict(Model='a', Paper=dict(Table='T', Row='r'))
    path = write_metafile(tmp_path, [
        model('a', [result(50.0)]),
        model('b', **{'Scales Down': scales_down})])
    assert paper_figure('a.py', metafile=path) == 50.0
    assert paper_figure('configs/pretrain/b.py', metafile=path) == 50.0
    with pytest.raises(PaperLookupError):
        find_model(K7, metafile=path)


@pytest.mark.parametrize('models, message', [
    ([dict(Name='a')], 'model 0 needs a Name and a Config'),
    ([model('a'), model('a')], "two models named 'a'"),
    ([model('a', [dict(Task='x', Dataset='y', Metrics={},
                       Paper=dict(Table='T'))])], r"\['Paper.Row'\]"),
    ([model('a', [result(1.0)]),
      model('b', **{'Scales Down': dict(Model='a', Paper=dict(
          Table='T', Row='other'))})], 'Scales Down names'),
])
def test_a_broken_metafile_is_refused_naming_the_problem(tmp_path, models,
                                                         message):
    with pytest.raises(ValueError, match=message):
        load_metafile(write_metafile(tmp_path, models))


def test_a_missing_metafile_says_how_to_give_one(tmp_path):
    with pytest.raises(FileNotFoundError, match='pass metafile='):
        load_metafile(str(tmp_path / 'none.yml'))


def test_the_reader_loads_no_torch_and_no_openmmlab_package():
    # randsac_mm and randsac_mm.analysis import nothing heavy, so the
    # reader comes alone.
    code = (
        'import json, sys\n'
        'from randsac_mm.analysis.paper import paper_figure\n'
        f'paper_figure({K7!r})\n'
        'print(json.dumps(sorted(sys.modules)))\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True, cwd=REPO_ROOT)
    loaded = json.loads(out.stdout)
    heavy = [m for m in loaded if m.split('.')[0] in (
        'torch', 'mmengine', 'mmcv', 'mmpretrain', 'mmseg', 'mmdet')]
    assert heavy == []
