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
UperNet and Mask R-CNN configs, mmseg's and mmdet's models, are in
metafiles of their own, out of mmpretrain's list (its ``get_model`` could
not build them). We release no weights: ``get_model(name,
pretrained=True)`` is refused with the reason (mmpretrain would warn and
return random weights), and
``pretrained='path/to/epoch_800.pth'`` loads a checkpoint one trained.
"""
import yaml
from mmengine.runner import CheckpointLoader
from mmpretrain.apis.model import ModelHub

from .checkpoint.safe_globals import allow_mmengine_checkpoint_globals
from .installed_files import (
    DOWNSTREAM_METAFILES,
    METAFILE,
    MIM_ROOT,
    installed_path,
)
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


def index_models(metafile):
    """The models of one file of the installed model index (its path
    relative to ``randsac_mm/.mim``), as written."""
    with open(installed_path(metafile)) as f:
        return yaml.safe_load(f)['Models']


# {name: (the package that builds it, its config relative to the
# repository)}: the index's models that mmseg and mmdet build, in
# metafiles of their own, which mmpretrain's ModelHub never reads.
DOWNSTREAM_MODELS = {
    model['Name']: (scope, model['Config'])
    for scope, metafile in DOWNSTREAM_METAFILES.items()
    for model in index_models(metafile)}


def register_model_index():
    """Adds our model index (``configs/metafile.yml``: the models mmpretrain
    builds) to mmpretrain's ModelHub, once per process (its config paths
    are relative to ``randsac_mm/.mim``). Its ``Weights`` name
    :data:`NO_RELEASED_WEIGHTS`, which refuses ``pretrained=True``."""
    first = index_models(METAFILE)[0]['Name']
    if not ModelHub.has(first.lower()):
        ModelHub.register_model_index(installed_path(METAFILE),
                                      config_prefix=MIM_ROOT)


register_model_index()

# Registering happens on import, in each package's modules.
from . import checkpoint, datasets, engine, evaluation, models  # noqa: E402,F401,I001
