"""The pixel loss of RandSAC: MSE over the predicted tokens of the global
batch."""
from mmengine.dist import all_reduce, get_world_size, is_distributed
from mmpretrain.registry import MODELS
from torch import nn

__all__ = ['GlobalTokenMSELoss']


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
