"""The configs' style: flat, and each fact once (docs/architecture.md,
"Configs", points here: these rules are the reference).

- A leaf (any .py under configs/ outside a ``_base_`` directory) states
  only what its paper row changes, at most three ``_base_`` hops above it
  (leaf -> experiment base -> schedule -> shared optimizer, at most).
- Bases are of one kind each and stand alone as far as their kind allows:
  a data set base inherits nothing (another data set's change cannot reach
  it unseen); a schedule base inherits other schedule bases only (the
  shared optimizer), never the runtime. A config that trains lists
  ``_base_/default_runtime.py`` itself (or through its experiment base)
  and merges its schedule's checkpoint and log intervals into the
  runtime's hooks with ``default_hooks = _base_.schedule_hooks`` (mmengine
  refuses a key that two bases of one config both define).
- A leaf restates no pipeline step and no schedule of its bases. A RandSAC
  pretraining leaf states its segment layout in one
  ``randsac_mm.segments.config.with_segments`` call (which also sets the
  layout step's token grid where the encoder changes it); a comprehension
  over a pipeline may only drop that step (MAE).
- An encoder's shape is named once: by mmpretrain's arch_zoo name where the
  zoo has it, else as one arch dict under configs/_base_/models/ that its
  users inherit or reference (``_base_.encoder_arch``); elsewhere a config
  may change ``num_layers`` only.
- The paper's figures live in configs/metafile.yml only: config comments
  cite the table and row by name, never a figure, and each config the
  metafile names exists, agrees with its metadata and cites its rows.
- mmengine's old config style throughout.

Parsing only (``ast``, ``tokenize``, ``Config.fromfile`` without custom
imports, the metafile's YAML): nothing is built."""
import ast
import functools
import io
import os.path as osp
import re
import tokenize
from glob import glob

import pytest
import yaml
from mmengine.config import Config
from mmpretrain.models import VisionTransformer

from randsac_mm.analysis.paper import PAPER_RESULTS
from randsac_mm.segments.config import GRID_KEYS, LAYOUT_STEP

from ..conftest import REPO_ROOT

CONFIG_DIR = osp.join(REPO_ROOT, 'configs')
BASE_DIR = osp.join(CONFIG_DIR, '_base_')
SCHEDULE_DIR = osp.join(BASE_DIR, 'schedules')
DATASET_DIR = osp.join(BASE_DIR, 'datasets')
NORMALISATION_DIR = osp.join(BASE_DIR, 'normalisation')
MODEL_DIR = osp.join(BASE_DIR, 'models')
RUNTIME = osp.join(BASE_DIR, 'default_runtime.py')
METAFILE = osp.join(CONFIG_DIR, 'metafile.yml')
ALL_FILES = sorted(glob(osp.join(CONFIG_DIR, '**', '*.py'), recursive=True))
LEAVES = [p for p in ALL_FILES
          if '_base_' not in osp.relpath(p, CONFIG_DIR).split(osp.sep)]
# Keys that make up a schedule; a leaf may adjust them (a derived or
# partial override), never define them from scratch.
SCHEDULE_KEYS = ('optim_wrapper', 'param_scheduler', 'train_cfg')
MAX_DEPTH = 3
GRID_KEYS = set(GRID_KEYS)
SHAPE_KEYS = {'embed_dims', 'num_heads', 'feedforward_channels'}


def name(path):
    return osp.relpath(path, CONFIG_DIR)


@functools.lru_cache(maxsize=None)
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


def longest_chain(path):
    """The longest ``_base_`` chain from ``path`` up, ``path`` first."""
    chains = [[path] + longest_chain(base) for base in direct_bases(path)]
    return max(chains, key=len, default=[path])


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


def layout_step(path):
    """The resolved training pipeline's layout step (on the batch path:
    the data set's layout arguments), or None."""
    dataset = load(path).train_dataloader.dataset
    if dataset.type == 'InMemoryBatchImages':
        return dataset.layout and dict(dataset.layout.to_dict(),
                                       type=LAYOUT_STEP)
    steps = [step for step in dataset.pipeline
             if step['type'] == LAYOUT_STEP]
    return steps[0].to_dict() if steps else None


