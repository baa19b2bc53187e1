"""The files a user's image folders hold, met when the data set is built:
hidden files and link loops left out (and logged), many bad files counted,
a malformed annotation line named before training. Each kind of bad file
in each data set: test_every_data_set_walked.py."""
import os

import pytest

from randsac_mm.datasets import (
    CheckedImageNet,
    DataLayoutError,
    ImageNet100,
    UnlabeledImageFolder,
)
from randsac_mm.datasets.image_files import is_hidden

from .. import data_factory

CLASSES = ['n01440764', 'n01443537']


def names(dataset, root):
    return sorted(os.path.relpath(dataset.get_data_info(i)['img_path'], root)
                  for i in range(len(dataset)))


def test_hidden_parts_of_a_path():
    assert is_hidden('._img0.JPEG') and is_hidden('a/.cache/b.png')
    assert not is_hidden('a/b.png') and not is_hidden('./a/b.png')


def test_hidden_files_and_link_loops_are_left_out_and_logged(tmp_path,
                                                             logged):
    data_factory.write_unlabeled(str(tmp_path))
    (tmp_path / '._a.jpg').write_bytes(b'macOS resource fork')
    (tmp_path / '.thumbs').mkdir()
    (tmp_path / '.thumbs' / 'e.png').write_bytes(b'hidden folder')
    (tmp_path / 'sub' / 'up').symlink_to('..')          # a loop
    (tmp_path / 'again').symlink_to('sub')              # a second way in
    dataset = UnlabeledImageFolder(data_root=str(tmp_path))
    assert names(dataset, tmp_path) == [
        'a.jpg', 'sub/b.png', 'sub/d.JPG', 'sub/deeper/c.webp']
    said = '\n'.join(logged)
    assert 'left out 2 hidden files or folders' in said
    assert '._a.jpg' in said and '.thumbs' in said
    assert 'left out 2 folders reached again through a link' in said


def test_a_linked_folder_seen_once_is_read(tmp_path):
    data_factory.write_unlabeled(str(tmp_path / 'real'))
    (tmp_path / 'data').mkdir()
    (tmp_path / 'data' / 'linked').symlink_to(tmp_path / 'real')
    dataset = UnlabeledImageFolder(data_root=str(tmp_path / 'data'))
    assert len(dataset) == 4


def test_many_bad_files_are_counted_not_all_named(tmp_path):
    for i in range(8):
        (tmp_path / f'{i}.png').write_bytes(b'')
    with pytest.raises(DataLayoutError,
                       match=r'8 empty \(0 bytes\): 0.png, 1.png, 2.png, '
                       r'3.png, 4.png and 3 more\.'):
        UnlabeledImageFolder(data_root=str(tmp_path))


def test_blank_lines_of_an_annotation_file_are_skipped(tmp_path):
    data_factory.write_imagenet_list(
        str(tmp_path), CLASSES,
        'n01440764/n01440764_0.JPEG 0\n\nn01443537/n01443537_1.JPEG 1\n\n')
    train = CheckedImageNet(data_root=str(tmp_path), split='train')
    assert [train.get_data_info(i)['gt_label'] for i in range(2)] == [0, 1]


def test_a_malformed_annotation_line_is_named_with_its_number(tmp_path):
    data_factory.write_imagenet_list(
        str(tmp_path), CLASSES,
        'n01440764/n01440764_0.JPEG 0\nn01443537/n01443537_1.JPEG\n')
    with pytest.raises(DataLayoutError, match=r"train.txt, line 2: "
                       r"'n01443537/n01443537_1.JPEG' is not"):
        CheckedImageNet(data_root=str(tmp_path), split='train')


def test_imagenet100_leaves_hidden_files_out_and_names_empty_ones(
        tmp_path):
    data_factory.write_imagenet100(str(tmp_path))
    first = sorted(os.listdir(tmp_path / 'train'))[0]
    (tmp_path / 'train' / first / '._twin.JPEG').write_bytes(b'fork')
    assert len(ImageNet100(data_root=str(tmp_path), split='train')) == 100
    (tmp_path / 'train' / first / f'{first}_0.JPEG').write_bytes(b'')
    with pytest.raises(DataLayoutError, match=r'1 empty \(0 bytes\): '
                       f'{first}/{first}_0.JPEG'):
        ImageNet100(data_root=str(tmp_path), split='train')


def test_class_folders_are_walked_once_and_an_empty_one_named(tmp_path):
    """The folder layout walks each class folder as UnlabeledImageFolder
    walks its root: a link loop or a second way into a folder adds no
    image (mmpretrain's own walk ended in 'Too many levels of symbolic
    links', or read a linked folder twice)."""
    data_factory.write_imagenet100(str(tmp_path))
    first, second = sorted(os.listdir(tmp_path / 'train'))[:2]
    (tmp_path / 'train' / first / 'up').symlink_to('..')    # a loop
    (tmp_path / 'train' / first / 'same').symlink_to('.')   # itself again
    dataset = ImageNet100(data_root=str(tmp_path), split='train')
    assert len(dataset) == 100
    assert dataset.get_data_info(0)['gt_label'] == 0
    assert dataset.get_data_info(99)['gt_label'] == 99
    for image in (tmp_path / 'train' / second).iterdir():
        image.unlink()
    with pytest.raises(DataLayoutError, match=(
            f'^ImageNet100: 1 class folders under .* hold no image ending '
            rf"in \(.*\): {second}$")):
        ImageNet100(data_root=str(tmp_path), split='train')


