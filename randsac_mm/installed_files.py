"""Where the installed package keeps its configs, metafile and tools.

As OpenMMLab packages do for mim: ``randsac_mm/.mim/configs`` and
``randsac_mm/.mim/tools``, copied into a wheel by setup.py and linked to the
checkout's in an editable install, so the library finds them the same way
in both (``mim train randsac_mm CONFIG`` runs ``.mim/tools/train.py``).
"""
import os.path as osp

__all__ = ['DOWNSTREAM_METAFILES', 'METAFILE', 'METAFILES', 'MIM_ROOT',
           'installed_path']

MIM_ROOT = osp.join(osp.dirname(osp.abspath(__file__)), '.mim')
# The model index, with the paper's figures for each config: mmpretrain's
# (what its ModelHub registers: the models mmpretrain builds), and the
# metafiles of the configs mmseg and mmdet build, by the scope that builds
# them.
METAFILE = osp.join('configs', 'metafile.yml')
DOWNSTREAM_METAFILES = {
    'mmseg': osp.join('configs', 'segmentation', 'metafile.yml'),
    'mmdet': osp.join('configs', 'detection', 'metafile.yml')}
METAFILES = (METAFILE, *DOWNSTREAM_METAFILES.values())


def installed_path(relative):
    """The installed copy of ``relative`` (e.g. ``'configs/demo'``).

    Raises:
        FileNotFoundError: the package was not installed by its setup.py
            (``pip install .`` or ``pip install -e .``), which makes
            ``.mim``.
    """
    path = osp.join(MIM_ROOT, relative)
    if not osp.exists(path):
        raise FileNotFoundError(
            f'{path} does not exist: randsac_mm finds its configs and tools '
            'in randsac_mm/.mim, which its setup.py makes; install it with '
            "pip install . (or make install, an editable install)")
    return path
