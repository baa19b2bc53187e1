"""What a user's script needs to build and run randsac_mm models, outside
the registries' configs:

- ``build_model(config, checkpoint=None, seed=None)``: a model from a
  config, a config file or a model name (``mmpretrain.list_models
  ('*randsac*')``), over mmpretrain's ``get_model``, every key loaded;
- ``load_model(checkpoint, config=None)``: the model a checkpoint holds;
- ``build_runner(cfg)``: mmengine's Runner, or its FlexibleRunner for a
  ``strategy`` (FSDP, DeepSpeed), after ``check_strategy``;
- ``load_run_config(args)``, ``add_common_args(parser)``,
  ``enable_amp(cfg)``, ``set_epochs(cfg, n)``: what ``tools/train.py``
  and ``tools/test.py`` do to a config;
- ``use_device(device)``, ``use_device_or_exit(...)``: CUDA, or the CPU
  on purpose, chosen before mmengine starts;
- ``prepare_cpu_distributed(cfg, launcher)``: multi-process runs on the
  CPU (gloo).

Imported lazily: ``use_device`` must run before torch and mmengine look
at the GPUs, so ``import randsac_mm.apis`` imports neither.
"""
import importlib

# name: the module of this package that defines it.
_EXPORTS = {
    'build_model': 'model', 'load_model': 'model',
    'build_runner': 'runner', 'check_strategy': 'runner',
    'add_common_args': 'config', 'enable_amp': 'config',
    'load_run_config': 'config', 'set_epochs': 'config',
    'use_device': 'device', 'use_device_or_exit': 'device',
    'prepare_cpu_distributed': 'distributed',
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    module = importlib.import_module(f'.{_EXPORTS[name]}', __name__)
    return getattr(module, name)


def __dir__():
    return __all__
