"""What a segment decoder is: the contract between RandSAC and its neck,
written once. A new decoder subclasses :class:`SegmentDecoder`, registers
in mmpretrain's ``MODELS`` and is named in a config's ``model.neck``;
nothing else in the package names it (``tests/models/test_new_decoder.py``
adds one from a test file alone)."""
from mmengine.model import BaseModule

from ...checkpoint.fit import register_pretraining_keys

__all__ = ['SegmentDecoder']


class SegmentDecoder(BaseModule):
    """The base of RandSAC's decoders (``model.neck``), and the contract
    they keep.

    What RandSAC gives a decoder, as build arguments taken from the
    backbone (a config leaves them out; one it gives must agree:
    ``models.algorithms.derived_shapes.decoder_shapes``):

    - ``num_patches`` ((int, int)): the token grid (h, w);
    - ``encoder_dims`` (int): the encoder's width;
    - ``encoder_layers`` (int): the encoder's depth, the number of outputs
      ``forward`` gets.

    What RandSAC reads back:

    - ``embed_dims`` (int): the width of ``forward``'s output, which the
      head is built to read;
    - ``forward(encoder_outputs, batch)``: ``encoder_outputs`` is the list
      of the encoder layers' final-normed outputs, [B, Lk, encoder_dims]
      each, in the batch's encoder order; ``batch`` is the
      ``SegmentBatch`` (the tokens to predict, ``batch.decoder_order``, and
      the masked attentions ``batch.decoder_attention`` and
      ``batch.cross_attention``). It returns [B, N - batch.dec_start,
      embed_dims], one row per predicted token in decoder order.

    What the rest of the package reads from the class:

    - FSDP shards every module whose class sets ``fsdp_unit = True`` as a
      unit of its own (``engine.fsdp_wrap_policy``), and the memory
      estimate counts those units: a decoder marks its layer class so.
    - ``pretraining_keys``: prefixes of its ``state_dict`` keys that only
      a pretraining checkpoint holds (a classifier has no such decoder);
      the checkpoint checks tell a pretraining checkpoint by them
      (``checkpoint.fit.guess_kind``). Every subclass's are registered
      when it is defined.
    """

    # Prefixes of its own keys (without 'neck.'), e.g. ('layers.', ).
    pretraining_keys = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register_pretraining_keys(f'neck.{key}'
                                  for key in cls.pretraining_keys)

    def forward(self, encoder_outputs, batch):
        raise NotImplementedError(
            f'{type(self).__name__}: a SegmentDecoder implements forward('
            'encoder_outputs, batch) (randsac_mm.models.necks.'
            'segment_decoder)')