def calls(path, function):
    return [node for node in ast.walk(parse(path))
            if isinstance(node, ast.Call) and
            isinstance(node.func, ast.Name) and node.func.id == function]


def pipeline_comprehensions(path):
    """List comprehensions that iterate over a pipeline."""
    out = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.ListComp):
            source = ast.unparse(node.generators[0].iter)
            if 'pipeline' in source:
                out.append(node)
    return out


# -- flat -------------------------------------------------------------------

@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_is_at_most_three_bases_deep(path):
    chain = longest_chain(path)
    assert len(chain) - 1 <= MAX_DEPTH, ' -> '.join(map(name, chain))


def test_no_data_set_base_inherits_another():
    """Each data set base stands alone: a change to CIFAR's pipeline must
    not reach Fashion-MNIST's or the demo's unseen. It may take its pixel
    statistics from a normalisation base (statistics only, no pipeline),
    which the transfers of its encoders share."""
    inheriting = {name(p): [name(b) for b in direct_bases(p)
                            if osp.dirname(b) != NORMALISATION_DIR]
                  for p in ALL_FILES if osp.dirname(p) == DATASET_DIR}
    assert not {k: v for k, v in inheriting.items() if v}, inheriting


def test_normalisation_bases_hold_statistics_only():
    for path in ALL_FILES:
        if osp.dirname(path) == NORMALISATION_DIR:
            cfg = load(path)
            assert not direct_bases(path), name(path)
            assert all(k.endswith(('_mean', '_std')) for k in cfg), \
                name(path)


def test_schedules_inherit_at_most_the_shared_optimizer():
    """A schedule base inherits schedule bases only (the shared optimizer,
    or a schedule it lengthens), never the runtime: a config that trains
    in mmpretrain's scope lists the runtime itself."""
    for path in ALL_FILES:
        if osp.dirname(path) != SCHEDULE_DIR:
            continue
        bases = all_bases(path)
        assert RUNTIME not in bases, name(path)
        assert all(osp.dirname(b) == SCHEDULE_DIR for b in bases), name(path)
    for path in LEAVES:
        if 'train_cfg' in load(path) and load(path).get(
                'default_scope') == 'mmpretrain':
            assert RUNTIME in all_bases(path), name(path)


def nested_in(small, big):
    if isinstance(small, dict):
        return isinstance(big, dict) and all(
            k in big and nested_in(v, big[k]) for k, v in small.items())
    return small == big


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_schedule_hooks_reach_the_runtime(path):
    """The schedule's checkpoint and log intervals are the run's (a config
    that lists runtime and schedule says ``default_hooks =
    _base_.schedule_hooks``)."""
    cfg = load(path)
    if 'schedule_hooks' in cfg:
        assert nested_in(cfg.schedule_hooks.to_dict(),
                         cfg.default_hooks.to_dict()), name(path)


# -- each fact once -----------------------------------------------------------

