"""Frozen-encoder evaluation of a pretraining config's checkpoint, on the
labelled data of a data config (the demo, the study, eval_frozen.py)."""
from .config import build_model

__all__ = ['evaluate_checkpoint', 'labelled_loaders']


def labelled_loaders(data_config, train_images=None, test_images=None,
                     data_root=None, seed=0):
    """The training and test loaders of a data config (one with
    ``train_dataloader`` and ``test_dataloader`` without augmentation,
    e.g. ``configs/_base_/datasets/fashion-mnist.py``).

    Args:
        data_config (str | mmengine.Config): the data config.
        train_images, test_images (int | None): the first so many images
            (default: all).
        data_root (str | None): overrides the datasets' ``data_root``.

    Returns:
        tuple: (train loader, test loader).
    """
    from mmengine.config import Config
    from mmengine.registry import DefaultScope
    from mmengine.runner import Runner
    data = Config.fromfile(data_config) if isinstance(data_config, str) \
        else data_config
    loaders = []
    for loader, count in ((data.train_dataloader, train_images),
                          (data.test_dataloader, test_images)):
        loader = loader.copy()
        loader.dataset = dict(loader.dataset)
        if count:
            loader.dataset['indices'] = count
        if data_root:
            loader.dataset['data_root'] = data_root
        with DefaultScope.overwrite_default_scope('mmpretrain'):
            loaders.append(Runner.build_dataloader(loader, seed=seed))
    return tuple(loaders)


def evaluate_checkpoint(cfg, checkpoint, loaders, seed=0, **kwargs):
    """``randsac_mm.evaluation.evaluate_frozen`` of the config's encoder
    loaded from ``checkpoint`` (None: as initialised with ``seed``, the
    no-pretraining baseline).

    Args:
        cfg (mmengine.Config): the pretraining config.
        loaders (tuple): from :func:`labelled_loaders`.
        **kwargs: passed to ``evaluate_frozen`` (``k``, ``temperature``,
            ``probe_epochs``).
    """
    from ..evaluation import evaluate_frozen
    model = build_model(cfg, checkpoint, seed=seed)
    return evaluate_frozen(model, *loaders, seed=seed, **kwargs)
