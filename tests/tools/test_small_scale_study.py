"""The small-scale study: its quick run end to end, and its configs."""
import json
import os.path as osp
import sys

import pytest
from mmengine.config import Config
from PIL import Image

from ..conftest import REPO_ROOT, run_tool
from ..data_factory import write_mnist

sys.path.insert(0, osp.join(REPO_ROOT, 'tools', 'benchmarks'))
import small_scale_study as study  # noqa: E402


@pytest.mark.heavy
def test_quick_study_writes_table_json_and_chart(tmp_path):
    root = write_mnist(str(tmp_path / 'fmnist'), train=300, test=100)
    work = tmp_path / 'study'
    args = ['tools/benchmarks/small_scale_study.py', '--quick',
            '--data-root', root, '--work-dir', work]
    out = run_tool(args, timeout=600)
    result = json.loads((work / 'study.json').read_text())
    assert list(result['summary']) == study.QUICK['variants']
    assert len(result['runs']) == 3
    for run in result['runs']:
        assert 0 <= run['linear'] <= 100 and 0 <= run['knn'] <= 100
        assert run['feature_dim'] == 96
    trained = [r for r in result['runs'] if r['variant'] != 'random']
    assert all(r['final_loss'] < r['first_loss'] for r in trained)
    assert result['settings']['epochs'] == 1
    # The one paper ordering both of whose variants ran, with a verdict.
    [verdict] = result['orderings']
    assert (verdict['worse'], verdict['better']) == ('random', 'square-m2')
    summary = result['summary']
    assert verdict['gap'] == pytest.approx(
        summary['square-m2']['linear_mean'] -
        summary['random']['linear_mean'])
    table = (work / 'study.md').read_text()
    assert '| patch-raster | Serialization, patch-raster (ViT-T) | 55.53 |' \
        in table
    assert verdict['verdict'] in table and table in out.stdout
    assert Image.open(work / 'study.png').size[0] > 500
    # A second run reuses the finished runs.
    again = run_tool(args, timeout=120)
    assert again.stdout.count('[study ') == 3
    assert json.loads((work / 'study.json').read_text())['runs'] == \
        result['runs']


def test_every_variant_config_cites_its_paper_row_and_changes_its_layout():
    for name, (config, row, paper) in study.VARIANTS.items():
        if config is None:
            continue
        path = osp.join(study.CONFIGS, config)
        header = open(path).read().split('_base_')[0]
        assert 'Scales down' in header and 'Table' in header, name
        assert (f'{paper}' in header) or (f'{paper:.2f}' in header), name
    def layout(variant):
        cfg = Config.fromfile(osp.join(study.CONFIGS,
                                       study.VARIANTS[variant][0]))
        [step] = [s for s in cfg.train_dataloader.dataset.pipeline
                  if s['type'] == 'RandSACSegmentGenerator']
        return step
    assert layout('patch-raster')['serialization'] == 'raster'
    assert layout('square-16to4')['hierarchy'] == (4, )
    assert layout('blob-k7-shuffle')['coherent'] is False
    assert layout('blob-7to3')['num_segments'] == 7
    skip = Config.fromfile(osp.join(
        study.CONFIGS, study.VARIANTS['transformer-skip'][0])).model
    assert skip.neck.skip_connection and skip.head.norm_pix
    mae = Config.fromfile(osp.join(study.CONFIGS,
                                   study.VARIANTS['mae'][0])).model
    # MAE's decoder is RandSAC's (2 layers x 96, 3 heads), derived from it.
    assert mae.type == 'MAEMatchedToRandSAC' and mae.head.norm_pix
    assert (mae.neck.num_layers, mae.neck.embed_dims,
            mae.neck.num_heads) == (2, 96, 3)


def test_orderings_name_variants_that_exist():
    for worse, better, _ in study.ORDERINGS:
        assert worse in study.VARIANTS and better in study.VARIANTS


def test_verdicts_hold_fail_and_see_noise():
    def entry(mean, std):
        return dict(linear_mean=mean, linear_std=std, knn_mean=mean,
                    knn_std=std)
    summary = {'random': entry(70, 0.5), 'square-m2': entry(75, 0.5),
               'patch-raster': entry(72, 1.0), 'patch-random': entry(71.5,
                                                                     1.0)}
    verdicts = {(v['worse'], v['better']): v['verdict']
                for v in study.ordering_verdicts(summary)}
    assert verdicts[('random', 'square-m2')] == 'holds'
    assert verdicts[('patch-raster', 'patch-random')] == \
        'does not hold (within noise)'
    assert verdicts[('patch-random', 'square-m2')] == 'holds'


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        study.parse_args(['--epochs', '0'])
    with pytest.raises(SystemExit):
        study.parse_args(['--seeds', '1', '1'])
    with pytest.raises(SystemExit):
        study.parse_args(['--variants', 'blob-k99'])
