"""The one reader of checkpoint files reads what training writes, in a
script that imported nothing else of randsac_mm."""
import subprocess
import sys

import numpy as np
import pytest
import torch
from mmengine.logging import HistoryBuffer

from ..conftest import REPO_ROOT


@pytest.mark.heavy
def test_a_training_checkpoint_reads_with_no_registration_imported(
        tmp_path):
    """mmengine's checkpoints hold its message hub (HistoryBuffers, numpy
    scalars and arrays), which torch's weights-only load refuses unless
    allowed: the reader allows them itself."""
    buffer = HistoryBuffer()
    buffer.update(1.5)
    path = tmp_path / 'epoch_1.pth'
    torch.save(dict(state_dict={'w': torch.ones(2)},
                    message_hub=dict(log_scalars={'train/loss': buffer}),
                    meta=dict(epoch=1, seed=np.int64(0),
                              mean=np.zeros(3))), path)
    code = ('from randsac_mm.checkpoint.reading import read_checkpoint\n'
            f'loaded, state = read_checkpoint({str(path)!r}, "checkpoint")\n'
            'print(sorted(state), loaded["meta"]["epoch"])')
    proc = subprocess.run([sys.executable, '-c', code], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "['w'] 1"