@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_restates_no_pipeline_step_of_its_bases(path):
    """A leaf writes no literal step (``dict(type='PackInputs', ...)``,
    ``dict(type='RandSACSegmentGenerator', ...)``, ...) of a type that a
    pipeline of its bases already has: it changes its bases' pipeline
    instead (with_segments for the layout)."""
    in_bases = set()
    for base in direct_bases(path):
        in_bases |= pipeline_step_types(base)
    restated = literal_types(parse(path)) & in_bases
    assert not restated, (
        f'{name(path)} restates pipeline steps {sorted(restated)} that its '
        'bases define; change them on _base_.<pipeline> instead')


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_states_its_segment_layout_in_one_with_segments_call(path):
    """A leaf that sets a layout calls with_segments once; one that keeps
    its base leaf's layout (a strategy or data change), or has none,
    calls it not at all."""
    count = len(calls(path, 'with_segments'))
    assert count <= 1, name(path)
    step = layout_step(path)
    inherited = [layout_step(b) for b in direct_bases(path)
                 if 'train_dataloader' in load(b)]
    if step is None:
        assert count == 0, f'{name(path)} has no layout step to set'
    elif step not in inherited:
        assert count == 1, (f'{name(path)} sets its segment layout without '
                            'with_segments')
    if step is not None:
        assert set(step) - {'type'} - GRID_KEYS, (
            f'{name(path)}: its layout step has the token grid only')


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_leaf_comprehends_a_pipeline_only_to_drop_the_layout(path):
    for node in pipeline_comprehensions(path):
        where = ast.unparse(node)
        assert not isinstance(node.elt, ast.IfExp), (
            f'{name(path)} changes pipeline steps in a comprehension: set '
            f'the layout and its token grid with with_segments ({where})')
        [condition] = node.generators[0].ifs  # [step for ... if not layout]
        assert ast.unparse(condition) == \
            f"step['type'] != '{LAYOUT_STEP}'", (name(path), where)


def test_with_segments_is_imported_after_base_and_nothing_else_is():
    """mmengine takes a config whose first import comes before ``_base_``
    for its new (lazy-import) style; the one import allowed is the
    framework-free with_segments."""
    for path in ALL_FILES:
        body = parse(path).body
        imports = [i for i, node in enumerate(body)
                   if isinstance(node, (ast.Import, ast.ImportFrom))]
        if not imports:
            continue
        base = next(i for i, node in enumerate(body)
                    if isinstance(node, ast.Assign) and
                    getattr(node.targets[0], 'id', None) == '_base_')
        assert base < imports[0], name(path)
        for i in imports:
            assert ast.unparse(body[i]) == (
                'from randsac_mm.segments.config import with_segments'), \
                name(path)


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


def arch_values(path):
    """Every ``arch`` value written in the file (keyword or dict key)."""
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.keyword) and node.arg == 'arch':
            yield node.value
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == 'arch':
                    yield value


