"""FSDP trains what DDP trains: two gloo processes on the CPU."""
import json
import sys

import pytest

from ..conftest import free_port, run_tool

pytestmark = pytest.mark.heavy


def test_fsdp_step_equals_ddp_step(tmp_path):
    run_tool([sys.executable, '-m', 'torch.distributed.run',
              '--nproc_per_node', '2', '--master_port', str(free_port()),
              'tests/engine/fsdp_worker.py', tmp_path],
             env={'PYTHONPATH': '.'}, timeout=300)
    ranks = [json.loads((tmp_path / f'rank{r}.json').read_text())
             for r in (0, 1)]
    for result in ranks:
        # 2 encoder + 2 decoder layers, each its own unit, and the root.
        assert result['units'] == 5
        # Step 1 runs the same weights; step 2 the weights after the same
        # averaged update: FSDP gathered every layer's shards.
        assert result['fsdp'] == pytest.approx(result['ddp'], rel=1e-5)
        for name, value in result['ddp_weights'].items():
            assert result['fsdp_weights'][name] == pytest.approx(
                value, rel=1e-4, abs=1e-5), name
        assert result['ddp'][1] != result['ddp'][0]  # the step trained
    # The logged loss is the mean over the processes
    # (MeanLogsOverProcessesHook).
    assert ranks[0]['fsdp'] == ranks[1]['fsdp']
