"""Registers randsac_mm's modules into mmpretrain's (and mmengine's)
registries: pretraining, linear probing and fine-tuning.

Configs load it with ``custom_imports=dict(imports=
['randsac_mm.registration'])``, and so do the tools. Importing it checks
the installed stack (``randsac_mm.version_check``: warnings for other
versions, errors only for what is known to break) and lets
``torch.load(weights_only=True)`` read the checkpoints training writes.
It needs no compiled mmcv op and imports neither mmseg nor mmdet (those
are ``randsac_mm.downstream``'s).
"""
from .checkpoint.safe_globals import allow_mmengine_checkpoint_globals
from .version_check import PRETRAINING, check_versions

check_versions(PRETRAINING)
allow_mmengine_checkpoint_globals()

# Registering happens on import, in each package's modules.
from . import checkpoint, datasets, engine, evaluation, models  # noqa: E402,F401,I001
