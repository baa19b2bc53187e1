"""Installs the ``randsac_mm`` package (distribution name ``randsac-mm``).

mmcv is not a requirement here: pretraining needs ``mmcv-lite==2.1.0`` (no
compiled ops, a pure-Python wheel), the downstream transfers mmcv 2.1.0
with its ops compiled against the installed torch, and the two cannot be
installed side by side. The Makefile's ``install`` and
``install-downstream`` targets install the right one in the right order.
The ``downstream`` extra adds mmseg and mmdet.
"""
import os
import os.path as osp
import shutil

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = osp.dirname(osp.abspath(__file__))
# What mim's layout ships inside the package (randsac_mm/.mim/): the configs
# with their metafile (mmpretrain's model index), and every tool but those
# of CHECKOUT_ONLY.
MIM_ITEMS = ('configs', 'tools')
# The checkout's maintenance, no user's tool: tools/misc/wheelhouse.py
# builds this setup.py and requirements/. (The experiments are no tools
# either: they run in the checkout, `python -m experiments.<name>`.)
CHECKOUT_ONLY = (osp.join('tools', 'misc'), )


def read_requirements(name):
    """Returns the requirement lines of ``requirements/<name>.txt``."""
    with open(osp.join(HERE, 'requirements', f'{name}.txt')) as f:
        lines = (line.split('#', 1)[0].strip() for line in f)
        return [line for line in lines if line]


def read_version():
    namespace = {}
    with open(osp.join(HERE, 'randsac_mm', 'version.py')) as f:
        exec(f.read(), namespace)
    return namespace['__version__']


def ignore_checkout_only(folder, names):
    """``shutil.copytree``'s ``ignore``: ``CHECKOUT_ONLY`` and caches."""
    rel = osp.relpath(folder, HERE)
    return {name for name in names if name == '__pycache__' or
            osp.join(rel, name) in CHECKOUT_ONLY}


class BuildWithMim(build_py):
    """build_py, plus ``randsac_mm/.mim``: copies of ``MIM_ITEMS`` in a
    wheel; in an editable install, links to the checkout's (as mmpretrain's
    setup.py does), so the library reads the same path either way."""

    def run(self):
        super().run()
        if self.editable_mode:
            mim = osp.join(HERE, 'randsac_mm', '.mim')
            os.makedirs(mim, exist_ok=True)
            for item in MIM_ITEMS:
                target = osp.join(mim, item)
                if osp.islink(target) or osp.isfile(target):
                    os.remove(target)
                elif osp.isdir(target):
                    shutil.rmtree(target)
                os.symlink(osp.join('..', '..', item), target)
            return
        mim = osp.join(self.build_lib, 'randsac_mm', '.mim')
        for item in MIM_ITEMS:
            target = osp.join(mim, item)
            if osp.isdir(target):
                shutil.rmtree(target)
            shutil.copytree(osp.join(HERE, item), target,
                            ignore=ignore_checkout_only)


setup(
    name='randsac-mm',
    version=read_version(),
    description='RandSAC (Random Segments with Autoregressive Coding) '
    'pretraining and transfer for OpenMMLab',
    long_description=open(osp.join(HERE, 'README.md')).read(),
    long_description_content_type='text/markdown',
    license='Apache-2.0',
    license_files=['LICENSE'],
    python_requires='>=3.11,<3.13',
    # datasets/meta holds data (class lists), no module: named here, since
    # find_packages skips a folder without __init__.py and setuptools warns
    # that it would drop such a folder's files.
    packages=find_packages(include=['randsac_mm', 'randsac_mm.*']) + [
        'randsac_mm.datasets.meta'],
    include_package_data=True,
    package_data={'randsac_mm.datasets.meta': ['*.txt']},
    install_requires=read_requirements('torch') + read_requirements(
        'runtime'),
    extras_require={'tests': read_requirements('tests'),
                    'downstream': read_requirements('downstream')},
    cmdclass={'build_py': BuildWithMim},
    zip_safe=False,
)
