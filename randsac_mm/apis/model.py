"""A model from a config, a config file or a model name, and the model of a
checkpoint."""
__all__ = ['build_model', 'load_model']


def build_model(config, checkpoint=None, seed=None, init=True):
    """The config's model, built by mmpretrain's ``get_model`` (so the
    config's top-level ``data_preprocessor`` reaches the model, as in
    mmengine's Runner), then initialised or loaded.

    Unlike ``get_model`` it loads every key or fails (``get_model`` loads
    what matches and warns), and returns the model in training mode, as
    ``MODELS.build`` and the Runner give it.

    Args:
        config (mmengine.Config | str): a config, a config file, or a
            model name of ``mmpretrain.list_models('*randsac*')`` (after
            ``import randsac_mm.registration``).
        checkpoint (str | None): a local file of weights to load, every
            one (a ValueError naming what does not fit otherwise); unlike
            ``get_model``, no URL: download it first.
        seed (int | None): seeds torch before the model is built, so the
            same seed gives the same untrained model.
        init (bool): run ``init_weights`` (False: as constructed, for what
            needs only the shapes).

    Returns:
        torch.nn.Module: the model, initialised or loaded, on the CPU.

    Raises:
        ValueError: a config, or a name of our model index, whose model
            mmpretrain does not build (an mmseg or mmdet config), naming
            its type or its config.
    """
    import os.path as osp

    import torch
    from mmengine.config import Config
    from mmpretrain.apis import get_model
    from mmpretrain.registry import MODELS

    from ..evaluation.weights import load_weights
    from ..registration import DOWNSTREAM_MODELS  # (and our model names)
    if isinstance(config, str) and osp.isfile(config):
        config = Config.fromfile(config)
    elif isinstance(config, str) and config in DOWNSTREAM_MODELS:
        scope, path = DOWNSTREAM_MODELS[config]
        raise ValueError(
            f'config: {config!r} is an {scope} model, not an mmpretrain one '
            f'(its config: {path}); build_model builds pretraining and '
            f'classification models: train it with tools/train.py {path}')
    if isinstance(config, Config):
        kind = config.model.get('type')
        if isinstance(kind, str) and MODELS.get(kind) is None:
            raise ValueError(
                f'config: its model {kind!r} is not an mmpretrain model (an '
                'mmseg or mmdet config?); build_model builds pretraining and '
                'classification configs: train this one with '
                'tools/train.py CONFIG')
    if seed is not None:
        torch.manual_seed(seed)
    model = get_model(config).train()
    if init:
        model.init_weights()
    if checkpoint:
        load_weights(model, checkpoint)
    return model


def load_model(checkpoint, config=None):
    """The model of a pretraining or fine-tuning checkpoint, weights loaded.

    Args:
        checkpoint (str): an mmengine checkpoint.
        config (str | None): its config (default: the one mmengine stored
            in the checkpoint).

    Returns:
        tuple: (model in eval mode, its mmengine.Config).
    """
    from mmengine.config import Config

    from ..checkpoint.reading import read_checkpoint, stored_config
    from ..evaluation.weights import load_weights
    loaded, _ = read_checkpoint(checkpoint, 'checkpoint')
    cfg = Config.fromfile(config) if config else stored_config(loaded)
    if cfg is None:
        raise ValueError(f'checkpoint: {checkpoint} stores no config '
                         "(mmengine writes it in meta['cfg']): give it with "
                         'config=')
    model = build_model(cfg, init=False)
    load_weights(model, checkpoint, 'checkpoint', config)
    return model.eval(), cfg
