"""The paper's numbers for a config, read from the model index the package
installs (``configs/metafile.yml``, and ``configs/segmentation/`` and
``configs/detection/metafile.yml`` for the configs mmseg and mmdet build;
in ``randsac_mm/.mim``: see ``randsac_mm.installed_files``).

The metafile is the one place the paper's figures are written (config
headers cite the table and row by name). Each model there is one config;
its ``Paper Results`` are what the paper reports for that run, one entry
per table row (mmpretrain's ``Results`` are left to figures measured by
this code). For example, the linear probe of blob segments K=7 on CIFAR10
(Table "Segment Coherence"), and the same figure for the small-scale
variant that scales that row down::

    paper_figure('configs/pretrain/randsac_vit-tiny-p4_blob-k7_'
                 '8xb64-amp-800e_cifar10.py')                     # 82.52
    paper_figure('randsac_vit-mini-p4_blob-k7_fashion-mnist.py')  # 82.52

A config is named by its path (absolute, inside the installed
``configs`` folder, which in an editable install is the checkout's; or
relative, as ``configs/...`` or from ``configs/``), its file name, or its
model name (the file name without ``.py``). YAML only: no torch, no
OpenMMLab package.
"""
import copy
import difflib
import os
import os.path as osp

import yaml

from .. import installed_files

__all__ = ['FINETUNE', 'FLOPS_TABLE', 'LINEAR', 'METAFILE', 'PAPER_RESULTS',
           'PaperLookupError', 'find_model', 'load_metafile',
           'paper_architecture_flops', 'paper_figure', 'paper_flops',
           'paper_results']

METAFILE = osp.join(installed_files.MIM_ROOT, installed_files.METAFILE)
# The metric names of a pretraining run's evaluations.
LINEAR = 'Linear Probe Top 1 Accuracy'
FINETUNE = 'Fine-tune Top 1 Accuracy'
FLOPS_TABLE = 'FLOPs of Three Candidate Architectures'
RESULT_KEYS = ('Task', 'Dataset', 'Metrics', 'Paper')
# Where a model's paper figures are: not mmpretrain's ``Results``, which
# mim and model zoos read as what the model itself measured.
PAPER_RESULTS = 'Paper Results'

_cache = {}


class PaperLookupError(LookupError):
    """A config the metafile does not name."""


def load_metafile(metafile=None):
    """The parsed model index, checked.

    Args:
        metafile (str | None): a metafile's path; default: the installed
            package's index, its files (``installed_files.METAFILES``) as
            one.

    Returns:
        dict: ``Collections`` and ``Models`` (a copy: change it freely).

    Raises:
        FileNotFoundError: no file at the path.
        ValueError: a model without Name or Config, two models of one name,
            a result without Task, Dataset, Metrics or Paper (Table, Row),
            or a ``Scales Down`` that names no model's result.
    """
    # installed_path says how to install the package when .mim is missing.
    paths = [osp.abspath(metafile)] if metafile else [
        installed_files.installed_path(p) for p in installed_files.METAFILES]
    missing = [p for p in paths if not osp.isfile(p)]
    if missing:
        raise FileNotFoundError(
            f'no metafile at {missing[0]}; pass metafile= (the default is '
            "the installed package's, randsac_mm/.mim/configs/metafile.yml "
            'and its downstream ones)')
    key = tuple((p, os.stat(p).st_mtime_ns) for p in paths)
    if _cache.get(tuple(paths), (None, ))[0] != key:
        data = dict(Collections=[], Models=[])
        for path in paths:
            with open(path) as f:
                part = yaml.safe_load(f)
            if not isinstance(part, dict) or \
                    not isinstance(part.get('Models'), list):
                raise ValueError(f'{path}: needs a Models list')
            data['Collections'] += part.get('Collections') or []
            data['Models'] += part['Models']
        _check(data, ', '.join(paths))
        _cache[tuple(paths)] = (key, data)
    return copy.deepcopy(_cache[tuple(paths)][1])


