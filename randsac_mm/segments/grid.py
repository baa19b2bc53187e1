"""The ``(h, w)`` token grid a layout covers."""

__all__ = ['pair', 'token_grid']


def pair(value, name):
    """``(h, w)`` from an int or a pair of ints.

    Raises:
        ValueError: naming ``name`` when ``value`` is neither.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool)
                    for v in value)):
        return tuple(value)
    raise ValueError(f'{name} must be an int or a pair of ints (h, w), '
                     f'got {value!r}')


def token_grid(input_size, patch_size):
    """The ``(h, w)`` token grid of an image cut into patches.

    Args:
        input_size (int | tuple[int, int]): image side(s) in pixels.
        patch_size (int): patch side P in pixels.

    Raises:
        ValueError: when a side is not a positive multiple of ``patch_size``.
    """
    height, width = pair(input_size, 'input_size')
    if not isinstance(patch_size, int) or isinstance(patch_size, bool) \
            or patch_size < 1:
        raise ValueError(f'patch_size must be a positive int, got '
                         f'{patch_size!r}')
    if height < 1 or width < 1 or height % patch_size or width % patch_size:
        raise ValueError(
            f'input_size {height}x{width} must be divisible by patch_size '
            f'{patch_size}: allowed sides are positive multiples of '
            f'{patch_size}')
    return height // patch_size, width // patch_size
