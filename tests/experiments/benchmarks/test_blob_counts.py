"""python -m experiments.benchmarks.blob_counts: the measured segment and
partition counts of blob configs, default and exact."""
import json

import pytest

from ...conftest import REPO_ROOT, run_tool

BLOB_COUNTS = ['-m', 'experiments.benchmarks.blob_counts']

CONFIG = (f'{REPO_ROOT}/configs/pretrain/'
          'randsac_vit-tiny-p4_blob-16to4_8xb64-amp-800e_cifar10.py')
SQUARES = (f'{REPO_ROOT}/configs/pretrain/'
           'randsac_vit-tiny-p4_square-m2_8xb64-amp-800e_cifar10.py')


@pytest.mark.heavy
def test_default_counts_fall_below_nominal_exact_ones_do_not(tmp_path):
    out = tmp_path / 'counts.json'
    printed = run_tool([*BLOB_COUNTS, CONFIG, SQUARES, '--samples', '400',
                        '--out', out]).stdout
    [(name, stats)] = json.loads(out.read_text())['configs'].items()
    assert name.endswith('blob-16to4_8xb64-amp-800e_cifar10.py')  # no squares
    assert stats['k'] == 16 and stats['grid'] == [8, 8]
    assert 13.5 < stats['segments_mean'] < 15 and stats['below_k'] > 0.7
    [level] = stats['levels']
    assert level['nominal'] == 4 and 3.8 < level['mean'] < 4
    assert '% below' in printed
    exact = tmp_path / 'exact.json'
    run_tool([*BLOB_COUNTS, CONFIG, '--samples', '100', '--exact-counts',
              '--out', exact])
    stats = json.loads(exact.read_text())['configs'][name]
    assert stats['segments_mean'] == 16 and stats['below_k'] == 0
    assert stats['levels'][0]['mean'] == 4
