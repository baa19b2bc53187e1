"""Tiny data sets in the real on-disk formats, for tests."""
import os
import os.path as osp
import pickle

import numpy as np
from PIL import Image

from randsac_mm.datasets import imagenet100_classes


def smooth_image(rng, size=40):
    """A uint8 [size, size, 3] image with low-frequency content."""
    coarse = rng.integers(0, 256, (4, 4, 3), dtype=np.uint8)
    return np.asarray(Image.fromarray(coarse).resize((size, size),
                                                     Image.BICUBIC))


def write_cifar(root, variant='cifar10', per_batch=4, seed=0):
    """CIFAR python batches (pickled dicts, uint8 [n, 3072], CHW rows)."""
    rng = np.random.default_rng(seed)
    if variant == 'cifar10':
        folder = osp.join(root, 'cifar-10-batches-py')
        batches = [f'data_batch_{i}' for i in range(1, 6)] + ['test_batch']
        label_key, meta_name, meta = 'labels', 'batches.meta', {
            'label_names': [f'class{i}' for i in range(10)]}
        classes = 10
    else:
        folder = osp.join(root, 'cifar-100-python')
        batches = ['train', 'test']
        label_key, meta_name, meta = 'fine_labels', 'meta', {
            'fine_label_names': [f'class{i}' for i in range(100)]}
        classes = 100
    os.makedirs(folder, exist_ok=True)
    for name in batches:
        images = np.stack([smooth_image(rng, 32) for _ in range(per_batch)])
        entry = {'data': images.transpose(0, 3, 1, 2).reshape(per_batch, -1),
                 label_key: list(rng.integers(0, classes, per_batch))}
        with open(osp.join(folder, name), 'wb') as f:
            pickle.dump(entry, f)
    with open(osp.join(folder, meta_name), 'wb') as f:
        pickle.dump(meta, f)
    return root


def write_image_folder(root, classes, per_class=1, splits=('train', 'val'),
                       seed=0, ext='.JPEG'):
    """data_root/<split>/<class>/<n>.JPEG."""
    rng = np.random.default_rng(seed)
    for split in splits:
        for cls in classes:
            folder = osp.join(root, split, cls)
            os.makedirs(folder, exist_ok=True)
            for i in range(per_class):
                Image.fromarray(smooth_image(rng)).save(
                    osp.join(folder, f'{cls}_{i}{ext}'))
    return root


def write_imagenet(root, seed=0):
    """The folder layout needs all 1000 class folders: one image each."""
    return write_image_folder(root, [f'n{i:08d}' for i in range(1000)],
                              seed=seed)


def write_imagenet100(root, seed=0):
    return write_image_folder(root, imagenet100_classes(), seed=seed)


def write_unlabeled(root, seed=0):
    """Images at several depths and in several formats, plus a non-image."""
    rng = np.random.default_rng(seed)
    for rel in ('a.jpg', 'sub/b.png', 'sub/deeper/c.webp', 'sub/d.JPG'):
        path = osp.join(root, rel)
        os.makedirs(osp.dirname(path), exist_ok=True)
        Image.fromarray(smooth_image(rng)).save(path)
    with open(osp.join(root, 'notes.txt'), 'w') as f:
        f.write('not an image')
    return root
