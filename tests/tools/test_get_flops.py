import json

import pytest

from ..conftest import run_tool

VIT_T = ('configs/pretrain/randsac_vit-tiny-p4_blob-11to5_transformer-skip_'
         '8xb64-amp-1600e_cifar10.py')


@pytest.mark.heavy
def test_vit_tiny_full_length_matches_the_paper_and_hand_count(tmp_path):
    out = run_tool(['tools/analysis/get_flops.py', VIT_T,
                    '--compare-architectures', '--full-length', '--out',
                    tmp_path / 'flops.json'])
    rows = {r['architecture']: r for r in
            json.loads((tmp_path / 'flops.json').read_text())['rows']}
    # Hand count, 64 tokens, C=192, FFN 768: encoder 12 x (64 x 442368 MACs
    # of linears + 2 x 64^2 x 192 of attention) + patch embedding 64 x 48 x
    # 192; decoder 3 x (64 x 589824 + 4 x 64^2 x 192); head 64 x 192 x 48.
    hand = 12 * (64 * 442368 + 2 * 64 * 64 * 192) + 64 * 48 * 192 + \
        3 * (64 * 589824 + 4 * 64 * 64 * 192) + 64 * 192 * 48
    assert rows['transformer']['macs'] == pytest.approx(hand, rel=1e-6)
    # The skip layer adds L_dec x L_enc x N x C multiply-adds.
    assert rows['transformer-skip']['macs'] - rows['transformer']['macs'] \
        == pytest.approx(3 * 12 * 64 * 192, rel=1e-6)
    assert rows['transformer']['macs'] == pytest.approx(483.82e6, rel=0.01)
    assert rows['transformer']['params']['neck'] > 0
    assert rows['two-stream']['params']['neck'] == 0
    assert rows['transformer']['paper'] == '483.82 M'
    assert '483.82 M' in out.stdout and 'two-stream' in out.stdout


@pytest.mark.heavy
def test_default_lengths_leave_out_a_segment_each_side(tmp_path):
    run_tool(['tools/analysis/get_flops.py', VIT_T, '--out',
              tmp_path / 'f.json'])
    row = json.loads((tmp_path / 'f.json').read_text())['rows'][0]
    assert row['architecture'] == 'config'
    assert 300e6 < row['macs'] < 482e6
