"""What a token may attend to: the three mask rules of RandSAC.

``r`` is the serialization step of a token's segment (``token_rank``);
tokens run through their segments in prediction order.

- encoder self-attention: ``r_key <= r_query`` (own and earlier segments);
- decoder self-attention: ``1 <= r_key <= r_query`` (own and earlier
  *target* segments), and every token itself, so no row is empty;
- cross-attention (decoder to encoder): ``r_key < r_query`` (strictly
  earlier segments).

Each rule is a function of the query's and the key's rank and position
(any broadcastable tensors). Every attention kernel builds its masks by
calling them (a dense boolean mask, or flex_attention's ``mask_mod``), so
the kernels cannot disagree on what a token may see.

Why the first segment is special in cross-attention: when segment sizes
differ across a batch, the decoder's sequences start at the batch's
smallest first segment, so a few samples keep first-segment queries. Such a
row could see no encoder token at all, and a fully masked row gives NaN in
softmax, so it reads the first segment instead; it is never predicted
(``SegmentBatch.loss_mask``) and no other query attends to it.
"""

__all__ = ['cross_rule', 'decoder_rule', 'encoder_rule']


def encoder_rule(query_rank, key_rank, query_pos, key_pos):
    """Encoder self-attention: own and earlier segments."""
    return key_rank <= query_rank


def decoder_rule(query_rank, key_rank, query_pos, key_pos):
    """Decoder self-attention: own and earlier target segments (never the
    first), and the token itself."""
    return ((key_rank >= 1) & (key_rank <= query_rank)) | \
        (query_pos == key_pos)


def cross_rule(query_rank, key_rank, query_pos, key_pos):
    """Decoder to encoder: strictly earlier segments; a first-segment query
    reads the first segment."""
    return (key_rank < query_rank) | ((query_rank == 0) & (key_rank == 0))
