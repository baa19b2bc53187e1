"""Tiny data sets in the real on-disk formats, for tests."""
import json
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


def write_imagenet_list(root, classes, lines=None, seed=0):
    """Two images a class under data_root/train/<class>/ and their list,
    data_root/meta/train.txt: ``lines`` as given, or one line an image."""
    write_image_folder(root, classes, per_class=2, splits=('train', ),
                       seed=seed)
    if lines is None:
        lines = ''.join(f'{c}/{c}_{i}.JPEG {k}\n'
                        for k, c in enumerate(classes) for i in range(2))
    os.makedirs(osp.join(root, 'meta'))
    with open(osp.join(root, 'meta', 'train.txt'), 'w') as f:
        f.write(lines)
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


def _shapes_image(rng, size):
    """An image with 2 to 3 filled rectangles; returns (image, boxes)."""
    image = np.full((size, size, 3), 30, dtype=np.uint8)
    boxes = []
    for _ in range(rng.integers(2, 4)):
        w, h = rng.integers(size // 4, size // 2, 2)
        x, y = rng.integers(0, size - w), rng.integers(0, size - h)
        image[y:y + h, x:x + w] = rng.integers(60, 255, 3)
        boxes.append((int(x), int(y), int(w), int(h)))
    return image, boxes


def write_ade20k(root, train=4, val=2, size=96, seed=0):
    """ADEChallengeData2016 layout: images/*.jpg, annotations/*.png (uint8
    class ids, 0 = other)."""
    rng = np.random.default_rng(seed)
    for split, count in (('training', train), ('validation', val)):
        for folder in ('images', 'annotations'):
            os.makedirs(osp.join(root, folder, split), exist_ok=True)
        for i in range(count):
            image, boxes = _shapes_image(rng, size)
            label = np.zeros((size, size), dtype=np.uint8)
            for k, (x, y, w, h) in enumerate(boxes):
                label[y:y + h, x:x + w] = 1 + k
            stem = f'ADE_{split[:5]}_{i:08d}'
            Image.fromarray(image).save(
                osp.join(root, 'images', split, stem + '.jpg'))
            Image.fromarray(label).save(
                osp.join(root, 'annotations', split, stem + '.png'))
    return root


def coco_categories():
    """The 80 COCO categories (ids 1..80 here; names as mmdet knows them)."""
    from mmdet.datasets import CocoDataset
    return [dict(id=i + 1, name=name)
            for i, name in enumerate(CocoDataset.METAINFO['classes'])]


def write_coco(root, train=4, val=2, size=128, seed=0):
    """COCO layout: {train,val}2017/*.jpg and annotations/instances_*.json
    with polygon masks."""
    rng = np.random.default_rng(seed)
    categories = coco_categories()
    os.makedirs(osp.join(root, 'annotations'), exist_ok=True)
    ann_id = 1
    for split, count in (('train2017', train), ('val2017', val)):
        os.makedirs(osp.join(root, split), exist_ok=True)
        images, annotations = [], []
        for i in range(count):
            image, boxes = _shapes_image(rng, size)
            name = f'{i + 1:012d}.jpg'
            Image.fromarray(image).save(osp.join(root, split, name))
            images.append(dict(id=i + 1, file_name=name, height=size,
                               width=size))
            for k, (x, y, w, h) in enumerate(boxes):
                polygon = [x, y, x + w, y, x + w, y + h, x, y + h]
                annotations.append(dict(
                    id=ann_id, image_id=i + 1,
                    category_id=categories[k % 3]['id'],
                    segmentation=[[float(v) for v in polygon]],
                    area=float(w * h), bbox=[float(x), float(y), float(w),
                                             float(h)], iscrowd=0))
                ann_id += 1
        import json
        with open(osp.join(root, 'annotations',
                           f'instances_{split}.json'), 'w') as f:
            json.dump(dict(images=images, annotations=annotations,
                           categories=categories), f)
    return root


def write_idx(path, array):
    """An unsigned-byte IDX file (gzip when ``path`` ends in .gz)."""
    import gzip
    array = np.ascontiguousarray(array, dtype=np.uint8)
    header = bytes([0, 0, 0x08, array.ndim]) + b''.join(
        int(side).to_bytes(4, 'big') for side in array.shape)
    with (gzip.open if path.endswith('.gz') else open)(path, 'wb') as f:
        f.write(header + array.tobytes())


def write_mnist(root, train=40, test=20, compress=True, seed=0):
    """MNIST-format IDX files (28 x 28 grey images whose mean brightness
    grows with the label, so that a feature can tell the classes apart)."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    suffix = '.gz' if compress else ''
    for prefix, count in (('train', train), ('t10k', test)):
        labels = np.arange(count) % 10
        images = rng.integers(0, 40, (count, 28, 28)) + \
            (labels * 20)[:, None, None]
        write_idx(osp.join(root, f'{prefix}-images-idx3-ubyte{suffix}'),
                  images)
        write_idx(osp.join(root, f'{prefix}-labels-idx1-ubyte{suffix}'),
                  labels)
    return root


def write_logged_scalars(work_dir, timestamp, entries):
    """One start's ``<timestamp>/vis_data/scalars.json``, as mmengine's
    LoggerHook writes it: a JSON object per logged step. Returns the
    start's folder."""
    folder = os.path.join(work_dir, timestamp, 'vis_data')
    os.makedirs(folder)
    with open(os.path.join(folder, 'scalars.json'), 'w') as f:
        for entry in entries:
            f.write(json.dumps(entry) + '\n')
    return os.path.dirname(folder)
