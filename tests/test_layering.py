"""The package's architecture, read from its imports: every module imports
only from its own concept package or from the layers below it, so there
is no import circle between packages and nothing imports upwards.

Layers, bottom to top (docs/architecture.md):

0. ``segments`` (numpy only), ``version``, ``version_check``
1. ``checkpoint`` (torch and mmengine only: the encoders refuse bad
   checkpoints through it, the tools convert with it)
2. ``datasets`` (transforms and data sets)
3. ``models``
4. ``engine``, ``evaluation``, ``visualization`` (siblings: none imports
   another)
5. ``registration`` (registers all of the above into mmpretrain)
6. ``downstream`` (mmseg and mmdet)
7. ``apis`` (what the tools share)
"""
import ast
import os.path as osp
from glob import glob

import pytest

from .conftest import REPO_ROOT

PACKAGE = osp.join(REPO_ROOT, 'randsac_mm')
LAYERS = {
    'segments': 0, 'version': 0, 'version_check': 0,
    'checkpoint': 1,
    'datasets': 2,
    'models': 3,
    'engine': 4, 'evaluation': 4, 'visualization': 4,
    'registration': 5,
    'downstream': 6,
    'apis': 7,
}


def concept(module):
    """'randsac_mm.models.necks.x' -> 'models'; the root -> None."""
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else None


def module_name(path):
    rel = osp.relpath(path, REPO_ROOT)[:-3].replace(osp.sep, '.')
    return rel[:-len('.__init__')] if rel.endswith('.__init__') else rel


def package_imports(path):
    """The randsac_mm modules ``path`` imports (anywhere in the file:
    function-level imports count too)."""
    name = module_name(path)
    is_package = path.endswith('__init__.py')
    base = name.split('.') if is_package else name.split('.')[:-1]
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.startswith('randsac_mm')]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[:len(base) - node.level + 1]
                target = '.'.join(parent + ([node.module] if node.module
                                            else []))
                if node.module is None:  # from .. import x, y
                    found += [f'{target}.{a.name}' for a in node.names]
                    continue
            else:
                target = node.module or ''
            if target.startswith('randsac_mm'):
                found.append(target)
    return name, found


MODULES = sorted(glob(osp.join(PACKAGE, '**', '*.py'), recursive=True))


def test_every_concept_package_has_a_layer():
    packages = {concept(module_name(p)) for p in MODULES} - {None}
    assert packages == set(LAYERS), packages ^ set(LAYERS)


@pytest.mark.parametrize('path', MODULES,
                         ids=lambda p: osp.relpath(p, PACKAGE))
def test_imports_go_down_or_stay_in_the_package(path):
    name, imports = package_imports(path)
    own = concept(name)
    for target in imports:
        other = concept(target)
        if other is None or other == own:
            continue
        if own is None:  # the root package imports only the version
            assert other == 'version', f'{name} imports {target}'
            continue
        assert LAYERS[other] < LAYERS[own], (
            f'{name} (layer {LAYERS[own]}, {own}) imports {target} (layer '
            f'{LAYERS[other]}, {other}): an upward or sideways import')


def test_the_checker_sees_relative_and_late_imports(tmp_path):
    """The parser resolves relative imports, and imports inside functions
    count, so the test above is not vacuous."""
    path = osp.join(PACKAGE, 'engine', 'fsdp_wrap_policy.py')
    _, imports = package_imports(path)
    assert 'randsac_mm.models.necks.randsac_decoder' in imports
    path = osp.join(PACKAGE, 'downstream', '__init__.py')
    _, imports = package_imports(path)
    assert 'randsac_mm.registration' in imports
    assert 'randsac_mm.version_check' in imports
