"""Shapes of the neck and head that follow from the backbone.

A config states each shape once, in the backbone; ``RandSAC`` fills the
neck's and head's copies in. A copy a config still gives must agree: a
decoder built for another token grid would take its query positions from
that grid and train without an error.
"""

__all__ = ['decoder_shapes', 'head_shapes', 'fill_from_backbone']


def decoder_shapes(backbone):
    """What every ``SegmentDecoder`` is given, fixed by ``backbone`` (a
    RandSACViT)."""
    return dict(num_patches=tuple(backbone.patch_resolution),
                encoder_dims=backbone.embed_dims,
                encoder_layers=backbone.num_layers)


def head_shapes(backbone, width):
    """``RandSACPretrainHead`` arguments: the patch size and image channels
    of the backbone's patch embedding (any mmpretrain VisionTransformer:
    RandSACViT, MAEViT), and ``width``, that of the features it reads (the
    decoder's, or the backbone's for the two-stream variant)."""
    projection = backbone.patch_embed.projection
    return dict(patch_size=projection.kernel_size[0],
                in_chans=projection.in_channels, in_channels=width)


def _same(key, given, derived):
    if key == 'num_patches' and isinstance(given, int):
        return given == derived[0] * derived[1] and derived[0] == derived[1]
    if isinstance(derived, tuple):
        return tuple(given) == derived
    return given == derived


def fill_from_backbone(part, cfg, derived):
    """A copy of the config ``cfg`` of ``part`` ('neck' or 'head') with the
    ``derived`` values set.

    Raises:
        ValueError: ``cfg`` gives one of them with another value; the
            message names both.
    """
    cfg = dict(cfg)
    for key, value in derived.items():
        if key in cfg and not _same(key, cfg[key], value):
            raise ValueError(
                f'RandSAC: {part}.{key}={cfg[key]!r} contradicts the '
                f'backbone, which gives {key}={value!r}; leave {part}.{key} '
                'out, RandSAC takes it from the backbone')
        cfg[key] = value
    return cfg
