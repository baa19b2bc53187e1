"""The folder the pictures go to, checked before anything is drawn."""
import os
import os.path as osp

__all__ = ['check_out_dir']


def check_out_dir(path, argument='--out-dir'):
    """Raises ValueError, naming ``argument``, unless ``path`` is a
    writable folder or one that can be made (its nearest existing parent a
    writable folder), so that a tool fails before its work, not after."""
    if osp.exists(path):
        if not osp.isdir(path):
            raise ValueError(f'{argument}: {path} is a file; give a folder')
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f'{argument}: {path} is not writable; give a '
                             'writable folder')
        return
    parent = osp.dirname(osp.abspath(path))
    while not osp.exists(parent):
        parent = osp.dirname(parent)
    if not osp.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f'{argument}: cannot make {path} ({parent} is not a '
                         'writable folder); give a writable folder')
