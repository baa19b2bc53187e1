"""What the tools share: each tool is a command line over these modules.

Imported lazily, so that a light module (``randsac_mm.apis.paper`` reads
YAML only) does not pull torch and OpenMMLab in.
"""
import importlib

# name: the module of this package that defines it.
_EXPORTS = {'build_runner': 'runner', 'check_strategy': 'runner',
            'estimate_memory': 'memory', 'memory_report': 'memory'}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    module = importlib.import_module(f'.{_EXPORTS[name]}', __name__)
    return getattr(module, name)
