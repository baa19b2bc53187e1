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
``mmpretrain.list_models('*randsac*')`` lists our pretraining and
classification configs and ``mmpretrain.get_model(name)`` builds them; the
UperNet and Mask R-CNN configs, mmseg's and mmdet's models, stay out of
mmpretrain's list (its ``get_model`` could not build them). We release no
weights: ``get_model(name, pretrained=True)`` is refused with the reason
(mmpretrain would warn and return random weights), and
``pretrained='path/to/epoch_800.pth'`` loads a checkpoint one trained.
"""
import os.path as osp

from mmengine.runner import CheckpointLoader
from mmpretrain.apis.model import ModelHub

from .checkpoint.safe_globals import allow_mmengine_checkpoint_globals
from .installed_files import METAFILE, MIM_ROOT, installed_path
from .version_check import PRETRAINING, check_versions

check_versions(PRETRAINING)
allow_mmengine_checkpoint_globals()


# What our models' weights are in the index: none are released. mmpretrain
# asks its checkpoint loader for them, which this scheme refuses.
NO_RELEASED_WEIGHTS = 'randsac-mm-no-released-weights://'


@CheckpointLoader.register_scheme(prefixes=NO_RELEASED_WEIGHTS)
def _refuse_unreleased_weights(filename, map_location=None):
    name = filename[len(NO_RELEASED_WEIGHTS):]
    raise ValueError(
        f'pretrained=True: randsac_mm releases no weights for {name} (the '
        'paper\'s checkpoints are not public); pass a checkpoint you '
        f"trained, get_model('{name}', pretrained='work_dirs/.../"
        "epoch_N.pth'), or pretrained=False for an untrained model")


# Config folders of models that mmseg and mmdet build, not mmpretrain.
DOWNSTREAM_CONFIGS = {'configs/segmentation/': 'mmseg',
                      'configs/detection/': 'mmdet'}
# {name: (the package that builds it, its config relative to the
# repository)}: the model index's entries left out of mmpretrain's list.
DOWNSTREAM_MODELS = {}


def register_model_index():
    """Adds our mmpretrain configs to mmpretrain's ModelHub, once per
    process (config paths in the metafile are relative to
    ``randsac_mm/.mim``)."""
    if not getattr(ModelHub, '_randsac_mm_registered', False):
        ModelHub.register_model_index(installed_path(METAFILE),
                                      config_prefix=MIM_ROOT)
        # ModelHub registers a whole index; its models dict is the only
        # way to leave the downstream entries out.
        for name, info in list(ModelHub._models_dict.items()):
            config = osp.relpath(info.config, MIM_ROOT).replace(osp.sep, '/')
            scope = next((scope for folder, scope in DOWNSTREAM_CONFIGS.items()
                          if config.startswith(folder)), None)
            if scope is not None:
                DOWNSTREAM_MODELS[name] = (scope, config)
                del ModelHub._models_dict[name]
            elif info.weights is None:
                info.weights = NO_RELEASED_WEIGHTS + name
        ModelHub._randsac_mm_registered = True


register_model_index()

# Registering happens on import, in each package's modules.
from . import checkpoint, datasets, engine, evaluation, models  # noqa: E402,F401,I001
