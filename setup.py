"""Installs the ``randsac_mm`` package (distribution name ``randsac-mm``).

torch, torchvision and mmcv (with its compiled ops) must be installed before
this package: the Makefile's ``install`` target does that in the right order,
because mmcv's ops are compiled against the installed torch and a plain
``pip install mmcv`` silently builds it without ops.
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
    python_requires='>=3.11,<3.12',
    packages=find_packages(include=['randsac_mm', 'randsac_mm.*']),
    include_package_data=True,
    package_data={'randsac_mm': ['datasets/meta/*.txt']},
    install_requires=(read_requirements('torch') + ['mmcv==2.1.0'] +
                      read_requirements('runtime')),
    extras_require={'tests': read_requirements('tests')},
    zip_safe=False,
)
