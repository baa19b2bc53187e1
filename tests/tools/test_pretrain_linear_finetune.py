"""The pretrain -> linear -> fine-tune chain, end to end."""
import json

import pytest

from ..conftest import run_tool

pytestmark = pytest.mark.heavy

DEMO = 'configs/demo/'


def test_chain_prints_linear_and_finetune_results(tmp_path):
    quick = ['train_cfg.max_epochs=1', 'train_dataloader.dataset.indices=128']
    out = run_tool([
        'tools/pretrain_linear_finetune.py',
        # Its evaluation configs: the ones the config names.
        DEMO + 'randsac_vit-mini-p4_square-16to4_digits.py',
        '--work-dir', tmp_path, '--device', 'cpu',
        '--pretrain-options', *quick, '--linear-options', *quick,
        '--finetune-options', *quick
    ])
    results = json.loads((tmp_path / 'results.json').read_text())
    assert results['checkpoint'].endswith('epoch_1.pth')
    for stage in ('linear', 'finetune'):
        accuracy = results[stage]['accuracy/top1']
        assert 0 <= accuracy <= 100
        assert f'| {stage} | accuracy/top1 {accuracy:.2f} |' in out.stdout