def written_keys(node):
    if isinstance(node, ast.Call):
        return {kw.arg for kw in node.keywords if kw.arg}
    if isinstance(node, ast.Dict):
        return {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return set()


@pytest.mark.parametrize('path', ALL_FILES, ids=name)
def test_encoder_shape_is_written_in_model_bases_only(path):
    """Outside configs/_base_/models/, an arch is a zoo name, a model
    base's arch (``_base_.encoder_arch``, or inherited), or a change of
    ``num_layers``; never a width, head count or MLP size."""
    if path.startswith(MODEL_DIR + osp.sep):
        return
    for value in arch_values(path):
        restated = written_keys(value) & SHAPE_KEYS
        assert not restated, (
            f'{name(path)} writes an encoder shape ({sorted(restated)}); '
            'name it in mmpretrain\'s arch_zoo or in a model base')


def test_each_shape_is_a_zoo_name_or_written_once():
    zoo = {tuple(sorted(a.items())) for a in
           VisionTransformer.arch_zoo.values()}
    seen = {}
    for path in ALL_FILES:
        if not path.startswith(MODEL_DIR + osp.sep):
            continue
        for value in arch_values(path):
            if isinstance(value, ast.Constant):
                assert value.value in VisionTransformer.arch_zoo, name(path)
                continue
            keys = written_keys(value) - {'_delete_'}
            if keys & SHAPE_KEYS:
                shape = tuple(sorted(
                    (kw.arg, kw.value.value) for kw in value.keywords
                    if kw.arg != '_delete_'))
                assert shape not in zoo, (
                    f'{name(path)}: {dict(shape)} is in mmpretrain\'s '
                    'arch_zoo; use its name')
                assert shape not in seen, (name(path), seen.get(shape))
                seen[shape] = name(path)


@pytest.mark.parametrize('path', LEAVES, ids=name)
def test_every_arch_name_is_in_the_zoo(path):
    def visit(value):
        if isinstance(value, dict):
            arch = value.get('arch')
            if isinstance(arch, str):
                assert arch.lower() in VisionTransformer.arch_zoo, name(path)
            for v in value.values():
                visit(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
    visit(load(path).to_dict().get('model'))


# -- the paper's figures: configs/metafile.yml --------------------------------

@functools.lru_cache(maxsize=None)
def metafile():
    with open(METAFILE) as f:
        return yaml.safe_load(f)


def comments(path):
    with open(path) as f:
        return [tok.string for tok in tokenize.generate_tokens(
            io.StringIO(f.read()).readline) if tok.type == tokenize.COMMENT]


def figures():
    """Every figure of the metafile, as the paper prints it or as a float."""
    out = set()
    for model in metafile()['Models']:
        for result in model.get(PAPER_RESULTS) or []:
            out.update(result['Metrics'].values())
    return out


# A result-like number: a percentage with decimals (82.52, 93.9), or a
# FLOPs or parameter count (6.77 G, 499.60 M, 30M).
RESULT_LIKE = re.compile(
    r'(?<![\w.])(\d{2,3}\.\d{1,2}|\d+(?:\.\d+)? ?[MG])(?![\w.])')


@pytest.mark.parametrize('path', ALL_FILES, ids=name)
def test_no_paper_figure_in_config_comments(path):
    """Headers cite a table and row (Table "Segment Coherence", K=7); its
    figures are in configs/metafile.yml only."""
    known = figures()
    for comment in comments(path):
        for match in RESULT_LIKE.findall(comment):
            number = match.rstrip(' MG')
            assert match not in known and float(number) not in known, (
                f'{name(path)}: {match!r} in {comment!r}; paper figures '
                'belong in configs/metafile.yml')


def test_every_config_of_the_metafile_exists_and_is_named_after_it():
    models = metafile()['Models']
    assert len({m['Name'] for m in models}) == len(models)
    for model in models:
        path = osp.join(REPO_ROOT, model['Config'])
        assert osp.isfile(path), model['Config']
        assert osp.basename(path) == model['Name'] + '.py', model['Name']


def pretraining(path):
    return layout_step(path) is not None or \
        load(path).model.type == 'MAEMatchedToRandSAC'


def test_every_pretraining_config_is_in_the_metafile():
    named = {osp.join(REPO_ROOT, m['Config']) for m in metafile()['Models']}
    missing = [name(p) for p in LEAVES
               if load(p).get('default_scope') == 'mmpretrain' and
               pretraining(p) and p not in named]
    assert not missing, missing


@pytest.mark.parametrize('model', metafile()['Models'],
                         ids=lambda m: m['Name'])
def test_metafile_metadata_is_the_configs(model):
    cfg = load(osp.join(REPO_ROOT, model['Config']))
    meta = model['Metadata']
    assert meta['Batch Size'] == cfg.auto_scale_lr.base_batch_size
    if 'Iterations' in meta:
        assert meta['Iterations'] == cfg.train_cfg.max_iters
    else:
        assert meta['Epochs'] == cfg.train_cfg.max_epochs


@pytest.mark.parametrize('model', metafile()['Models'],
                         ids=lambda m: m['Name'])
def test_config_header_cites_the_table_and_row_of_each_figure(model):
    """The header (the comments the file starts with) names each paper
    table and row the metafile gives figures of, or scales down."""
    lines = []
    with open(osp.join(REPO_ROOT, model['Config'])) as f:
        for line in f:
            if not line.startswith('#'):
                break
            lines.append(line.lstrip('# ').strip())
    header = ' '.join(lines)
    cited = [r['Paper'] for r in model.get(PAPER_RESULTS) or []]
    if 'Scales Down' in model:
        cited.append(model['Scales Down']['Paper'])
    for paper in cited:
        assert f'"{paper["Table"]}"' in header, (model['Name'], paper)
        assert paper['Row'] in header, (model['Name'], paper)


# -- one style ----------------------------------------------------------------

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
