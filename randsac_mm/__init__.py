"""RandSAC for OpenMMLab.

Importing this package checks the pinned stack, lets ``torch.load`` read the
mmengine checkpoints that training writes, and registers every module of the
package into the mmpretrain registries (configs load it with
``custom_imports=dict(imports=['randsac_mm'])``).
"""
from .utils.version_check import check_versions

check_versions()

from .utils.checkpoint_globals import \
    allow_mmengine_checkpoint_globals  # noqa: E402

allow_mmengine_checkpoint_globals()

from . import datasets, engine, evaluation, fileio, models  # noqa: E402,F401
from .version import __version__  # noqa: E402

__all__ = ['__version__']
