"""Where the installed package keeps its configs, metafile and tools.

As OpenMMLab packages do for mim: ``randsac_mm/.mim/configs`` and
``randsac_mm/.mim/tools``, copied into a wheel by setup.py and linked to the
checkout's in an editable install, so the library finds them the same way
in both (``mim train randsac_mm CONFIG`` runs ``.mim/tools/train.py``).
"""
import os.path as osp

__all__ = ['MIM_ROOT', 'METAFILE', 'installed_path']

MIM_ROOT = osp.join(osp.dirname(osp.abspath(__file__)), '.mim')
# The model index: every config, with the paper's figures for it.
METAFILE = osp.join('configs', 'metafile.yml')


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
