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

from ..extension_registry import Registry

__all__ = ['BATCH_SERIALIZATIONS', 'SEGMENT_SCHEMES', 'SERIALIZATIONS',
           'register_batch_serialization', 'register_scheme',
           'register_serialization']


# segment name -> SegmentScheme subclass.
SEGMENT_SCHEMES = Registry('segment')
# serialization name -> fn(segment_ids, parents, grid, rng) -> order.
SERIALIZATIONS = Registry('serialization')
# serialization name -> its batch form, fn(levels, draws) -> each token's
# sort key at each level (see :mod:`.serialization`); an order without
# one runs per sample in :func:`.batch.draw_token_ranks`.
BATCH_SERIALIZATIONS = Registry('serialization (batch form)')


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


def register_batch_serialization(name):
    """Function decorator: makes ``fn(levels, draws)`` the batch form of the
    registered order ``name`` (:mod:`randsac_mm.segments.serialization`
    documents the arguments)."""
    SERIALIZATIONS.get(name)  # raises for an order not registered
    return lambda fn: BATCH_SERIALIZATIONS.register(name, fn)
