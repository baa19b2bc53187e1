"""The labelled data of a data config, as the frozen evaluation reads it."""

__all__ = ['labelled_loaders']


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
