"""What a user's script calls to build and load randsac_mm models:

- ``build_model(config, checkpoint=None, seed=None)``: a model from a
  config, a config file or a model name (``mmpretrain.list_models
  ('*randsac*')`` after ``import randsac_mm.registration``), over
  mmpretrain's ``get_model``, every key loaded;
- ``load_model(checkpoint, config=None)``: the model a checkpoint holds,
  weights loaded, with its config.

The command lines' building blocks are ``randsac_mm.cli``.
"""
from .model import build_model, load_model

__all__ = ['build_model', 'load_model']