def test_an_image_that_does_not_decode_is_named_at_its_read(tmp_path):
    """The build's checks of a listed data set stat the files; one whose
    bytes are not an image stops its first read in one line naming it,
    also from a data loader worker (its traceback dropped); any other
    pipeline error passes as it is. (A folder of one's own reads the
    headers at build and skips an image cut short: below.)"""
    import torch

    from randsac_mm.cli.errors import one_line
    data_factory.write_imagenet_list(str(tmp_path), CLASSES)
    bad = tmp_path / 'train' / CLASSES[0] / f'{CLASSES[0]}_0.JPEG'
    bad.write_bytes(b'\xff\xd8\xff\xe0 cut short')
    pipeline = [dict(type='LoadImageFromFile')]
    dataset = CheckedImageNet(data_root=str(tmp_path), split='train',
                              pipeline=pipeline)
    first = names(dataset, tmp_path).index(str(bad.relative_to(tmp_path)))
    with pytest.raises(DataLayoutError, match=(
            rf'^CheckedImageNet: {bad} could not be decoded '
            r'as an image \(.*\); replace or remove it$')):
        dataset[first]
    assert dataset[first + 1]['img'].ndim == 3  # the others read
    loader = torch.utils.data.DataLoader(
        torch.utils.data.Subset(dataset, [first]), num_workers=1,
        collate_fn=lambda items: items)
    with pytest.raises(DataLayoutError) as info:
        next(iter(loader))
    assert one_line(info.value).startswith(
        f'CheckedImageNet: {bad} could not be decoded')
    assert 'Traceback' not in one_line(info.value)
    from mmcv.transforms import BaseTransform

    class Breaks(BaseTransform):
        def transform(self, results):
            raise KeyError('a bug after the image was read')

    other = CheckedImageNet(data_root=str(tmp_path), split='train',
                            pipeline=pipeline + [dict(type=Breaks)])
    with pytest.raises(KeyError, match='a bug after the image was read'):
        other[first + 1]


def test_unreadable_images_are_named_before_training(tmp_path, monkeypatch):
    """A file this user may not read, or one behind a folder it may not
    enter, is refused with the others (as root, every file is readable:
    the refusals are simulated)."""
    data_factory.write_unlabeled(str(tmp_path))
    locked, behind = str(tmp_path / 'a.jpg'), str(tmp_path / 'sub' / 'b.png')
    access, stat = os.access, os.stat
    monkeypatch.setattr(os, 'access', lambda path, mode, **kw: False
                        if path == locked else access(path, mode, **kw))

    def stat_or_refuse(path, *args, **kwargs):
        if path == behind:
            raise PermissionError(13, 'Permission denied', path)
        return stat(path, *args, **kwargs)

    with pytest.raises(DataLayoutError) as info:
        from randsac_mm.datasets.image_files import check_image_files
        monkeypatch.setattr(os, 'stat', stat_or_refuse)
        check_image_files(sorted([locked, behind]), 'UnlabeledImageFolder',
                          str(tmp_path))
    assert str(info.value) == (
        f'UnlabeledImageFolder: of its 2 images under {tmp_path}, 2 '
        'unreadable by this user: a.jpg, sub/b.png. Remove them or their '
        'lines from the annotation file, or restore the files')


def test_every_file_that_is_no_image_is_named_at_once(tmp_path, monkeypatch):
    """A web-scraped folder: pages and texts saved as .jpg. Read header by
    header, in a pool of processes for a large folder (here made small)."""
    from randsac_mm.datasets import image_files
    data_factory.write_unlabeled(str(tmp_path))
    (tmp_path / 'page.jpg').write_bytes(b'<html>404 Not Found</html>')
    (tmp_path / 'sub' / 'note.png').write_bytes(b'not an image')
    for processes in (None, 2):
        if processes:
            monkeypatch.setattr(image_files, 'HEADERS_IN_ONE_PROCESS', 1)
        with pytest.raises(DataLayoutError) as info:
            image_files.check_headers(
                image_files.walk_images(str(tmp_path), ('.jpg', '.png'), 'x'),
                'UnlabeledImageFolder', str(tmp_path), processes)
        assert str(info.value) == (
            f'UnlabeledImageFolder: of its 5 images under {tmp_path}, 2 '
            'could not be read as an image (their header): page.jpg, '
            'sub/note.png. Remove or replace them')


def test_an_image_cut_short_is_skipped_named_and_counted(tmp_path, logged):
    """Its header reads (the build's check passes it); its pixels do not:
    another image is read instead, and the log says which was skipped."""
    data_factory.write_unlabeled(str(tmp_path))
    whole = (tmp_path / 'a.jpg').read_bytes()
    (tmp_path / 'a.jpg').write_bytes(whole[:len(whole) * 7 // 10])
    dataset = UnlabeledImageFolder(
        data_root=str(tmp_path), pipeline=[dict(type='LoadImageFromFile')])
    assert len(dataset) == 4
    # mmengine's BaseDataset picks another at random: a.jpg again, at times.
    item = dataset[0]
    assert not item['img_path'].endswith('a.jpg') and item['img'].size
    said = [line for line in logged if 'skipped' in line]
    assert len(said) == dataset.skipped >= 1
    for count, line in enumerate(said, start=1):
        assert line.startswith(f'UnlabeledImageFolder: {tmp_path}/a.jpg '
                               'could not be decoded as an image (')
        assert line.endswith(f'skipped for another image ({count} skipped '
                             'by this process)')
