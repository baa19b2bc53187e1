"""What the command lines share: one way to report a user's mistake, checks
of a config's kind, and argument types.

A tool raises :class:`UserError` (or lets one of the library's ValueError
or FileNotFoundError through: they name the argument and what is allowed)
and runs its ``main`` with :func:`run_tool`, which prints
``<tool>: error: <what is wrong>, <what is allowed>`` on one line and exits
with 2, as argparse does for a bad option. ``--debug`` shows the traceback
instead.
"""
import argparse
import os
import os.path as osp
import sys

__all__ = ['USER_ERRORS', 'HelpFormatter', 'UserError', 'add_debug_arg',
           'NEEDS_DEFAULT_COLLATE', 'check_collate', 'config_kind',
           'existing_file', 'non_negative_int', 'one_line', 'positive_float',
           'positive_int', 'require_file', 'require_kind', 'run_tool']


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


class UserError(Exception):
    """A mistake in a tool's arguments or inputs, reported as one line."""


# What run_tool reports as a user's mistake: ours, and the library's checks
# of arguments, configs and files (each names what is wrong and allowed).
USER_ERRORS = (UserError, ValueError, FileNotFoundError)


def add_debug_arg(parser):
    """Adds ``--debug`` to ``parser``."""
    parser.add_argument('--debug', action='store_true',
                        help='on an error, show its traceback instead of '
                        'one line')
    return parser


def run_tool(main, argv=None, prog=None):
    """Runs ``main(argv)``; a user error becomes one line on stderr and exit
    code 2 (the traceback with ``--debug``).

    Args:
        main (Callable[[list[str] | None], object]): the tool's main.
        argv (list[str] | None): default ``sys.argv[1:]``.
        prog (str | None): the tool's name in the message (default: the
            script's path as run).
    """
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        return main(argv)
    except USER_ERRORS as error:
        if '--debug' in args:
            raise
        name = prog or sys.argv[0]
        print(f'{name}: error: {one_line(error)}', file=sys.stderr)
        sys.exit(2)


def one_line(error):
    """An exception's message on one line (its lines joined with ' '),
    without the quotes KeyError puts around it; its type's name when it
    has none."""
    message = ' '.join(line.strip() for line in str(error).splitlines()
                       if line.strip())
    if len(message) > 1 and message[0] == message[-1] and message[0] in \
            '"\'':
        message = message[1:-1]
    return message or type(error).__name__


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


# Config kinds, by what the config holds.
KINDS = {
    'pretraining': 'a self-supervised pretraining config (RandSAC, MAE)',
    'classifier': 'a classifier config (linear probe, fine-tune, '
                  'supervised)',
    'segmentation': 'a segmentation config (mmseg)',
    'detection': 'a detection config (mmdet)',
    'data': 'a data config (dataloaders, no model)',
}
SELF_SUPERVISED = ('RandSAC', 'MAE', 'MAEMatchedToRandSAC')


def config_kind(cfg):
    """One of ``KINDS`` for an mmengine Config."""
    model = cfg.get('model')
    if model is None:
        return 'data'
    kind = model.get('type', '') if hasattr(model, 'get') else ''
    if kind in SELF_SUPERVISED:
        return 'pretraining'
    if kind == 'ImageClassifier':
        return 'classifier'
    if 'Segmentor' in str(kind):
        return 'segmentation'
    scope = cfg.get('default_scope')
    return {'mmseg': 'segmentation', 'mmdet': 'detection'}.get(
        scope, 'classifier')


def require_kind(cfg, allowed, argument, path=None, hint=None):
    """Raises UserError unless ``cfg`` is one of the ``allowed`` kinds.

    Args:
        cfg (mmengine.Config): the config given.
        allowed (tuple[str]): kinds of ``KINDS`` the tool takes.
        argument (str): the argument's name, e.g. 'config' or '--data'.
        path (str | None): the file, for the message.
        hint (dict[str, str] | str | None): what to do instead, appended to
            the message: one text, or one per refused kind.

    Returns:
        str: the config's kind.
    """
    kind = config_kind(cfg)
    if kind not in allowed:
        name = osp.basename(path) if path else 'it'
        advice = hint.get(kind) if isinstance(hint, dict) else hint
        raise UserError(
            f'{argument}: {name} is {KINDS[kind]}; this tool takes '
            + ' or '.join(KINDS[k] for k in allowed)
            + (f': {advice}' if advice else ''))
    return kind


# The kinds whose models need default_collate: SelfSupDataPreprocessor
# takes a list of images for views of one batch and the patch embedding
# then fails (IndexError). mmpretrain's ClsDataPreprocessor, mmseg's and
# mmdet's stack a list of images themselves.
NEEDS_DEFAULT_COLLATE = ('pretraining', )


def check_collate(cfg, loaders, argument):
    """Raises UserError when one of the ``loaders`` (keys of ``cfg``, e.g.
    'train_dataloader') batches without ``default_collate``: mmengine's
    default, ``pseudo_collate``, gives the model a list of images where
    it expects one stacked tensor. Check the configs whose kind is in
    ``NEEDS_DEFAULT_COLLATE`` (or data configs a pretraining model reads):
    the other kinds' preprocessors stack the list themselves."""
    for key in loaders:
        loader = cfg.get(key)
        if loader is None:
            continue
        collate = loader.get('collate_fn')
        if hasattr(collate, 'get'):
            collate = collate.get('type')
        # A name, or the function itself (new-style configs).
        collate = getattr(collate, '__name__', collate)
        if collate != 'default_collate':
            raise UserError(
                f'{argument}: {key}.collate_fn is '
                f'{collate or "not set (pseudo_collate)"}; pretraining '
                'models (SelfSupDataPreprocessor) take stacked batches: set '
                f"{key}.collate_fn=dict(type='default_collate'), as "
                'configs/_base_/datasets/*_randsac.py do')
