"""Registers randsac_mm into mmpretrain's registries (and mmengine's).

Configs of pretraining, linear probing and fine-tuning import it with
``custom_imports=dict(imports=['randsac_mm.mmpretrain'])``; so do tools and
scripts that build our modules. Importing it also checks the pinned stack
and lets ``torch.load`` read the mmengine checkpoints that training writes.
It loads neither mmseg nor mmdet (those are ``randsac_mm.downstream``'s).
"""
from .utils.version_check import check_versions

check_versions()

from .utils.checkpoint_globals import \
    allow_mmengine_checkpoint_globals  # noqa: E402

allow_mmengine_checkpoint_globals()

from . import datasets, engine, evaluation, fileio, models  # noqa: E402,F401
