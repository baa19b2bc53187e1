"""A segment layout's arguments for one token grid, validated once.

A :class:`SegmentSpec` names a registered segment scheme, builds it with
the scheme's own options, and adds what every layout has: a serialization
order and the coherence ablation. Every invalid combination fails here,
when a config is built, with a message that names the argument and the
values it allows.
"""
from dataclasses import dataclass

from .registry import SEGMENT_SCHEMES, SERIALIZATIONS
from .schemes import SegmentScheme

__all__ = ['SegmentSpec']


@dataclass(frozen=True, init=False, repr=False)
class SegmentSpec:
    """The arguments of one segment layout over an ``h x w`` token grid.

    Compares and hashes by value. A scheme's options read through:
    ``spec.square_size``, ``spec.hierarchy`` (only those of its scheme).

    Args:
        grid (tuple[int, int]): token grid ``(h, w)``.
        segment (str): a registered scheme: 'patch' (each token is a
            segment), 'square' (M x M squares) or 'blob' (K Gaussian
            blobs, paper appendix); see ``SEGMENT_SCHEMES``.
        serialization (str): a registered order, 'random' or 'raster'; see
            ``SERIALIZATIONS``.
        coherent (bool): False reassigns tokens to segments at random,
            keeping segment sizes (the paper's "Shuffle" ablation).
        **options: the scheme's options (its class documents them), e.g.
            ``square_size`` and ``hierarchy`` for 'square'.

    Attributes:
        scheme (SegmentScheme): the built scheme, holding grid and options.
    """
    segment: str
    scheme: SegmentScheme
    serialization: str
    coherent: bool

    def __init__(self, grid, segment='square', serialization='random',
                 coherent=True, **options):
        scheme_class = SEGMENT_SCHEMES.get(segment)
        names = scheme_class.option_names()
        unknown = [name for name in options if name not in names]
        if unknown:
            raise ValueError(
                f'segment={segment!r} has no option'
                f'{"s" if len(unknown) > 1 else ""} {", ".join(unknown)}; '
                f'its options: {", ".join(names) or "none"}')
        SERIALIZATIONS.get(serialization)  # raises for an unknown name
        if not isinstance(coherent, bool):
            raise ValueError(f'coherent must be True or False, got '
                             f'{coherent!r}')
        # Frozen: fields are set once, here.
        for name, value in (('segment', segment),
                            ('serialization', serialization),
                            ('coherent', coherent),
                            ('scheme', scheme_class(grid, **options))):
            object.__setattr__(self, name, value)

    @property
    def grid(self):
        """tuple[int, int]: the token grid ``(h, w)``."""
        return self.scheme.grid

    @property
    def options(self):
        """dict: the scheme's options, defaults included."""
        return self.scheme.options

    @property
    def nominal_segments(self):
        """int: the scheme's segment count S (blobs may drop some)."""
        return self.scheme.nominal_segments

    @property
    def arguments(self):
        """dict: every argument but the grid, defaults included, in the
        order configs write them; ``SegmentSpec(spec.grid,
        **spec.arguments) == spec``."""
        return dict(segment=self.segment, **self.options,
                    serialization=self.serialization, coherent=self.coherent)

    def __getattr__(self, name):
        # Reached only for names that are not attributes: the options of
        # this spec's scheme. (__dict__ is read directly, as it is empty
        # while copy and pickle rebuild a spec.)
        scheme = self.__dict__.get('scheme')
        if scheme is not None and name in scheme.option_names():
            return getattr(scheme, name)
        raise AttributeError(
            f'{type(self).__name__} has no attribute {name!r}' +
            (f' (segment={self.segment!r} has options '
             f'{scheme.option_names()})' if scheme is not None else ''))

    def arguments_repr(self):
        """str: ``arguments`` as call keywords, ``"segment='square',
        square_size=2, ..."`` (for the reprs of the spec and of the
        pipeline step)."""
        return ', '.join(f'{k}={v!r}' for k, v in self.arguments.items())

    def __repr__(self):
        return (f'{type(self).__name__}(grid={self.grid}, '
                f'{self.arguments_repr()})')
