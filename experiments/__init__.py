"""What the repository runs to measure and show randsac_mm, beside the
library: the demo (``demo``), the studies (``study`` and its report, the
paper-scale plan ``paper_scale``, the dense transfer study
``transfer_small/``), the benchmarks (``benchmarks/``), the reference model
the benchmark and the tests compare against (``reference_randsac``), and
what they share (``benchmark_io``, ``scalars``, ``cells``, the digit
scenes).

A package of the checkout, not installed with ``randsac_mm``. Its commands
are its modules, run from the repository root, which ``python -m`` puts on
``sys.path`` (so ``experiments`` imports)::

    python -m experiments.demo --work-dir work_dirs/demo
    python -m experiments.small_scale --quick

The test suite loads it from there too. It imports the library; the library
never imports it (docs/architecture.md).
"""
import os.path as osp

# The checkout this package belongs to (its configs/ and docs/).
REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
