"""What a class's constructor argument may be, and the one error that
refuses a value outside it.

Each of our classes guards its own arguments where it takes them
(``check_argument('drop_path_rate', value, RATE)`` in its ``__init__``),
so that a value it cannot use is refused when the model or optimizer is
built (``tools/train.py --dry-run`` builds both) rather than giving NaN or
training nothing in silence. The tools name the refused key by its place
in the config (``config: model.backbone.drop_path_rate=1.0: give a number
in [0, 1)``): :class:`ArgumentOutOfRange` says which argument of the class
was refused, the build says which class.
"""
import numbers

__all__ = ['ArgumentOutOfRange', 'LAYER_DECAY_RATE', 'RATE',
           'check_argument', 'unread_argument']


class ArgumentOutOfRange(ValueError):
    """A constructor argument outside what its class can use.

    Attributes:
        argument (str): the key as the class's config writes it
            ('drop_path_rate', 'paramwise_cfg.layer_decay_rate').
        value: the value given.
        allowed (str): what the class takes ('a number in [0, 1)').
    """

    def __init__(self, argument, value, allowed):
        super().__init__(f'{argument}={value!r}: give {allowed}')
        self.argument, self.value, self.allowed = argument, value, allowed


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


# (test, what is allowed)
RATE = (lambda v: _number(v) and 0 <= v < 1, 'a number in [0, 1)')
# Layer-wise learning-rate decay: the factor for one layer closer to the
# input; 1 is none, 0 would freeze every layer but the last.
LAYER_DECAY_RATE = (lambda v: _number(v) and 0 < v <= 1,
                    'a number in (0, 1]')


def check_argument(argument, value, limit):
    """Raises :class:`ArgumentOutOfRange` unless ``value`` passes
    ``limit``, a (test, what is allowed) pair such as :data:`RATE`."""
    test, allowed = limit
    if not test(value):
        raise ArgumentOutOfRange(argument, value, allowed)


def unread_argument(argument, value, owner, instead):
    """The :class:`ArgumentOutOfRange` for an argument a class would take
    and ignore in silence.

    Args:
        owner (str): the class that ignores it.
        instead (str): what to give for the argument to act.
    """
    return ArgumentOutOfRange(argument, value, (
        f'it to a class that reads it: {owner} ignores it ({instead}), or '
        'remove it'))
