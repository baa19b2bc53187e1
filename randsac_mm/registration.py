"""Registers randsac_mm's modules into mmpretrain's (and mmengine's)
registries: pretraining, linear probing and fine-tuning.

Configs load it with ``custom_imports=dict(imports=
['randsac_mm.registration'])``, and so do the tools. Importing it checks
the installed stack (``randsac_mm.version_check``: warnings for other
versions, errors only for what is known to break) and lets
``torch.load(weights_only=True)`` read the checkpoints training writes.
It needs no compiled mmcv op and imports neither mmseg nor mmdet (those
are ``randsac_mm.downstream``'s).

It also adds our model index (``configs/metafile.yml``, installed under
``randsac_mm/.mim``) to mmpretrain's ``ModelHub``, so that
``mmpretrain.list_models('*randsac*')`` lists our configs and
``mmpretrain.get_model(name)`` builds them.
"""
from mmpretrain.apis.model import ModelHub

from .checkpoint.safe_globals import allow_mmengine_checkpoint_globals
from .mim import METAFILE, MIM_ROOT, mim_path
from .version_check import PRETRAINING, check_versions

check_versions(PRETRAINING)
allow_mmengine_checkpoint_globals()


def register_model_index():
    """Adds our configs to mmpretrain's ModelHub, once per process (config
    paths in the metafile are relative to ``randsac_mm/.mim``)."""
    if not getattr(ModelHub, '_randsac_mm_registered', False):
        ModelHub.register_model_index(mim_path(METAFILE),
                                      config_prefix=MIM_ROOT)
        ModelHub._randsac_mm_registered = True


register_model_index()

# Registering happens on import, in each package's modules.
from . import checkpoint, datasets, engine, evaluation, models  # noqa: E402,F401,I001
