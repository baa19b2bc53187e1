"""Checkpoints: the one reader (``reading``), whether a checkpoint fits a
model and the one refusal when it does not (``fit``), the backbone's
pretrained-initialisation check (``loading``), conversion for the
downstream transfers, export to timm and transformers, the latest complete
checkpoint of a run, the globals that ``torch.load(weights_only=True)``
may read, and atomic writes (checkpoints, and ``write_json`` for every
record and metrics file).

No model code of ours: the encoders use its loading checks, the tools its
conversion (which resizes position embeddings with mmpretrain's helper).
"""
from .atomic_local_backend import AtomicLocalBackend, save_atomic, write_json
from .conversion import ConversionError, convert_for_downstream
from .fit import check_fit, guess_kind, summarise_keys, weight_mismatch
from .latest import latest_checkpoint
from .loading import (
                      PretrainedCheckpointError,
                      check_pretrained_checkpoint,
                      encoder_state,
)
from .reading import read_checkpoint, stored_config
from .safe_globals import allow_mmengine_checkpoint_globals

__all__ = ['AtomicLocalBackend', 'ConversionError',
           'PretrainedCheckpointError', 'allow_mmengine_checkpoint_globals',
           'check_fit', 'check_pretrained_checkpoint',
           'convert_for_downstream', 'encoder_state', 'guess_kind',
           'latest_checkpoint', 'read_checkpoint', 'save_atomic',
           'stored_config', 'summarise_keys', 'weight_mismatch',
           'write_json']