def _check(data, path):
    names = set()
    for i, model in enumerate(data['Models']):
        if not isinstance(model, dict) or not model.get('Name') or \
                not model.get('Config'):
            raise ValueError(f'{path}: model {i} needs a Name and a Config')
        if model['Name'] in names:
            raise ValueError(f"{path}: two models named {model['Name']!r}")
        names.add(model['Name'])
        results = model.get(PAPER_RESULTS) or []
        if not isinstance(results, list):
            raise ValueError(f"{path}: {model['Name']}: {PAPER_RESULTS} "
                             'must be a list or null')
        for result in results:
            missing = [k for k in RESULT_KEYS if k not in result]
            paper = result.get('Paper') or {}
            missing += [f'Paper.{k}' for k in ('Table', 'Row')
                        if k not in paper]
            if missing:
                raise ValueError(f"{path}: {model['Name']}: a result lacks "
                                 f'{missing}')
    models = {m['Name']: m for m in data['Models']}
    for model in data['Models']:
        scaled = model.get('Scales Down')
        if scaled is None:
            continue
        target = models.get(scaled.get('Model'))
        if target is None or not _matching(target, scaled.get('Paper', {})):
            raise ValueError(
                f"{path}: {model['Name']}: Scales Down names "
                f"{scaled.get('Model')!r} {scaled.get('Paper')}, which is "
                'not a result of a model in the metafile')


def _matching(model, paper):
    return [r for r in model.get(PAPER_RESULTS) or []
            if r['Paper']['Table'] == paper.get('Table') and
            r['Paper']['Row'] == paper.get('Row')]


def _key(config):
    """(config path as the metafile writes it, ``configs/...``, or None;
    model name).

    A path inside the installed configs folder is matched by path only; a
    bare file or model name, or a path elsewhere (a copy of a config), by
    name."""
    config = os.fspath(config)
    name = osp.splitext(osp.basename(config))[0]
    if osp.dirname(config) and osp.isfile(config):
        config = osp.abspath(config)  # relative to the working directory
    if osp.isabs(config):
        # realpath: an editable install's configs folder is a link to the
        # checkout's, where a user's paths point.
        rel = osp.relpath(osp.realpath(config),
                          osp.realpath(installed_files.installed_path('configs')))
        return (None if rel.startswith('..') else
                osp.join('configs', rel)), name
    if osp.dirname(config):
        rel = osp.normpath(config)
        return (rel if rel.startswith('configs' + osp.sep) else
                osp.join('configs', rel)), name
    return None, name


def find_model(config, metafile=None):
    """The metafile's model of ``config``.

    Args:
        config (str | os.PathLike): a config path (absolute, or relative
            as ``configs/...`` or from ``configs/``), its file name, or a
            model name (a path inside the installed configs folder is
            matched by path, anything else by name).
        metafile (str | None): see :func:`load_metafile`.

    Returns:
        dict: the model entry (Name, Config, Metadata, Results, ...).

    Raises:
        PaperLookupError: the metafile names no such config (the message
            lists the closest names).
    """
    models = load_metafile(metafile)['Models']
    rel, name = _key(config)
    if rel is not None:
        found = [m for m in models if osp.normpath(m['Config']) == rel]
        candidates = [m['Config'] for m in models]
        wanted = rel
    else:
        found = [m for m in models if m['Name'] == name]
        candidates = [m['Name'] for m in models]
        wanted = name
    if not found:
        close = difflib.get_close_matches(wanted, candidates, n=3,
                                          cutoff=0.6)
        raise PaperLookupError(
            f'{config}: no model of that config in the metafile'
            + (f'; closest: {close}' if close else ''))
    return found[0]


def _tagged(result, model):
    return dict(copy.deepcopy(result), Model=model['Name'],
                Config=model['Config'])


