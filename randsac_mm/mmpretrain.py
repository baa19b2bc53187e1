"""Registers randsac_mm into mmpretrain's registries (and mmengine's).

Configs of pretraining, linear probing and fine-tuning import it with
``custom_imports=dict(imports=['randsac_mm.mmpretrain'])``; so do tools and
scripts that build our modules. Importing it also checks the pinned stack
and lets ``torch.load`` read the mmengine checkpoints that training writes.
It loads neither mmseg nor mmdet (those are ``randsac_mm.downstream``'s).
"""
import sys

from .utils.version_check import check_versions

check_versions()


def _import_mmpretrain_models_without_mmdet():
    """mmpretrain 1.2.0's models import mmdet whenever it is installed, for
    one optional layer (``ResLayerExtraNorm``, registered into mmdet's
    registry, used by none of our configs): 2 s of every process's 6.5 s
    import here. mmpretrain skips it when mmdet does not import, so mmdet is
    made unimportable for that one import and restored after it; mmdet, and
    ``randsac_mm.downstream``, import normally afterwards. Nothing is done
    when either is already imported.
    """
    if 'mmpretrain.models' in sys.modules or 'mmdet' in sys.modules:
        return
    sys.modules['mmdet'] = None  # import mmdet -> ImportError
    try:
        import mmpretrain.models  # noqa: F401
    finally:
        del sys.modules['mmdet']


_import_mmpretrain_models_without_mmdet()

from .utils.checkpoint_globals import \
    allow_mmengine_checkpoint_globals  # noqa: E402

allow_mmengine_checkpoint_globals()

from . import datasets, engine, evaluation, fileio, models  # noqa: E402,F401
