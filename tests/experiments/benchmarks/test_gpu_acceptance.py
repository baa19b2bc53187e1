"""The acceptance run of a GPU node (``python -m
experiments.benchmarks.gpu_acceptance``): its refusals. What its CPU form
(``--smoke``) measures and writes is tested on the smoke GPU window's run of
it (tests/tools/test_gpu_window.py), which brings it back."""
import re

import pytest

from ...conftest import run_tool

pytestmark = pytest.mark.heavy
ACCEPTANCE = ['-m', 'experiments.benchmarks.gpu_acceptance']


@pytest.mark.parametrize('argv, message', [
    (['--iters', '5', '--warmup', '5'],
     'argument --warmup: must be >= 0 and below --iters (5), got 5'),
    (['--images', '0'], 'argument --images: must be >= 1, got 0'),
    (['--peak-tflops', '-1'], 'argument --peak-tflops: must be > 0'),
])
def test_bad_arguments_are_refused(tmp_path, argv, message):
    with pytest.raises(pytest.fail.Exception, match=re.escape(message)):
        run_tool([*ACCEPTANCE, '--out', tmp_path, '--smoke', *argv])