def paper_results(config, metafile=None):
    """What the paper reports for ``config``, one dict per table row.

    For a pretraining config: its results, then those of the downstream
    configs whose ``Pretrained`` is its model (ADE20K, COCO). For a
    small-scale variant: the result of the paper row it scales down.

    Args:
        config (str | os.PathLike): see :func:`find_model`.
        metafile (str | None): see :func:`load_metafile`.

    Returns:
        list[dict]: each with ``Task``, ``Dataset``, ``Metrics`` ({name:
        figure}), ``Paper`` ({'Table', 'Row'}) and ``Model`` and ``Config``,
        the model and config the figure belongs to; ``[]`` for a config
        the paper reports nothing for (ViT-L, the demo).

    Raises:
        PaperLookupError: see :func:`find_model`.
    """
    model = find_model(config, metafile)
    models = load_metafile(metafile)['Models']
    results = [_tagged(r, model) for r in model.get(PAPER_RESULTS) or []]
    for other in models:
        results += [_tagged(r, other) for r in other.get(PAPER_RESULTS) or []
                    if r.get('Pretrained') == model['Name']
                    and other is not model]
    scaled = model.get('Scales Down')
    if scaled:
        target = next(m for m in models if m['Name'] == scaled['Model'])
        results += [_tagged(r, target)
                    for r in _matching(target, scaled['Paper'])]
    return results


def paper_figure(config, metric=LINEAR, dataset=None, table=None,
                 metafile=None):
    """The paper's one figure of ``metric`` for ``config``.

    Args:
        config (str | os.PathLike | None): see :func:`find_model`; None
            gives None (e.g. an untrained baseline with no config).
        metric (str): a metric name, default :data:`LINEAR`.
        dataset (str | None): only results on this data set.
        table (str | None): only results of this paper table.
        metafile (str | None): see :func:`load_metafile`.

    Returns:
        float | str | None: the figure; None when no result has it.

    Raises:
        PaperLookupError: see :func:`find_model`.
        ValueError: the paper gives the metric different figures in
            different rows for this config (pass ``table`` or
            ``dataset``).
    """
    if config is None:
        return None
    found = [(r['Paper']['Table'], r['Paper']['Row'], r['Metrics'][metric])
             for r in paper_results(config, metafile)
             if metric in r['Metrics']
             and dataset in (None, r['Dataset'])
             and table in (None, r['Paper']['Table'])]
    figures = {figure for _, _, figure in found}
    if len(figures) > 1:
        raise ValueError(
            f'{config}: the paper gives {metric!r} as '
            + ', '.join(f'{f} (Table "{t}", {r})' for t, r, f in found)
            + '; choose one with table= or dataset=')
    return figures.pop() if figures else None


def paper_flops(metafile=None):
    """Paper Table "FLOPs of Three Candidate Architectures".

    Args:
        metafile (str | None): see :func:`load_metafile`.

    Returns:
        dict: {row ('ViT-T', 'ViT-S', 'ViT-B'): {'config': the config the
        row is counted for (its transformer-skip model), 'two-stream',
        'transformer', 'transformer-skip': the figure as printed, e.g.
        '499.60 M'}}.
    """
    rows = {}
    for model in load_metafile(metafile)['Models']:
        for result in model.get(PAPER_RESULTS) or []:
            if result['Paper']['Table'] != FLOPS_TABLE:
                continue
            row = dict(config=model['Config'])
            for name, figure in result['Metrics'].items():
                row[name[:-len(' FLOPs')].lower()] = figure
            rows[result['Paper']['Row']] = row
    return rows


def paper_architecture_flops(backbone, metafile=None):
    """The paper's FLOPs of the three architectures for an encoder of this
    width, image size and patch size (Table "FLOPs of Three Candidate
    Architectures", read from the metafile), or None.

    Returns:
        tuple | None: (row name, {architecture: figure as printed}).
    """
    from mmengine.config import Config

    from randsac_mm.analysis.flops import ARCHITECTURES, arch_dict

    def key(bb):
        return (arch_dict(bb)['embed_dims'], bb['img_size'], bb['patch_size'])

    for row, entry in paper_flops(metafile).items():
        counted = Config.fromfile(
            installed_files.installed_path(entry['config']))
        if key(counted.model['backbone']) == key(backbone):
            return row, {name: entry[name] for name in ARCHITECTURES}
    return None
