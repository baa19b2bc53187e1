"""The package's architecture, read from its imports: every module imports
only from its own concept package or from the layers below it, so there
is no import circle between packages and nothing imports upwards.

Layers, bottom to top (docs/architecture.md):

0. ``extension_registry`` (the registry of every extension point, plain
   Python), ``version``, ``version_check``, ``installed_files`` (where the
   installed configs and tools are), ``precision`` (which precision a device
   runs in: torch only), ``argument_limits`` (what a constructor argument
   may be, and the error refusing one)
1. ``segments`` (numpy only)
2. ``checkpoint`` (torch and mmengine only: the encoders refuse bad
   checkpoints through it, the tools convert with it)
3. ``datasets`` (transforms and data sets)
4. ``models``
5. ``engine``, ``evaluation``, ``visualization`` (siblings: none imports
   another)
6. ``registration`` (registers all of the above into mmpretrain)
7. ``downstream`` (mmseg and mmdet)
8. ``apis`` (what a user's script calls: building and loading models)
9. ``analysis`` (the memory and FLOPs of a config's step)
10. ``cli`` (the command lines' building blocks: a mistake in one line,
    how a tool runs, arguments, paths, the device, a config read and the
    flags that make a run's config)
11. ``run`` (what runs a config with mmengine's Runner: its kind, the
    preflight that builds the run's parts, the runner, the process group,
    the torchrun launcher, the work dir's lock)

Within a package, modules import each other without a circle either, and
nothing in the package imports the checkout's ``tests`` or ``experiments``
or finds files through a path above its own folder.
"""
import ast
import os.path as osp
from glob import glob

import pytest

from .conftest import REPO_ROOT

PACKAGE = osp.join(REPO_ROOT, 'randsac_mm')
LAYERS = {
    'extension_registry': 0, 'version': 0, 'version_check': 0,
    'installed_files': 0, 'precision': 0, 'signals': 0,
    'argument_limits': 0,
    'segments': 1,
    'checkpoint': 2,
    'datasets': 3,
    'models': 4,
    'engine': 5, 'evaluation': 5, 'visualization': 5,
    'registration': 6,
    'downstream': 7,
    'apis': 8,
    'analysis': 9,
    'cli': 10,
    'run': 11,
}


def concept(module):
    """'randsac_mm.models.necks.x' -> 'models'; the root -> None."""
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else None


def module_name(path):
    rel = osp.relpath(path, REPO_ROOT)[:-3].replace(osp.sep, '.')
    return rel[:-len('.__init__')] if rel.endswith('.__init__') else rel


def package_imports(path, root='randsac_mm'):
    """The modules of package ``root`` that ``path`` imports (anywhere in
    the file: function-level imports count too)."""
    name = module_name(path)
    is_package = path.endswith('__init__.py')
    base = name.split('.') if is_package else name.split('.')[:-1]
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.split('.')[0] == root]
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
            if target.split('.')[0] == root:
                found.append(target)
    return name, found


def checkout_imports(path):
    """The top-level names ``path`` imports that are packages of the
    checkout, not of the installed library."""
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append(node.module or '')
    return sorted({f for f in found
                   if f.split('.')[0] in ('tests', 'experiments', 'tools')})


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
    path = osp.join(PACKAGE, 'analysis', 'memory.py')
    _, imports = package_imports(path)
    assert 'randsac_mm.engine.fsdp_wrap_policy' in imports
    path = osp.join(PACKAGE, 'downstream', '__init__.py')
    _, imports = package_imports(path)
    assert 'randsac_mm.registration' in imports
    assert 'randsac_mm.version_check' in imports


def import_graph(paths=MODULES, root='randsac_mm'):
    """Every module's imports of other modules of ``root`` (a ``from
    package import name`` counts as importing the package, and the module
    ``package.name`` when it is one)."""
    names = {module_name(p) for p in paths}
    graph = {}
    for path in paths:
        name, imports = package_imports(path, root)
        edges = set()
        for target in imports:
            while target not in names and '.' in target:
                target = target.rsplit('.', 1)[0]
            if target in names and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """One import circle of ``graph`` as a list of modules, or None."""
    state = {}

    def visit(node, stack):
        state[node] = 'open'
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 'open':
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, stack)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 'done'
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def test_no_import_circle_within_or_between_packages():
    """A package's ``__init__`` that imports its modules, which import
    each other through the package, is the usual way; only a circle of
    modules importing each other is refused (e.g. study <-> study_report
    used to be one)."""
    assert_no_circle(import_graph())


def assert_no_circle(graph):
    # A package's __init__ re-exports its modules: an edge from a module to
    # its own package's __init__ is a re-export lookup, not a circle.
    for name, edges in graph.items():
        graph[name] = {t for t in edges if not name.startswith(t + '.')}
    assert find_cycle(graph) is None, ' -> '.join(find_cycle(graph))


EXPERIMENTS = sorted(glob(osp.join(REPO_ROOT, 'experiments', '**', '*.py'),
                          recursive=True))
CHECKOUT_CODE = MODULES + EXPERIMENTS + sorted(
    glob(osp.join(REPO_ROOT, 'tools', '**', '*.py'), recursive=True))


def test_no_import_circle_in_experiments():
    """The experiments' modules import each other without a circle (e.g.
    transfer_small <-> its pictures and readout used to be one)."""
    assert_no_circle(import_graph(EXPERIMENTS, 'experiments'))


def test_nothing_outside_tests_imports_tests():
    """What the tests check does not depend on the tests: a helper that
    both need lives in the library or in experiments (the throughput
    benchmark's reference model used to be imported from tests/)."""
    assert [osp.relpath(p, REPO_ROOT) for p in CHECKOUT_CODE
            if any(i.split('.')[0] == 'tests'
                   for i in checkout_imports(p))] == []


def test_the_circle_finder_finds_a_circle():
    graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}
    assert find_cycle(graph) == ['a', 'b', 'c', 'a']
    assert find_cycle({'a': {'b'}, 'b': set()}) is None


@pytest.mark.parametrize('path', MODULES,
                         ids=lambda p: osp.relpath(p, PACKAGE))
def test_the_library_does_not_reach_into_the_checkout(path):
    """The library is what a wheel installs: it does not import the
    checkout's tests, experiments or tools, nor find files beside its own
    folder (configs come from ``randsac_mm/.mim``, see
    ``randsac_mm.installed_files``)."""
    assert checkout_imports(path) == []
    source = open(path).read()
    assert 'REPO_ROOT' not in source
    depth = source.count('osp.dirname(osp.dirname(')
    assert depth == 0, f'{path} climbs above its folder'
