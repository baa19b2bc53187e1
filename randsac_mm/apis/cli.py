"""What the command lines share when they read their arguments."""
import argparse

__all__ = ['positive_int']


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
