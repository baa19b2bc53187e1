"""Pixel prediction head and loss of RandSAC: the predicted pixels of each
token, their target, and the MSE over the predicted tokens of the global
batch."""
from mmengine.dist import all_reduce, get_world_size, is_distributed
from mmengine.model import BaseModule
from mmpretrain.registry import MODELS
from torch import nn

from ..utils import gather_tokens

__all__ = ['GlobalTokenMSELoss', 'RandSACPretrainHead']


@MODELS.register_module()
class RandSACPretrainHead(BaseModule):
    """Linear layer to the pixels of a patch, and the pixel loss.

    Args:
        in_channels (int): decoder width.
        patch_size (int): P.
        in_chans (int): image channels C (3).
        norm_pix (bool): regress pixels normalised by their patch's mean and
            standard deviation (MAE's target; the paper's default) rather
            than raw (preprocessed) pixels.
        loss (dict): config of the loss module, called with the
            predictions, the targets and the mask of the tokens that count
            (default: ``GlobalTokenMSELoss``, the MSE over the predicted
            tokens of the global batch).
    """

    def __init__(self, in_channels, patch_size, in_chans=3, norm_pix=True,
                 loss=dict(type='GlobalTokenMSELoss'), init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        self.patch_size = patch_size
        self.in_chans = in_chans
        self.norm_pix = norm_pix
        self.loss_module = MODELS.build(loss)
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

    def loss(self, pred, images, order, loss_mask):
        """The loss of the predictions: the target is built from the
        images' pixels at the predicted positions.

        Args:
            pred (torch.Tensor): [B, L, P*P*C], from :meth:`forward`.
            images (torch.Tensor): [B, C, H, W], preprocessed.
            order (torch.Tensor): int64 [B, L], the raster index of the
                token predicted at each position (``SegmentBatch.
                decoder_order``).
            loss_mask (torch.Tensor): bool [B, L], positions that count.

        Returns:
            torch.Tensor: scalar loss.
        """
        patches = gather_tokens(self.patchify(images), order)
        return self.loss_module(pred, self.construct_target(patches),
                                loss_mask)


@MODELS.register_module()
class GlobalTokenMSELoss(nn.Module):
    """Mean over the predicted tokens of their mean squared error, the
    token count taken over all processes.

    How many tokens a process predicts depends on its layouts (segment
    sizes differ between processes), so a per-process mean would weight a
    token by the inverse of its process's count, and DDP's gradient average
    would not be that of the global batch. Here the local sum is divided by
    the per-process mean of the count (the global count, all-reduced, over
    the world size): DDP's gradient average then equals the gradient of the
    MSE over the global batch, exactly what one process computes on it.
    The count carries no gradient; one process divides by its own count.
    """

    def forward(self, pred, target, mask):
        """Args:
            pred (torch.Tensor): [B, L, D], predictions.
            target (torch.Tensor): [B, L, D], in the same space.
            mask (torch.Tensor): bool [B, L], tokens that count.

        Returns:
            torch.Tensor: scalar, float32.
        """
        per_token = (pred.float() - target.float()).pow(2).mean(dim=-1)
        mask = mask.to(per_token.dtype)
        count = mask.sum().detach()
        if is_distributed():
            all_reduce(count)  # in place: the global count
            count = count / get_world_size()
        return (per_token * mask).sum() / count.clamp(min=1)
