"""Names that configs and tools give to randsac_mm's extension points.

Every extension point is a registry of named objects, each added from one
file with a decorator: segment schemes and serialization orders
(``randsac_mm.segments``), attention kernels (``randsac_mm.models.
attention``), frozen-encoder readouts (``randsac_mm.evaluation``) and config
kinds (the tools' checks). Plain Python, no framework: the segment logic
that uses it imports neither torch nor mmengine.
"""

__all__ = ['Registry']


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

    def register_class(self, name, cls, base):
        """Adds the class ``cls``, a subclass of ``base``, under ``name``
        and sets its ``name`` attribute: what each extension point's class
        decorator (``register_readout``, ...) does.

        Raises:
            TypeError: ``cls`` is not a subclass of ``base``.
            ValueError: ``name`` is taken.
        """
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise TypeError(f'{self.argument} {name!r} must be a '
                            f'{base.__name__} subclass, got {cls!r}')
        self.register(name, cls)
        cls.name = name
        return cls

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
