"""Argument types the command lines share: argparse ``type``s of counts,
rates and seeds, ``--cfg-options``, and the help format (a path argument
is declared with its kind: :mod:`.paths`)."""
import argparse

from mmengine.config import DictAction

__all__ = ['CfgOptionsAction', 'HelpFormatter', 'MAX_SEED',
           'add_cfg_options', 'cfg_option',
           'non_negative_int', 'parse_cfg_options', 'positive_float',
           'positive_int', 'seed_value', 'split_cfg_option']

# numpy's and torch's seeds: unsigned 32-bit integers.
MAX_SEED = 2**32 - 1


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


def seed_value(text):
    """argparse ``type`` of a seed: an int from 0 to ``MAX_SEED`` (what
    numpy takes), refused here rather than after a run's work."""
    value = non_negative_int(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(
            f'must be at most {MAX_SEED}, got {value}')
    return value


def split_cfg_option(text):
    """A ``--cfg-options`` entry ``KEY=VALUE`` as ``(key, value)``, the
    value read as mmengine's ``DictAction`` reads it (int, float, bool,
    None, lists and tuples): the one reader of the syntax, for every tool.

    Raises:
        argparse.ArgumentTypeError: no ``=``, no key, or a value that cannot
            be read (unbalanced brackets).
    """
    key, sep, _ = text.partition('=')
    if not sep or not key:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not KEY=VALUE (e.g. train_cfg.max_epochs=2)')
    # DictAction as argparse runs it, on this one entry.
    read = argparse.Namespace()
    try:
        DictAction(option_strings=[], dest='entry')(None, read, [text])
    except Exception as e:  # mmengine's own assertion on brackets
        raise argparse.ArgumentTypeError(f'cannot read {text!r}: {e}')
    return key, read.entry[key]


def cfg_option(text):
    """argparse ``type`` of a ``KEY=VALUE`` entry passed on as typed (to
    another tool's ``--cfg-options``): checked as :func:`split_cfg_option`
    reads it."""
    split_cfg_option(text)
    return text


def parse_cfg_options(texts):
    """``{key: value}`` of ``KEY=VALUE`` entries, a later key winning."""
    return dict(split_cfg_option(text) for text in texts)


class CfgOptionsAction(argparse.Action):
    """``--cfg-options KEY=VALUE ...`` read into ``{key: value}``
    (:func:`parse_cfg_options`, merged over an earlier use of the flag); a
    bad entry is an argparse error naming the option."""

    def __call__(self, parser, namespace, values, option_string=None):
        options = dict(getattr(namespace, self.dest, None) or {})
        try:
            options.update(parse_cfg_options(values or ()))
        except argparse.ArgumentTypeError as e:
            parser.error(f'argument {option_string}: {e}')
        setattr(namespace, self.dest, options)


def add_cfg_options(parser, help):
    """Declares ``--cfg-options KEY=VALUE ...`` (:class:`CfgOptionsAction`;
    None when not given) on ``parser`` with the tool's own ``help``.

    Returns:
        argparse.Action
    """
    return parser.add_argument('--cfg-options', nargs='+',
                               action=CfgOptionsAction, metavar='KEY=VALUE',
                               help=help)
