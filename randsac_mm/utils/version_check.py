"""Checks, at import time, that the installed stack is the one we pin.

The OpenMMLab libraries fail late and obscurely on a wrong version (a
registry key missing, an op not compiled), so importing ``randsac_mm`` checks
the versions once and names exactly what to install.
"""
import os
import re
from importlib import metadata

__all__ = ['REQUIRED_VERSIONS', 'check_versions', 'find_version_problems']

# distribution -> (required release, how to install it)
REQUIRED_VERSIONS = {
    'torch': ('2.13.0', 'pip install torch==2.13.0 torchvision==0.28.0'),
    'torchvision': ('0.28.0', 'pip install torch==2.13.0 torchvision==0.28.0'),
    'mmcv': ('2.1.0', 'MMCV_WITH_OPS=1 pip install --no-build-isolation '
             'mmcv==2.1.0   (or `make install`)'),
    'mmengine': ('0.10.7', 'pip install mmengine==0.10.7'),
    'mmpretrain': ('1.2.0', 'pip install mmpretrain==1.2.0'),
    'mmsegmentation': ('1.2.2', 'pip install mmsegmentation==1.2.2 ftfy'),
    'mmdet': ('3.3.0', 'pip install mmdet==3.3.0'),
}

# The onedl-* fork installs the same import names; mixing it with upstream in
# one environment makes the import resolve to whichever was installed last.
FORK_PREFIX = 'onedl-'

SKIP_ENV = 'RANDSAC_MM_SKIP_VERSION_CHECK'


def _release(version):
    """'2.13.0+cu130' -> '2.13.0' (drops local and pre/post suffixes)."""
    match = re.match(r'\d+(\.\d+)*', version)
    return match.group(0) if match else version


def find_version_problems(installed=None):
    """Returns a list of human-readable problems with the installed stack.

    Args:
        installed (dict | None): distribution name -> version string, or None
            for "not installed". Defaults to what ``importlib.metadata``
            reports; tests pass their own.
    """
    if installed is None:
        installed = {}
        for dist in REQUIRED_VERSIONS:
            try:
                installed[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                installed[dist] = None
            try:
                installed[FORK_PREFIX + dist] = metadata.version(
                    FORK_PREFIX + dist)
            except metadata.PackageNotFoundError:
                pass
    problems = []
    for dist, (required, how) in REQUIRED_VERSIONS.items():
        fork = FORK_PREFIX + dist
        if installed.get(fork) is not None:
            problems.append(
                f'{fork}=={installed[fork]} is installed; randsac_mm pins '
                f'upstream {dist}=={required}. Uninstall {fork}, then: {how}')
        found = installed.get(dist)
        if found is None:
            problems.append(f'{dist} is not installed; need {dist}=={required}:'
                            f' {how}')
        elif _release(found) != required:
            problems.append(f'{dist}=={found} is installed; need '
                            f'{dist}=={required}: {how}')
    return problems


def find_missing_mmcv_ops():
    """Returns a problem string when mmcv is installed without its ops."""
    from importlib.util import find_spec
    if find_spec('mmcv') is not None and find_spec('mmcv._ext') is None:
        return ('mmcv is installed without its compiled ops (mmcv._ext): '
                + REQUIRED_VERSIONS['mmcv'][1])
    return None


def check_versions():
    """Raises ImportError listing every wrong or missing pinned package.

    Set the environment variable ``RANDSAC_MM_SKIP_VERSION_CHECK=1`` to try
    another stack at your own risk.
    """
    if os.environ.get(SKIP_ENV) == '1':
        return
    problems = find_version_problems()
    missing_ops = find_missing_mmcv_ops()
    if missing_ops:
        problems.append(missing_ops)
    if problems:
        raise ImportError(
            'randsac_mm needs the pinned OpenMMLab stack (see README, '
            '"Install"):\n  - ' + '\n  - '.join(problems) +
            f'\nSet {SKIP_ENV}=1 to import anyway.')
