"""The configs' style (docs DESIGN.md, "Configs"): a leaf config states only
what its paper row changes on top of its bases. It restates no pipeline (a
leaf changes a step, e.g. the segment layout, with a comprehension over its
base's pipeline) and no schedule (optimizer, lr schedule and loop live in
configs/_base_/schedules/), in mmengine's old config style throughout.

Parsing only (``ast`` and ``Config.fromfile``): nothing is built. A leaf is
any .py under configs/ outside a ``_base_`` directory."""
import ast
import functools
import os.path as osp
from glob import glob

import pytest
from mmengine.config import Config

from ..conftest import REPO_ROOT

CONFIG_DIR = osp.join(REPO_ROOT, 'configs')
SCHEDULE_DIR = osp.join(CONFIG_DIR, '_base_', 'schedules')
ALL_FILES = sorted(glob(osp.join(CONFIG_DIR, '**', '*.py'), recursive=True))
LEAVES = [p for p in ALL_FILES
          if '_base_' not in osp.relpath(p, CONFIG_DIR).split(osp.sep)]
# Keys that make up a schedule; a leaf may adjust them (a derived or
# partial override), never define them from scratch.
SCHEDULE_KEYS = ('optim_wrapper', 'param_scheduler', 'train_cfg')


def name(path):
    return osp.relpath(path, CONFIG_DIR)


def load(path):
    """The resolved config, without importing its custom_imports."""
    return Config.fromfile(path, import_custom_modules=False)


@functools.lru_cache(maxsize=None)
def parse(path):
    with open(path) as f:
        return ast.parse(f.read(), filename=path)


def top_level_assignments(path):
    """{variable: value node} of the module's top-level assignments."""
    out = {}
    for node in parse(path).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value
    return out


def literal_types(node):
    """The ``type`` of every literal ``dict(type='...')`` or
    ``{'type': '...'}`` inside ``node``."""
    types = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) \
                and sub.func.id == 'dict':
            for kw in sub.keywords:
                if kw.arg == 'type' and isinstance(kw.value, ast.Constant):
                    types.add(kw.value.value)
        elif isinstance(sub, ast.Dict):
            for key, value in zip(sub.keys, sub.values):
                if isinstance(key, ast.Constant) and key.value == 'type' \
                        and isinstance(value, ast.Constant):
                    types.add(value.value)
    return types


def direct_bases(path):
    node = top_level_assignments(path).get('_base_')
    if node is None:
        return []
    names = ast.literal_eval(node)
    if isinstance(names, str):
        names = [names]
    return [osp.normpath(osp.join(osp.dirname(path), n)) for n in names]


def all_bases(path):
    out = []
    for base in direct_bases(path):
        out += [base] + all_bases(base)
    return out


@functools.lru_cache(maxsize=None)
def pipeline_step_types(path):
    """The transform types of every pipeline (a ``pipeline`` or
    ``*_pipeline`` list, at any depth) of the resolved config at ``path``."""
    types = set()

    def visit(value, key=''):
        if isinstance(value, dict):
            for k, v in value.items():
                visit(v, str(k))
        elif isinstance(value, (list, tuple)):
            if key == 'pipeline' or key.endswith('_pipeline'):
                types.update(step['type'] for step in value
                             if isinstance(step, dict) and 'type' in step)
            for v in value:
                visit(v)

    visit(load(path).to_dict())
    return frozenset(types)


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_restates_no_pipeline_step_of_its_bases(path):
    """A leaf writes no literal step (``dict(type='PackInputs', ...)``,
    ``dict(type='RandSACSegmentGenerator', ...)``, ...) of a type that a
    pipeline of its bases already has: it changes the base's steps with a
    comprehension over the base's pipeline instead of restating it."""
    in_bases = set()
    for base in direct_bases(path):
        in_bases |= pipeline_step_types(base)
    restated = literal_types(parse(path)) & in_bases
    assert not restated, (
        f'{name(path)} restates pipeline steps {sorted(restated)} that its '
        'bases define; change them with a comprehension over '
        '_base_.<pipeline> instead')


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_takes_its_schedule_from_a_schedule_base(path):
    """A leaf defines no optimizer, lr scheduler or training loop (no
    literal ``type`` in its ``optim_wrapper``, ``param_scheduler`` or
    ``train_cfg``; a partial or derived change such as
    ``train_cfg = dict(max_epochs=10)`` is its row's business), and a leaf
    that trains inherits a base under configs/_base_/schedules/."""
    assignments = top_level_assignments(path)
    wholesale = {key: sorted(literal_types(assignments[key]))
                 for key in SCHEDULE_KEYS
                 if key in assignments and literal_types(assignments[key])}
    assert not wholesale, (
        f'{name(path)} defines its schedule wholesale {wholesale}; it '
        'belongs in configs/_base_/schedules/')
    if 'train_cfg' in load(path):
        schedules = [b for b in all_bases(path)
                     if osp.dirname(b) == SCHEDULE_DIR]
        assert schedules, (f'{name(path)} trains without a base under '
                           'configs/_base_/schedules/')


def test_only_schedule_bases_define_schedules():
    """No model, data set, runtime or intermediate base sets a schedule
    key: a schedule lives in configs/_base_/schedules/ only."""
    offenders = {
        name(path): sorted(set(top_level_assignments(path)) &
                           set(SCHEDULE_KEYS))
        for path in ALL_FILES
        if path not in LEAVES and osp.dirname(path) != SCHEDULE_DIR}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, offenders


@pytest.mark.parametrize('path', ALL_FILES, ids=name)
def test_one_config_style(path):
    """mmengine's old style everywhere: ``_base_`` is a list of paths, no
    new-style ``read_base()`` imports, and base variables are referenced as
    ``_base_.name`` python expressions, not ``{{_base_.name}}`` text
    substitution."""
    with open(path) as f:
        text = f.read()
    assert 'read_base' not in text, name(path)
    assert '{{' not in text, (
        f'{name(path)}: use _base_.name, not {{{{_base_.name}}}}')
    node = top_level_assignments(path).get('_base_')
    if node is not None:
        assert isinstance(node, ast.List), name(path)
        assert all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                   for e in node.elts), name(path)
