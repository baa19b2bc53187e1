"""randsac_mm/segments imports numpy and the standard library only."""
import ast
import os.path as osp
import subprocess
import sys
from glob import glob

import pytest

from ..conftest import REPO_ROOT

SEGMENTS_DIR = osp.join(REPO_ROOT, 'randsac_mm', 'segments')


def test_segments_sources_import_only_numpy_and_stdlib():
    allowed = {'numpy', 'dataclasses', 'inspect', 'math'}
    paths = glob(osp.join(SEGMENTS_DIR, '**', '*.py'), recursive=True)
    assert any('schemes' in path for path in paths)
    for path in paths:
        for node in ast.walk(ast.parse(open(path).read())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split('.')[0] in allowed, f'{path}: {name}'


FRAMEWORKS = ('torch', 'torchvision', 'mmengine', 'mmcv', 'mmpretrain',
              'mmseg', 'mmdet')


def loaded_after(code):
    """Top-level packages among FRAMEWORKS that a fresh interpreter has
    loaded after running ``code``."""
    probe = (f'{code}\nimport sys\n'
             'print(sorted({m.split(".")[0] for m in sys.modules}))')
    out = subprocess.run([sys.executable, '-c', probe], check=True,
                         capture_output=True, text=True).stdout
    return set(ast.literal_eval(out.splitlines()[-1])) & set(FRAMEWORKS)


@pytest.mark.heavy
def test_segments_import_as_users_do_without_torch_or_openmmlab():
    assert loaded_after(
        'import numpy\n'
        'from randsac_mm.segments import SegmentSpec, make_layout\n'
        'spec = SegmentSpec((8, 8), "blob", num_segments=11, '
        'hierarchy=(5,))\n'
        'make_layout(spec, numpy.random.default_rng(0))') == set()


@pytest.mark.heavy
def test_pretraining_registers_without_mmseg_or_mmdet():
    """Pretraining, probing and fine-tuning register where mmseg and mmdet
    are not installed (they are made unimportable here; mmpretrain's
    optional mmdet layer then skips itself), and randsac_mm itself imports
    neither: where they are installed, only mmpretrain's optional layer
    loads mmdet, and nothing loads mmseg."""
    assert 'mmpretrain' in loaded_after(
        'import sys\n'
        'sys.modules["mmseg"] = sys.modules["mmdet"] = None\n'
        'import randsac_mm.registration\n'
        'from mmpretrain.registry import MODELS\n'
        'assert MODELS.get("RandSAC") is not None')
    assert 'mmseg' not in loaded_after('import randsac_mm.registration')
