"""What a tool's path arguments are, and the checks that follow from it.

A tool declares each path argument once, with its kind
(:meth:`ToolParser.add_path <randsac_mm.cli.parser.ToolParser.add_path>`);
after parsing, :func:`check_paths` checks every declared path from its kind
alone, inputs before outputs, before the tool imports or creates anything:

============= ========================================================
kind          refused
============= ========================================================
config        missing, a folder, not a config file (``CONFIG_SUFFIXES``:
              a checkpoint in its place)
checkpoint    missing, a folder (unless it may be one), a config file (the
              two swapped)
input file    missing, a folder
output file   a folder, one of the inputs (it would be lost), a place that
              cannot be written or made, another suffix than declared
output folder a file, a place that cannot be written or made
============= ========================================================

Each refusal is a :class:`~randsac_mm.cli.errors.UserError` naming the
argument, which ``run_tool`` prints as one line with exit code 2.
"""
import os
import os.path as osp
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from .errors import UserError

__all__ = ['CHECKPOINT', 'CONFIG', 'CONFIG_SUFFIXES', 'INPUT_FILE',
           'OUTPUT_FILE', 'OUTPUT_FOLDER', 'PATH_KINDS', 'PathArgument',
           'check_checkpoint_path', 'check_config_path', 'check_output_file',
           'check_output_folder', 'check_paths', 'require_file']

CONFIG = 'config'
CHECKPOINT = 'checkpoint'
INPUT_FILE = 'input file'
OUTPUT_FILE = 'output file'
OUTPUT_FOLDER = 'output folder'
# Inputs first: an output is checked against every input.
PATH_KINDS = (CONFIG, CHECKPOINT, INPUT_FILE, OUTPUT_FILE, OUTPUT_FOLDER)
INPUTS = (CONFIG, CHECKPOINT, INPUT_FILE)

CONFIG_SUFFIXES = ('.py', '.json', '.yaml', '.yml')


@dataclass(frozen=True)
class PathArgument:
    """One declared path argument of a tool.

    Attributes:
        dest (str): its attribute in the parsed namespace.
        name (str): as the user writes it ('config', '--out').
        kind (str): one of ``PATH_KINDS``.
        suffixes (tuple[str]): the file suffixes it takes; () any.
        may_be_folder (bool): a checkpoint that may be a folder
            (DeepSpeed's).
        not_a_path (Callable[[str], bool] | None): values it takes that
            name no file ('auto' of --resume, 'sklearn:china.jpg').
        default_from (Callable[[argparse.Namespace], str] | None): the
            path it stands for when not given, from the other arguments
            (an output next to an input); the parser sets it, and it is
            checked as if given.
    """
    dest: str
    name: str
    kind: str
    suffixes: Tuple[str, ...] = ()
    may_be_folder: bool = False
    not_a_path: Optional[Callable[[str], bool]] = None
    default_from: Optional[Callable] = None

    def __post_init__(self):
        if self.kind not in PATH_KINDS:
            raise ValueError(f'kind: {self.kind!r}; allowed: {PATH_KINDS}')

    def values(self, args):
        """The paths given for it in the namespace ``args`` (none, one, or
        several for ``nargs='+'``)."""
        value = getattr(args, self.dest, None)
        values = value if isinstance(value, (list, tuple)) else [value]
        return [v for v in values if v is not None and not (
            self.not_a_path and self.not_a_path(v))]


def require_file(path, argument, what='file'):
    """Raises UserError unless ``path`` is an existing file.

    Args:
        path (str): the path given.
        argument (str): the argument's name, e.g. 'config' or '--resume'.
        what (str): what it should be, for the message ('config file').
    """
    if osp.isdir(path):
        raise UserError(f'{argument}: {path!r} is a directory; give a '
                        f'{what}')
    if not osp.isfile(path):
        raise UserError(f'{argument}: no such file {path!r}; give a {what}')
    return path


def check_config_path(path, argument='config'):
    """Raises UserError unless ``path`` is an existing config file (a
    cheap check, before anything is imported or built)."""
    require_file(path, argument, 'config file')
    if not path.endswith(CONFIG_SUFFIXES):
        suffixes = ', '.join(CONFIG_SUFFIXES)
        raise UserError(
            f'{argument}: {path!r} is not a config file ({suffixes}); '
            'configs are under configs/ (a checkpoint given in its place?)')
    return path


