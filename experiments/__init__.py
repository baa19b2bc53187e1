"""What the repository runs to measure and show randsac_mm, beside the
library: the benchmarks, the small-scale study and its report, and the demo.

A package of the checkout, not installed with ``randsac_mm``. Its commands
are its modules, run from the repository root, which ``python -m`` puts on
``sys.path`` (so ``experiments`` and the tests' reference model import)::

    python -m experiments.demo --work-dir work_dirs/demo
    python -m experiments.study --quick

The tests import it from there too. It imports the library; the library
never imports it (docs/architecture.md).
"""
import os.path as osp

# The checkout this package belongs to: configs/, tests/ (the reference
# model of the throughput benchmark).
REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
