"""Pixel prediction head and loss of RandSAC."""
from mmengine.dist import all_reduce, get_world_size, is_distributed
from mmengine.model import BaseModule
from mmpretrain.registry import MODELS
from torch import nn

__all__ = ['RandSACPretrainHead']


@MODELS.register_module()
class RandSACPretrainHead(BaseModule):
    """Linear layer to the pixels of a patch, and the masked MSE loss.

    Args:
        in_channels (int): decoder width.
        patch_size (int): P.
        in_chans (int): image channels C (3).
        norm_pix (bool): regress pixels normalised by their patch's mean and
            standard deviation (MAE's target; the paper's default) rather
            than raw (preprocessed) pixels.
    """

    def __init__(self, in_channels, patch_size, in_chans=3, norm_pix=True,
                 init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        self.patch_size = patch_size
        self.in_chans = in_chans
        self.norm_pix = norm_pix
        self.predictor = nn.Linear(in_channels,
                                   patch_size * patch_size * in_chans)

    def init_weights(self):
        super().init_weights()
        nn.init.xavier_uniform_(self.predictor.weight)
        nn.init.zeros_(self.predictor.bias)

    def patchify(self, images):
        """[B, C, H, W] -> [B, N, P*P*C], tokens in raster order, each
        patch's pixels row by row with channels last."""
        b, c, h, w = images.shape
        p = self.patch_size
        x = images.reshape(b, c, h // p, p, w // p, p)
        return x.permute(0, 2, 4, 3, 5, 1).reshape(b, (h // p) * (w // p),
                                                   p * p * c)

    def unpatchify(self, patches, grid):
        """[B, N, P*P*C] -> [B, C, H, W], the inverse of :meth:`patchify`.

        Args:
            patches (torch.Tensor): [B, N, P*P*C], tokens in raster order.
            grid (tuple[int, int]): the token grid (h, w), N = h * w.
        """
        b, n, _ = patches.shape
        h, w = grid
        if h * w != n:
            raise ValueError(f'unpatchify: grid {h}x{w} does not hold the '
                             f'{n} tokens given')
        p = self.patch_size
        x = patches.reshape(b, h, w, p, p, -1)
        return x.permute(0, 5, 1, 3, 2, 4).reshape(b, -1, h * p, w * p)

    def construct_target(self, patches):
        """Pixels [B, L, P*P*C] in the space the loss compares in."""
        if not self.norm_pix:
            return patches
        mean = patches.mean(dim=-1, keepdim=True)
        var = patches.var(dim=-1, keepdim=True)
        return (patches - mean) / (var + 1e-6)**0.5

    def forward(self, x):
        """[B, L, C_dec] -> predicted pixels [B, L, P*P*C]."""
        return self.predictor(x)

    def loss(self, pred, target, loss_mask):
        """MSE over the predicted tokens only.

        In a distributed run the token count is summed over all processes,
        and the local sum divided by its per-process mean: DDP's gradient
        average then equals the gradient of the MSE over the global batch,
        exactly what one process computes, even when segment sizes (and so
        token counts) differ between processes.

        Args:
            pred (torch.Tensor): [B, L, P*P*C].
            target (torch.Tensor): [B, L, P*P*C], from construct_target.
            loss_mask (torch.Tensor): bool [B, L], tokens that count.

        Returns:
            torch.Tensor: scalar loss.
        """
        per_token = (pred.float() - target.float()).pow(2).mean(dim=-1)
        mask = loss_mask.to(per_token.dtype)
        count = mask.sum().detach()
        if is_distributed():
            all_reduce(count)  # in place: the global count
            count = count / get_world_size()
        return (per_token * mask).sum() / count.clamp(min=1)
