"""randsac_mm.run.builds.build_error: where a config part that does not
build went wrong, from the config, the registry and the classes'
signatures (no traceback is read)."""
import pytest
from mmengine.registry import Registry

from randsac_mm.run.builds import build_error

PARTS = Registry('test parts')


@PARTS.register_module()
class Leaf:
    def __init__(self, size=1):
        if not isinstance(size, int):
            raise TypeError(f'size must be an int, got {size!r}')


@PARTS.register_module()
class PassesOn(Leaf):
    """Takes **kwargs and hands them to Leaf: Leaf's keys count."""

    def __init__(self, scale=1, **kwargs):
        super().__init__(**kwargs)


@PARTS.register_module()
class Holder:
    def __init__(self, parts=()):
        self.parts = [PARTS.build(p) for p in parts]


@PARTS.register_module()
class Giver:
    """Gives the part it builds a key of its own (as RandSAC gives its
    decoder the backbone's shapes)."""

    def __init__(self, part):
        self.part = PARTS.build(dict(part, given=1))


def error_of(cfg):
    with pytest.raises(TypeError) as caught:
        PARTS.build(cfg)
    return build_error(cfg, 'model', caught.value, registries=[PARTS])


def test_a_key_no_class_takes_is_named_with_its_place_and_class():
    cfg = dict(type='Holder', parts=[dict(type='Leaf'),
                                     dict(type='PassesOn', sise=2)])
    assert error_of(cfg).startswith(
        'config: model.parts.1.sise (PassesOn): ')
    assert error_of(cfg).endswith('; remove it or correct its name')


def test_a_value_of_the_wrong_type_names_the_part_that_failed():
    cfg = dict(type='Holder', parts=[dict(type='Leaf', size='big')])
    assert error_of(cfg) == (
        "config: model.parts.0 (Leaf): building it raised TypeError: size "
        "must be an int, got 'big' (a value of the wrong type? --debug "
        'shows where)')


def test_an_error_outside_any_build_keeps_the_given_path():
    assert build_error({}, 'optim_wrapper', TypeError('odd'),
                       registries=[PARTS]) == (
        'config: optim_wrapper: building it raised TypeError: odd (a value '
        'of the wrong type? --debug shows where)')


def test_a_key_a_part_gives_is_said_to_come_from_the_part():
    """The key is in no node of the config: the part that builds another
    gave it."""
    cfg = dict(type='Giver', part=dict(type='Leaf'))
    assert error_of(cfg) == (
        "config: model: Leaf.__init__() got an unexpected keyword argument "
        "'given' (a key that a part gives a part it builds, which that part "
        'does not take)')
