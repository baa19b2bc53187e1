"""The one Registry behind every extension point."""
import pytest

from randsac_mm.extension_registry import Registry


class Base:
    name = None


def test_a_class_is_registered_under_its_name_once():
    registry = Registry('thing')

    class One(Base):
        pass
    assert registry.register_class('one', One, Base) is One
    assert One.name == 'one' and registry.get('one') is One
    assert tuple(registry) == ('one', )

    class Other(Base):
        pass
    with pytest.raises(ValueError, match=r"^thing 'one' is already "
                       r'registered'):
        registry.register_class('one', Other, Base)
    assert Other.name is None  # a refused class keeps its name


def test_only_a_subclass_of_the_base_is_taken():
    registry = Registry('thing')
    with pytest.raises(TypeError, match=r"^thing 'x' must be a Base "
                       r'subclass, got <function'):
        registry.register_class('x', lambda: None, Base)
    with pytest.raises(TypeError, match='must be a Base subclass'):
        registry.register_class('x', int, Base)
    assert 'x' not in registry
