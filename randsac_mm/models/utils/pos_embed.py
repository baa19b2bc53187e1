"""Fixed 2-D sine-cosine positional embeddings in raster token order."""
import torch

__all__ = ['sincos_2d_embedding']


def sincos_2d_embedding(height, width, dims, temperature=10000.0):
    """Embeddings of an ``height x width`` token grid.

    The first half of the channels encodes the column (x), the second half
    the row (y), each as sines then cosines over ``dims / 4`` frequencies.

    Returns:
        torch.Tensor: float32 [1, height * width, dims], tokens in raster
        order.
    """
    if dims % 4:
        raise ValueError(f'embed_dims must be divisible by 4 for 2-D sin-cos '
                         f'embeddings, got {dims}')
    freqs = 1.0 / temperature**(torch.arange(dims // 4) / (dims // 4))
    rows, cols = torch.meshgrid(torch.arange(height, dtype=torch.float32),
                                torch.arange(width, dtype=torch.float32),
                                indexing='ij')
    x = cols.reshape(-1, 1) * freqs
    y = rows.reshape(-1, 1) * freqs
    return torch.cat([x.sin(), x.cos(), y.sin(), y.cos()], dim=1)[None]
