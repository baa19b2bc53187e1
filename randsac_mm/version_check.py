"""Checks, at registration, the installed OpenMMLab stack against our pins.

A version other than the pinned one gets a warning that names the fix: it
may well work. The older torch releases of GPU nodes that bring their own
(``UNTESTED_RELEASES``) get a warning that they are untested and what to
do. Refused, with the command that fixes it, is only what is known to
break:

- a package the stack needs is missing;
- the ``onedl-*`` fork installed beside upstream (the same import names:
  which one loads depends on install order);
- for the downstream transfers (``randsac_mm.downstream``): mmcv without
  its compiled ops (mmdet's RoIAlign and NMS need them; ``mmcv-lite`` has
  none), or mmcv >= 2.2, which mmdet 3.3.0 and mmseg 1.2.2 refuse.

Pretraining, the probes and the demo need no compiled op: they accept
``mmcv-lite`` (the same Python package without ``mmcv._ext``).
"""
import os
import re
import warnings
from importlib import metadata
from importlib.util import find_spec

__all__ = ['DOWNSTREAM', 'PRETRAINING', 'REQUIRED_VERSIONS',
           'UNTESTED_RELEASES', 'check_versions', 'find_version_problems']

INSTALL_DOWNSTREAM = 'make install-downstream'
# distribution -> (pinned release, how to install it)
REQUIRED_VERSIONS = {
    'torch': ('2.13.0', 'pip install torch==2.13.0 torchvision==0.28.0'),
    'torchvision': ('0.28.0', 'pip install torch==2.13.0 torchvision==0.28.0'),
    'mmcv': ('2.1.0', 'pip install mmcv-lite==2.1.0 (pretraining), or '
             f'{INSTALL_DOWNSTREAM} (mmcv with its compiled ops)'),
    'mmengine': ('0.10.7', 'pip install mmengine==0.10.7'),
    'mmpretrain': ('1.2.0', 'pip install mmpretrain==1.2.0'),
    'mmsegmentation': ('1.2.2', INSTALL_DOWNSTREAM),
    'mmdet': ('3.3.0', INSTALL_DOWNSTREAM),
}
# Older (major, minor) releases accepted beside the pin, untested: a GPU
# node's own torch build (docs/install.md, "Offline GPU node").
UNTESTED_RELEASES = {
    'torch': ((2, 11), (2, 12)),
    'torchvision': ((0, 26), (0, 27)),
}
PRETRAINING = ('torch', 'torchvision', 'mmcv', 'mmengine', 'mmpretrain')
DOWNSTREAM = PRETRAINING + ('mmsegmentation', 'mmdet')
# mmcv installs under either distribution name; the import name is mmcv.
MMCV_DISTRIBUTIONS = ('mmcv', 'mmcv-lite')
# The onedl-* fork installs the same import names.
FORK_PREFIX = 'onedl-'
SKIP_ENV = 'RANDSAC_MM_SKIP_VERSION_CHECK'


def _release(version):
    """'2.13.0+cu130' -> (2, 13, 0) (drops local and pre/post suffixes)."""
    match = re.match(r'\d+(\.\d+)*', version)
    return tuple(int(x) for x in match.group(0).split('.')) if match else ()


def installed_versions():
    """{distribution: version or None} of the stack and of the fork."""
    names = set(REQUIRED_VERSIONS) | set(MMCV_DISTRIBUTIONS)
    names |= {FORK_PREFIX + n for n in REQUIRED_VERSIONS}
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def find_version_problems(installed=None, packages=PRETRAINING,
                          has_mmcv_ops=None):
    """What is wrong with the installed stack.

    Args:
        installed (dict | None): distribution -> version string or None
            (not installed). Default: what ``importlib.metadata`` reports.
        packages (tuple[str]): the pinned distributions this use needs
            (``PRETRAINING`` or ``DOWNSTREAM``).
        has_mmcv_ops (bool | None): whether ``mmcv._ext`` exists (default:
            looked up); only ``DOWNSTREAM`` needs it.

    Returns:
        tuple[list[str], list[str]]: ``(errors, warnings)``, each a
        sentence naming the fix.
    """
    installed = installed_versions() if installed is None else installed
    errors, notes = [], []
    for dist in packages:
        required, how = REQUIRED_VERSIONS[dist]
        fork = FORK_PREFIX + dist
        if installed.get(fork) is not None:
            errors.append(f'{fork}=={installed[fork]} is installed beside '
                          f'upstream; randsac_mm pins upstream '
                          f'{dist}=={required}. Uninstall {fork}, then: {how}')
        names = MMCV_DISTRIBUTIONS if dist == 'mmcv' else (dist, )
        found = [(n, installed[n]) for n in names
                 if installed.get(n) is not None]
        if not found:
            errors.append(f'{dist} is not installed; need {dist}=={required}:'
                          f' {how}')
            continue
        name, version = found[0]
        if _release(version)[:2] in UNTESTED_RELEASES.get(dist, ()):
            notes.append(f'{name}=={version} is installed: randsac_mm '
                         f'accepts it but is tested with {dist}=={required} '
                         'only; if a run fails or its numbers differ, '
                         f'check it with the pinned version ({how}) before '
                         'reporting it')
        elif _release(version) != _release(required):
            notes.append(f'{name}=={version} is installed; randsac_mm is '
                         f'tested with {dist}=={required} ({how})')
    if 'mmdet' in packages:
        mmcv = installed.get('mmcv') or installed.get('mmcv-lite')
        if mmcv is not None and _release(mmcv) >= (2, 2):
            errors.append(f'mmcv=={mmcv}: mmdet 3.3.0 and mmseg 1.2.2 refuse '
                          f'mmcv>=2.2; {INSTALL_DOWNSTREAM} installs 2.1.0')
        if has_mmcv_ops is None:
            has_mmcv_ops = find_spec('mmcv') is not None and \
                find_spec('mmcv._ext') is not None
        if not has_mmcv_ops:
            errors.append('mmcv has no compiled ops (mmcv._ext; mmcv-lite '
                          'has none): segmentation and detection need them: '
                          f'{INSTALL_DOWNSTREAM}')
    return errors, notes


def check_versions(packages=PRETRAINING):
    """Warns about other versions than the pins; raises ImportError, with
    the fixes, for what is known to break.

    Set ``RANDSAC_MM_SKIP_VERSION_CHECK=1`` to skip the check.
    """
    if os.environ.get(SKIP_ENV) == '1':
        return
    errors, notes = find_version_problems(packages=packages)
    for note in notes:
        warnings.warn(note, stacklevel=3)
    if errors:
        raise ImportError(
            'randsac_mm cannot run on this stack:\n  - ' +
            '\n  - '.join(errors) + f'\n(Set {SKIP_ENV}=1 to import anyway.)')
