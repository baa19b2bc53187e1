"""What the repository runs to measure and show randsac_mm, beside the
library: the benchmarks, the small-scale study and its report, the paper's
figures per config (from ``configs/metafile.yml``), and the demo.

A package of the checkout, not installed with ``randsac_mm``: the tools
that run it (``tools/demo.py``, ``tools/benchmarks/*``,
``tools/analysis/{blob_counts,get_flops}.py``) put the checkout on
``sys.path``, and the tests import it from there. It imports the library;
the library never imports it (docs/architecture.md).
"""
import os.path as osp

# The checkout this package belongs to: configs/, tests/ (the reference
# model of the throughput benchmark).
REPO_ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
