"""The labelled data of a data config, as the frozen evaluation reads it."""
import os.path as osp

import numpy as np

__all__ = ['labelled_loaders']

LOADERS = ('train_dataloader', 'test_dataloader')


def labelled_loaders(data_config, train_images=None, test_images=None,
                     data_root=None, seed=0, spread=False, unaugmented=False,
                     names=None):
    """The training and test loaders of a data config (one with
    ``train_dataloader`` and ``test_dataloader``, e.g.
    ``configs/_base_/datasets/fashion-mnist.py``). Loaders without
    ``collate_fn`` (mmengine's ``pseudo_collate``) are fine: the features
    are the same (``frozen_features.stacked``).

    Args:
        data_config (str | mmengine.Config): the data config.
        train_images, test_images (int | None): the first so many images
            (default: all), or with ``spread`` so many spread evenly over
            the data set.
        data_root (str | None): overrides the datasets' ``data_root``.
        seed (int): the loaders' seed.
        spread (bool): take ``train_images`` and ``test_images`` evenly
            spaced over each data set, so that a data set sorted by class
            (MNIST5k) gives every class; and refuse a count beyond the data
            set's size (False: the first so many, the study's subsets).
        unaugmented (bool): the training images through the test loader's
            pipeline, in order (no shuffling): a data config written for
            training a classifier (augmenting, shuffled) gives the
            features of the images themselves.
        names (dict | None): how the caller names the arguments
            ``data_config``, ``train_images`` and ``test_images`` in its
            errors (a tool: its options).

    Returns:
        tuple: (train loader, test loader).

    Raises:
        ValueError: the config lacks one of the loaders, a data set has no
            labels, or (with ``spread``) a count is beyond its size.
    """
    from mmengine.config import Config
    from mmengine.registry import DATASETS, DefaultScope
    from mmengine.runner import Runner
    names = dict(dict(data_config='data_config', train_images='train_images',
                      test_images='test_images'), **(names or {}))
    data = Config.fromfile(data_config) if isinstance(data_config, str) \
        else data_config
    source = osp.basename(data.filename) if data.filename \
        else 'the data config'  # a Config built in code has no file
    missing = [key for key in LOADERS if not data.get(key)]
    if missing:
        raise ValueError(
            f"{names['data_config']}: {source} has no {' or '.join(missing)}"
            '; it needs a train_dataloader and a test_dataloader of '
            'labelled images (e.g. configs/_base_/datasets/mnist5k.py)')
    loaders = []
    for key, count, count_name in (
            ('train_dataloader', train_images, names['train_images']),
            ('test_dataloader', test_images, names['test_images'])):
        loader = data[key].copy()
        loader.dataset = dict(loader.dataset)
        if unaugmented and key == 'train_dataloader':
            test_pipeline = data.test_dataloader.dataset.get('pipeline')
            if test_pipeline is not None:
                loader.dataset['pipeline'] = test_pipeline
            loader.sampler = dict(loader.get('sampler') or {},
                                  type='DefaultSampler', shuffle=False)
        if count and not spread:
            loader.dataset['indices'] = count
        if data_root:
            loader.dataset['data_root'] = data_root
        with DefaultScope.overwrite_default_scope('mmpretrain'):
            if spread and count:
                size = len(DATASETS.build(loader.dataset))
                if count > size:
                    raise ValueError(
                        f'{count_name}: {count} images, but {key} of '
                        f'{source} has {size}; give at most {size}')
                picks = np.linspace(0, size - 1, count).astype(int)
                given = loader.dataset.get('indices')  # the config's subset
                if isinstance(given, int) and given >= 0:
                    given = range(given)
                loader.dataset['indices'] = [
                    int(i) for i in (picks if given is None else
                                     np.asarray(list(given))[picks])]
            built = Runner.build_dataloader(loader, seed=seed)
        dataset = built.dataset
        if len(dataset) and 'gt_label' not in dataset.get_data_info(0):
            raise ValueError(
                f"{names['data_config']}: {key}'s data set "
                f'({type(dataset).__name__}) of {source} has no labels '
                '(gt_label); the readouts need labelled images')
        loaders.append(built)
    return tuple(loaders)
