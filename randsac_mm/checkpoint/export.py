"""An encoder's weights under timm's and Hugging Face's names.

Our encoders keep mmpretrain ``VisionTransformer``'s parameter names; these
functions give the same tensors the names of timm's ``VisionTransformer``
and of transformers' ViT family, which compute the same function: pre-norm
blocks, exact GELU, LayerNorm eps 1e-6, a final LayerNorm over the tokens.
Pure tensor bookkeeping (torch only): ``randsac_mm.apis.export`` builds the
encoder and writes the files.
"""
__all__ = ['encoder_shape', 'hf_state_dict', 'timm_state_dict']


def encoder_shape(backbone):
    """What a ViT of another library needs to rebuild ``backbone``.

    Args:
        backbone: an mmpretrain ``VisionTransformer`` (``RandSACViT``,
            ``MAEViT``, ...).

    Returns:
        dict: ``img_size`` (h, w), ``patch_size``, ``embed_dims``,
        ``num_layers``, ``num_heads``, ``mlp_ratio``, ``class_token``.

    Raises:
        ValueError: a ViT these exports cannot express (layer scale, a
            non-square patch, pre-norm of the embeddings).
    """
    first = backbone.layers[0]
    ffn = first.ffn.layers[0][0]
    scales = [first.attn.gamma1, getattr(first.ffn, 'gamma2', None)]
    if any(s is not None and type(s).__name__ != 'Identity' for s in scales):
        raise ValueError('export: layer scale is not supported')
    kernel = backbone.patch_embed.projection.kernel_size
    if kernel[0] != kernel[1]:
        raise ValueError(f'export: patches must be square, got {kernel}')
    if type(backbone.pre_norm).__name__ != 'Identity':
        raise ValueError('export: a norm before the first block (pre_norm) '
                         'is not supported')
    return dict(img_size=tuple(backbone.img_size), patch_size=kernel[0],
                embed_dims=backbone.embed_dims,
                num_layers=len(backbone.layers),
                num_heads=first.attn.num_heads,
                mlp_ratio=ffn.out_features / backbone.embed_dims,
                class_token=backbone.cls_token is not None)


def _layer_entries(state, i):
    """Layer ``i``'s tensors, by role."""
    p = f'layers.{i}.'
    return dict(
        norm1=(state[p + 'ln1.weight'], state[p + 'ln1.bias']),
        qkv=(state[p + 'attn.qkv.weight'], state[p + 'attn.qkv.bias']),
        proj=(state[p + 'attn.proj.weight'], state[p + 'attn.proj.bias']),
        norm2=(state[p + 'ln2.weight'], state[p + 'ln2.bias']),
        fc1=(state[p + 'ffn.layers.0.0.weight'],
             state[p + 'ffn.layers.0.0.bias']),
        fc2=(state[p + 'ffn.layers.1.weight'], state[p + 'ffn.layers.1.bias']))


def _pair(out, prefix, tensors):
    out[prefix + '.weight'], out[prefix + '.bias'] = tensors


def timm_state_dict(state, shape):
    """``state`` (the backbone's own state dict) under the names of timm's
    ``VisionTransformer(class_token=shape['class_token'], num_classes=0,
    global_pool='avg', fc_norm=False)``."""
    out = {'pos_embed': state['pos_embed']}
    if shape['class_token']:
        out['cls_token'] = state['cls_token']
    _pair(out, 'patch_embed.proj', (state['patch_embed.projection.weight'],
                                    state['patch_embed.projection.bias']))
    for i in range(shape['num_layers']):
        layer = _layer_entries(state, i)
        for ours, theirs in (('norm1', 'norm1'), ('qkv', 'attn.qkv'),
                             ('proj', 'attn.proj'), ('norm2', 'norm2'),
                             ('fc1', 'mlp.fc1'), ('fc2', 'mlp.fc2')):
            _pair(out, f'blocks.{i}.{theirs}', layer[ours])
    _pair(out, 'norm', (state['ln1.weight'], state['ln1.bias']))
    return {k: v.contiguous() for k, v in out.items()}


def hf_state_dict(state, shape):
    """``state`` under the names of transformers' ``ViTModel`` (with a
    class token) or ``IJepaModel`` (the same ViT without one), as
    transformers 4.47 names them: ``embeddings.*``, ``encoder.layer.<i>.*``
    with separate query, key and value projections, ``layernorm``."""
    out = {'embeddings.position_embeddings': state['pos_embed']}
    if shape['class_token']:
        out['embeddings.cls_token'] = state['cls_token']
    _pair(out, 'embeddings.patch_embeddings.projection',
          (state['patch_embed.projection.weight'],
           state['patch_embed.projection.bias']))
    for i in range(shape['num_layers']):
        layer = _layer_entries(state, i)
        p = f'encoder.layer.{i}.'
        weights = layer['qkv'][0].chunk(3, dim=0)
        biases = layer['qkv'][1].chunk(3, dim=0)
        for name, weight, bias in zip(('query', 'key', 'value'), weights,
                                      biases):
            _pair(out, p + f'attention.attention.{name}', (weight, bias))
        _pair(out, p + 'attention.output.dense', layer['proj'])
        _pair(out, p + 'layernorm_before', layer['norm1'])
        _pair(out, p + 'layernorm_after', layer['norm2'])
        _pair(out, p + 'intermediate.dense', layer['fc1'])
        _pair(out, p + 'output.dense', layer['fc2'])
    _pair(out, 'layernorm', (state['ln1.weight'], state['ln1.bias']))
    return {k: v.contiguous() for k, v in out.items()}
