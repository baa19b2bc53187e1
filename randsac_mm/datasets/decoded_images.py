"""An image that does not decode, named: a file the build's checks could not
see was bad (they stat, they do not decode: ImageNet's 1.28M files) stops
the run at its first read in one line naming the file, instead of mmcv's
``AssertionError: failed to load image`` or OpenCV's error without a name,
inside a data loader worker's traceback; or, in a data set that says so
(a folder of one's own images), is skipped, named in the log."""
import logging

from mmengine.logging import print_log

from .layout_errors import DataLayoutError

__all__ = ['NamesUndecodableImages']


def _decodes(path):
    """Whether the file at ``path`` reads and decodes as an image, as
    mmcv's ``LoadImageFromFile`` reads and decodes it (``mmengine.fileio``,
    ``mmcv.imfrombytes``)."""
    import mmcv
    from mmengine import fileio
    try:
        return mmcv.imfrombytes(fileio.get(path)) is not None
    except Exception:  # noqa: BLE001  (any failure: it does not)
        return False


class NamesUndecodableImages:
    """A data set mixin (before the mmengine ``BaseDataset`` class): an
    error raised while an item's pipeline runs, where the item's
    ``img_path`` does not read and decode as an image (tried again on the
    error, never on the way), becomes a :class:`DataLayoutError` naming
    it, led by the name the data set's other messages use (its ``NAME``,
    else its class name); any other error passes as it is. A data set
    whose ``SKIPS_UNDECODABLE`` is true skips the item instead (mmengine's
    ``BaseDataset`` then takes another at random), with a warning naming
    it and how many this process skipped."""

    SKIPS_UNDECODABLE = False

    def prepare_data(self, idx):
        try:
            return super().prepare_data(idx)
        except Exception as error:
            path = self.get_data_info(idx).get('img_path')
            if path is None or _decodes(path):
                raise
            name = getattr(self, 'NAME', type(self).__name__)
            why = (f'{type(error).__name__}: '
                   f'{str(error).splitlines()[0] if str(error) else ""}')
            if not self.SKIPS_UNDECODABLE:
                raise DataLayoutError(
                    f'{name}: {path} could not be decoded as an image '
                    f'({why}); replace or remove it') from error
            self.skipped = getattr(self, 'skipped', 0) + 1
            print_log(f'{name}: {path} could not be decoded as an image '
                      f'({why}): skipped for another image ({self.skipped} '
                      'skipped by this process)', logger='current',
                      level=logging.WARNING)
            return None
