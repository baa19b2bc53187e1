"""Names that configs use for segment schemes and serialization orders.

A scheme or an order becomes usable (``segment='stripes'`` in a
``SegmentSpec`` or a pipeline config) by registering it under a name, from
any module that is imported before the spec is built::

    @register_scheme('stripes')
    @dataclass(frozen=True)
    class Stripes(SegmentScheme):
        ...

    @register_serialization('bottom_up')
    def bottom_up(segment_ids, parents, grid, rng):
        ...
"""

__all__ = ['Registry', 'SEGMENT_SCHEMES', 'SERIALIZATIONS',
           'register_scheme', 'register_serialization']


class Registry:
    """Names -> registered objects, in registration order.

    Iterating gives the names, so ``name in registry`` and ``tuple(registry)``
    read like the tuple of allowed values the registry replaces.

    Args:
        argument (str): the argument the names are values of, for messages
            (``'segment'``, ``'serialization'``).
    """

    def __init__(self, argument):
        self.argument = argument
        self._entries = {}

    def register(self, name, obj):
        """Adds ``obj`` under ``name`` and returns it (decorators return
        the class or function they register).

        Raises:
            ValueError: ``name`` is taken.
        """
        if name in self._entries:
            raise ValueError(f'{self.argument} {name!r} is already '
                             f'registered ({self._entries[name]!r})')
        self._entries[name] = obj
        return obj

    def unregister(self, name):
        """Removes ``name`` (for tests that register a temporary entry)."""
        del self._entries[name]

    def get(self, name):
        """The object registered under ``name``.

        Raises:
            ValueError: an unknown name; the message lists the known ones.
        """
        if name not in self._entries:
            raise ValueError(f'{self.argument} must be one of {tuple(self)}, '
                             f'got {name!r}')
        return self._entries[name]

    def items(self):
        return self._entries.items()

    def __contains__(self, name):
        return name in self._entries

    def __iter__(self):
        return iter(tuple(self._entries))

    def __len__(self):
        return len(self._entries)

    def __repr__(self):
        return f'Registry({self.argument!r}, {tuple(self)})'


# segment name -> SegmentScheme subclass.
SEGMENT_SCHEMES = Registry('segment')
# serialization name -> fn(segment_ids, parents, grid, rng) -> order.
SERIALIZATIONS = Registry('serialization')


def register_scheme(name):
    """Class decorator: makes a :class:`SegmentScheme` subclass the scheme
    ``segment=name``. Put it above ``@dataclass(frozen=True)``: the
    dataclass fields after ``grid`` are the scheme's options."""
    def add(cls):
        # Without its own dataclass decorator a subclass's annotated
        # options would silently not be fields, so every option would be
        # refused as unknown.
        if '__dataclass_fields__' not in vars(cls):
            raise TypeError(f'{cls.__name__}: put @dataclass(frozen=True) '
                            f'under @register_scheme({name!r})')
        return SEGMENT_SCHEMES.register(name, cls)
    return add


def register_serialization(name):
    """Function decorator: makes ``fn(segment_ids, parents, grid, rng)``
    the order ``serialization=name`` (see :mod:`.serialization`)."""
    return lambda fn: SERIALIZATIONS.register(name, fn)