def check_checkpoint_path(path, argument='checkpoint', may_be_folder=False):
    """Raises UserError unless ``path`` is an existing file (or folder,
    where ``may_be_folder``) that is not a config (a config given in the
    checkpoint's place: the two swapped)."""
    if not (may_be_folder and osp.isdir(path)):
        require_file(path, argument, 'checkpoint file')
    if path.endswith(CONFIG_SUFFIXES):
        raise UserError(f'{argument}: {path!r} is a config file, not a '
                        'checkpoint: give the config first, then the '
                        'checkpoint (.pth)')
    return path


def _nearest_existing(path):
    """The nearest existing folder (or file) above ``path``."""
    parent = osp.dirname(osp.abspath(path))
    while not osp.exists(parent):
        parent = osp.dirname(parent)
    return parent


def _check_can_make(path, argument, what):
    """Raises UserError unless ``path`` can be made: its nearest existing
    parent a writable folder."""
    parent = _nearest_existing(path)
    if not osp.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f'{argument}: cannot make {path} ({parent} is not a '
                        f'writable folder); give {what}')


def check_output_folder(path, argument='--out-dir'):
    """Raises UserError, naming ``argument``, unless ``path`` is a writable
    folder or one that can be made: a tool fails before its work, not
    after."""
    if osp.exists(path):
        if not osp.isdir(path):
            raise UserError(f'{argument}: {path} is a file; give a folder')
        if not os.access(path, os.W_OK | os.X_OK):
            raise UserError(f'{argument}: {path} is not writable; give a '
                            'writable folder')
        return path
    _check_can_make(path, argument, 'a writable folder')
    return path


def check_output_file(path, argument, inputs=(), suffixes=()):
    """Raises UserError unless ``path`` can be written as a file: not a
    folder, not one of ``inputs``, in a folder that is or can be made.

    Args:
        path (str): the output path given.
        argument (str): its argument's name ('dst', '--out').
        inputs (Iterable[tuple[str, str]]): (argument, path) of the files
            the tool reads: writing over one would lose it.
        suffixes (tuple[str]): the suffixes the file may have; () any.
    """
    if osp.isdir(path):
        example = osp.join(path, 'out' + (suffixes or ('', ))[0])
        raise UserError(f'{argument}: {path} is a folder; give a file name, '
                        f'e.g. {example}')
    if suffixes and not path.endswith(tuple(suffixes)):
        raise UserError(f'{argument}: {path} does not end with '
                        f'{" or ".join(suffixes)}; give such a file name')
    for name, source in inputs:
        if source is not None and osp.exists(path) and osp.exists(source) \
                and osp.samefile(path, source):
            raise UserError(f'{argument}: {path} is {name}, which this tool '
                            'reads; give another file name')
    if not osp.exists(path):
        _check_can_make(path, argument, 'a path in a writable folder')
    elif not os.access(path, os.W_OK):
        raise UserError(f'{argument}: {path} is not writable; give another '
                        'file name')
    return path


def check_paths(declared, args):
    """Checks every path of ``args`` that ``declared`` names, inputs
    first, each by its kind (the table above).

    Args:
        declared (Iterable[PathArgument]): the tool's path arguments.
        args (argparse.Namespace): the parsed arguments.

    Raises:
        UserError: one line naming the argument.
    """
    declared = sorted(declared, key=lambda a: PATH_KINDS.index(a.kind))
    inputs = [(a.name, p) for a in declared if a.kind in INPUTS
              for p in a.values(args)]
    for argument in declared:
        for path in argument.values(args):
            if argument.kind == CONFIG:
                check_config_path(path, argument.name)
            elif argument.kind == CHECKPOINT:
                check_checkpoint_path(path, argument.name,
                                      argument.may_be_folder)
            elif argument.kind == INPUT_FILE:
                require_file(path, argument.name)
            elif argument.kind == OUTPUT_FILE:
                check_output_file(path, argument.name, inputs,
                                  argument.suffixes)
            else:
                check_output_folder(path, argument.name)
