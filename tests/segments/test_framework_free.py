"""randsac_mm/segments imports numpy and the standard library only."""
import ast
import os.path as osp
import subprocess
import sys
from glob import glob

import randsac_mm

SEGMENTS_DIR = osp.join(osp.dirname(randsac_mm.__file__), 'segments')


def test_segments_sources_import_only_numpy_and_stdlib():
    allowed = {'numpy', 'dataclasses', 'math'}
    for path in glob(osp.join(SEGMENTS_DIR, '*.py')):
        for node in ast.walk(ast.parse(open(path).read())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split('.')[0] in allowed, f'{path}: {name}'


def test_segments_import_standalone_without_torch_or_mmengine():
    code = (
        'import sys; sys.path.insert(0, sys.argv[1]); import segments, numpy;'
        'spec = segments.SegmentSpec((8, 8), "blob", num_segments=11, '
        'hierarchy=(5,));'
        'segments.make_layout(spec, numpy.random.default_rng(0));'
        'bad = [m for m in sys.modules if m.split(".")[0] in '
        '("torch", "mmengine", "mmcv", "mmpretrain", "randsac_mm")];'
        'assert not bad, bad')
    subprocess.run([sys.executable, '-c', code, osp.dirname(SEGMENTS_DIR)],
                   check=True)
