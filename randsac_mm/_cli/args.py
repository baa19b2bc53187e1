"""Argument types and checks the command lines share: argparse ``type``s
of counts, rates and files, and the help format."""
import argparse
import os

from .errors import UserError

__all__ = ['HelpFormatter', 'check_output_file', 'check_output_folder',
           'existing_file',
           'non_negative_int', 'positive_float', 'positive_int',
           'require_file']


class HelpFormatter(argparse.RawDescriptionHelpFormatter,
                    argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with the tool's whole description as written (its module
    docstring) and every option's default."""

    def _get_help_string(self, action):
        # No "(default: None)": the help says what an unset option means,
        # and a required option has no default.
        if action.default is None or action.required:
            return action.help
        return super()._get_help_string(action)


def require_file(path, argument, what='file'):
    """Raises UserError unless ``path`` is an existing file.

    Args:
        path (str): the path given.
        argument (str): the argument's name, e.g. 'config' or '--resume'.
        what (str): what it should be, for the message ('config file').
    """
    if os.path.isdir(path):
        raise UserError(f'{argument}: {path!r} is a directory; give a '
                        f'{what}')
    if not os.path.isfile(path):
        raise UserError(f'{argument}: no such file {path!r}; give a {what}')
    return path


def _nearest_existing(path):
    """The nearest existing folder (or file) above ``path``."""
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    return parent


def _check_can_make(path, argument, what):
    """Raises UserError unless ``path`` can be made: its nearest existing
    parent a writable folder."""
    parent = _nearest_existing(path)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f'{argument}: cannot make {path} ({parent} is not a '
                        f'writable folder); give {what}')


def check_output_folder(path, argument='--out-dir'):
    """Raises UserError, naming ``argument``, unless ``path`` is a writable
    folder or one that can be made: a tool fails before its work, not
    after."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise UserError(f'{argument}: {path} is a file; give a folder')
        if not os.access(path, os.W_OK | os.X_OK):
            raise UserError(f'{argument}: {path} is not writable; give a '
                            'writable folder')
        return path
    _check_can_make(path, argument, 'a writable folder')
    return path


def check_output_file(path, argument, inputs=()):
    """Raises UserError unless ``path`` can be written as a file: not a
    folder, not one of ``inputs``, in a folder that is or can be made.

    Args:
        path (str): the output path given.
        argument (str): its argument's name ('dst', '--out').
        inputs (Iterable[tuple[str, str]]): (argument, path) of the files
            the tool reads: writing over one would lose it.
    """
    if os.path.isdir(path):
        raise UserError(f'{argument}: {path} is a folder; give a file name, '
                        f'e.g. {os.path.join(path, "out.pth")}')
    for name, source in inputs:
        if source is not None and os.path.exists(path) and \
                os.path.samefile(path, source):
            raise UserError(f'{argument}: {path} is {name}, which this tool '
                            'reads; give another file name')
    if not os.path.exists(path):
        _check_can_make(path, argument, 'a path in a writable folder')
    elif not os.access(path, os.W_OK):
        raise UserError(f'{argument}: {path} is not writable; give another '
                        'file name')
    return path


def existing_file(text):
    """argparse ``type`` of an input file: a path that exists (argparse
    names the argument in its error)."""
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f'no such file: {text!r}')
    return text


def positive_float(text):
    """argparse ``type`` of a rate or a size: a float > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number')
    if not value > 0:
        raise argparse.ArgumentTypeError(f'must be > 0, got {text}')
    return value


def non_negative_int(text):
    """argparse ``type`` of an index or an optional count: an int >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not an integer')
    if value < 0:
        raise argparse.ArgumentTypeError(f'must be >= 0, got {value}')
    return value


def positive_int(text):
    """argparse ``type`` of a count: an int >= 1 (argparse names the
    argument in its error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not an integer')
    if value < 1:
        raise argparse.ArgumentTypeError(f'must be >= 1, got {value}')
    return value
