"""The image files a data set reads, found and checked when it is built.

A bad file must stop a run before its first iteration, named, not in a
dataloader worker at iteration 7 (a flattened traceback) or silently
(one image counted 41 times through a link to its parent folder). So:

- hidden files and folders (a name starting with '.': macOS's ``._img.JPEG``
  twins, ``.ipynb_checkpoints``) are not images of the data set; how many
  were left out is logged;
- a folder is walked once, however many links reach it: a link to a parent
  folder, or a second link to a class folder, adds nothing (logged);
- every listed file must exist (a broken link, or a line of
  ``meta/train.txt`` the disk lacks) and hold bytes: otherwise
  :class:`~.layout_errors.DataLayoutError` names them, before training;
- a folder of one's own images (web-scraped ones hold text and HTML pages
  saved as ``.jpg``) is also read header by header (:func:`check_headers`),
  and every file that is no image is named at once.

Reading the size of each file (``os.stat``) took 1.4 us a file on the
build machine's local disk with its cache warm (ImageNet-1K's 1.28 million
files: about 2 s), more on a cold or network file system; a truncated but
non-empty image is still found only when it is decoded.
"""
import os
import os.path as osp

from mmengine.logging import print_log

from .layout_errors import DataLayoutError

__all__ = ['check_headers', 'check_image_files', 'is_hidden',
           'read_annotation_lines', 'walk_images']

SHOWN = 5  # bad files a message names; the rest are counted
# Below this many files the headers are read in this process, without a
# progress bar (a pool of processes costs more than it saves).
HEADERS_IN_ONE_PROCESS = 2000


def is_hidden(relative_path):
    """Whether any part of ``relative_path`` starts with a '.' (a hidden
    file, or a file in a hidden folder)."""
    return any(part.startswith('.') and part not in ('.', '..')
               for part in relative_path.replace('\\', '/').split('/'))


def walk_images(root, extensions, dataset):
    """Every file under ``root`` ending in one of ``extensions`` (lower
    case; matched in any case), in sorted path order: hidden files and
    folders left out, and each real folder walked once (links followed,
    after the real folders beside them; a link to a folder holding ``root``
    is a loop, not followed). What was left out is logged, naming ``dataset``.

    Returns:
        list[str]: the paths, joined to ``root``.
    """
    paths, hidden, repeated = [], [], []
    seen = set()
    top = osp.realpath(root)
    for dirpath, dirnames, names in os.walk(root, followlinks=True):
        real = osp.realpath(dirpath)
        # Reached again through a link, or a link to a folder holding the
        # root (a loop: its walk would come back here).
        if real in seen or top.startswith(real + os.sep):
            repeated.append(dirpath)
            dirnames[:] = []
            continue
        seen.add(real)
        hidden += [osp.join(dirpath, n) for n in dirnames if n.startswith('.')]
        # Real folders before links to folders: a folder is read under its
        # own path, a link to it is the repeat.
        dirnames[:] = sorted(
            (n for n in dirnames if not n.startswith('.')),
            key=lambda n: (osp.islink(osp.join(dirpath, n)), n))
        for name in sorted(names):
            if not name.lower().endswith(extensions):
                continue
            (hidden if name.startswith('.') else paths).append(
                osp.join(dirpath, name))
    _log_left_out(dataset, root, hidden, 'hidden files or folders')
    _log_left_out(dataset, root, repeated, 'folders reached again through '
                  'a link (walked once)')
    return paths


def _named(paths, root):
    """The first :data:`SHOWN` of ``paths``, relative to ``root``, and how
    many more: 'a.jpg, b.png and 3 more'."""
    shown = ', '.join(osp.relpath(p, root) for p in paths[:SHOWN])
    more = f' and {len(paths) - SHOWN} more' if len(paths) > SHOWN else ''
    return shown + more


def _log_left_out(dataset, root, paths, what):
    if paths:
        shown = ', '.join(osp.relpath(p, root) for p in paths[:SHOWN])
        print_log(f'{dataset}: left out {len(paths)} {what} under {root}: '
                  f'{shown}{", ..." if len(paths) > SHOWN else ""}',
                  logger='current')


def read_annotation_lines(ann_file, dataset):
    """The (path, label) pairs of an annotation file of lines
    ``<path> <label>``; blank lines are skipped (an editor's last line).

    Raises:
        DataLayoutError: a line that is not a path and an integer label,
            naming the file and the line number.
    """
    samples = []
    with open(ann_file) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            parts = line.strip().rsplit(' ', 1)
            if len(parts) != 2 or not parts[1].lstrip('-').isdigit():
                raise DataLayoutError(
                    f'{dataset}: {ann_file}, line {number}: {line.strip()!r}'
                    ' is not "<path relative to the split folder> <integer '
                    'label>"')
            samples.append((parts[0], int(parts[1])))
    return samples


def header_error(path):
    """None if PIL reads ``path``'s header as an image's (its format and
    size: no pixel is decoded), else why not."""
    from PIL import Image
    try:
        with Image.open(path) as image:
            image.size
    except Exception as error:  # PIL's many ways to say "no image"
        return f'{type(error).__name__}: {error}'.splitlines()[0]
    return None


def check_headers(paths, dataset, root, processes=None):
    """Refuses the files among ``paths`` whose header is no image's, all
    named at once: read in ``processes`` processes (None: the cores, at
    most 16) with mmengine's progress bar, or in this one for fewer than
    :data:`HEADERS_IN_ONE_PROCESS` files. A file whose header reads but
    whose pixels do not (cut short) is met when it is decoded.

    Raises:
        DataLayoutError: naming them (the first :data:`SHOWN`) and their
            count.
    """
    if len(paths) < HEADERS_IN_ONE_PROCESS:
        errors = [header_error(path) for path in paths]
    else:
        from mmengine.utils import track_parallel_progress
        print_log(f'{dataset}: reading the headers of {len(paths)} images',
                  logger='current')
        errors = track_parallel_progress(
            header_error, paths, processes or min(os.cpu_count(), 16),
            chunksize=256)
    bad = [path for path, error in zip(paths, errors) if error]
    if bad:
        raise DataLayoutError(
            f'{dataset}: of its {len(paths)} images under {root}, '
            f'{len(bad)} could not be read as an image (their header): '
            f'{_named(bad, root)}. Remove or replace them')


def check_image_files(paths, dataset, root):
    """Refuses missing, broken-link, unreadable and empty files among
    ``paths`` (a stat and an access check each: no decode).

    Args:
        paths (list[str]): the data set's image files.
        dataset (str): its name, for the message.
        root (str): where the message's paths are relative to.

    Raises:
        DataLayoutError: naming the first of each kind and their counts.
    """
    missing, unreadable, empty = [], [], []
    for path in paths:
        try:
            size = os.stat(path).st_size  # follows links: a broken one fails
        except FileNotFoundError:
            missing.append(path)
            continue
        except PermissionError:  # a folder on its way this user cannot enter
            unreadable.append(path)
            continue
        if not os.access(path, os.R_OK):
            unreadable.append(path)
        elif size == 0:
            empty.append(path)
    problems = []
    for bad, what in ((missing, 'missing or a broken link'),
                      (unreadable, 'unreadable by this user'),
                      (empty, 'empty (0 bytes)')):
        if bad:
            problems.append(f'{len(bad)} {what}: {_named(bad, root)}')
    if problems:
        raise DataLayoutError(
            f'{dataset}: of its {len(paths)} images under {root}, '
            + '; '.join(problems) + '. Remove them or their lines from the '
            'annotation file, or restore the files')
