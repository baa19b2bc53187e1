"""Checkpoints: checks before loading, conversion for the downstream
transfers, the latest complete checkpoint of a run, the globals that
``torch.load(weights_only=True)`` may read, and atomic writes.

Depends on torch and mmengine only (no model code): the encoders use its
loading checks, the tools its conversion.
"""
from .atomic_local_backend import AtomicLocalBackend
from .conversion import ConversionError, convert_for_downstream
from .latest import latest_checkpoint
from .loading import (
                      PretrainedCheckpointError,
                      check_pretrained_checkpoint,
                      encoder_state,
                      summarise_keys,
)
from .safe_globals import allow_mmengine_checkpoint_globals

__all__ = ['AtomicLocalBackend', 'ConversionError',
           'PretrainedCheckpointError', 'allow_mmengine_checkpoint_globals',
           'check_pretrained_checkpoint', 'convert_for_downstream',
           'encoder_state', 'latest_checkpoint', 'summarise_keys']
