"""Installs the ``randsac_mm`` package (distribution name ``randsac-mm``).

mmcv is not a requirement here: pretraining needs ``mmcv-lite==2.1.0`` (no
compiled ops, a pure-Python wheel), the downstream transfers mmcv 2.1.0
with its ops compiled against the installed torch, and the two cannot be
installed side by side. The Makefile's ``install`` and
``install-downstream`` targets install the right one in the right order.
The ``downstream`` extra adds mmseg and mmdet.
"""
import os.path as osp

from setuptools import find_packages, setup

HERE = osp.dirname(osp.abspath(__file__))


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


setup(
    name='randsac-mm',
    version=read_version(),
    description='RandSAC (Random Segments with Autoregressive Coding) '
    'pretraining and transfer for OpenMMLab',
    long_description=open(osp.join(HERE, 'README.md')).read(),
    long_description_content_type='text/markdown',
    python_requires='>=3.11,<3.13',
    packages=find_packages(include=['randsac_mm', 'randsac_mm.*']),
    include_package_data=True,
    package_data={'randsac_mm': ['datasets/meta/*.txt']},
    install_requires=read_requirements('torch') + read_requirements(
        'runtime'),
    extras_require={'tests': read_requirements('tests'),
                    'downstream': read_requirements('downstream')},
    zip_safe=False,
)
