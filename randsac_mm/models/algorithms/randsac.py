"""RandSAC: Random Segments with Autoregressive Coding."""
import numpy as np
import torch
from mmengine.dist import all_reduce, is_distributed
from mmpretrain.models import BaseSelfSupervisor
from mmpretrain.registry import MODELS
from torch import nn

from ..utils import ATTENTION_KERNELS, SegmentBatch, gather_tokens
from ..utils.attention import DEFAULT_SDPA_BACKENDS, sdpa_backend_list
from ..utils.sdpa_check import check_sdpa_backends
from ..utils.segment_batch import host_array
from .derived_shapes import decoder_shapes, fill_from_backbone, head_shapes

__all__ = ['RandSAC']


@MODELS.register_module()
class RandSAC(BaseSelfSupervisor):
    """Autoregressive segment prediction (GPT across segments, BERT within).

    Data samples carry ``token_rank`` from ``RandSACSegmentGenerator``.
    One training step:

    1. tokens are sorted by serialization step (``SegmentBatch``), planned
       on the host (:meth:`plan_batch`, outside any compiled region);
    2. the backbone (``RandSACViT``) encodes all segments but the last,
       segment-causally;
    3. the neck (``RandSACDecoder``) predicts all segments but the first
       from the final-normed encoder layers (mixed by the skip layer);
       with ``neck=None`` the backbone must be the two-stream variant,
       whose query stream does this;
    4. the head regresses the pixels (per-patch normalised with
       ``norm_pix``); the loss is their MSE over the predicted tokens.

    Args:
        attention (str): the attention kernel of the masked layers:
            'sdpa' (``F.scaled_dot_product_attention`` with boolean masks),
            'explicit' (matmul, float32 softmax, matmul), 'flex'
            (``flex_attention`` with block masks; CUDA, opt-in) or 'auto'
            (default): 'explicit' on a CPU, where RandSAC's short sequences
            make it the faster one (see docs/performance.md), 'sdpa'
            elsewhere.
        sdpa_backends (Sequence[str]): the backends the 'sdpa' kernel may
            run on, most preferred first: 'efficient', 'flash', 'cudnn',
            'math' (``randsac_mm.models.utils.attention``). The default,
            ('efficient', 'flash'), is memory-efficient attention on a GPU
            and the flash kernel on a CPU; 'cudnn' runs only on a GPU where
            its check passes (``sdpa_check``), else the step is refused.
        compile (bool | dict): compile the step after the host planning
            (:meth:`segment_loss`) with ``torch.compile``; a dict gives its
            arguments (e.g. ``dict(mode='max-autotune')``). The first steps
            (and the first of each new sequence length, with blobs) are
            slow while it compiles.
    """

    @property
    def two_stream(self):
        return not self.with_neck

    def __init__(self, backbone, neck=None, head=None, attention='auto',
                 sdpa_backends=DEFAULT_SDPA_BACKENDS, compile=False,
                 **kwargs):
        allowed = ('auto', ) + ATTENTION_KERNELS
        if attention not in allowed:
            raise ValueError(f'attention must be one of {allowed}, got '
                             f'{attention!r}')
        if not isinstance(compile, (bool, dict)):
            raise ValueError('compile must be True, False or a dict of '
                             f'torch.compile arguments, got {compile!r}')
        sdpa_backends = sdpa_backend_list(sdpa_backends)
        if head is None:
            raise ValueError('RandSAC needs a head (RandSACPretrainHead)')
        # Shapes the neck and head share with the backbone come from the
        # backbone: built first (as BaseSelfSupervisor would), then filled in.
        if not isinstance(backbone, nn.Module):
            backbone = MODELS.build(backbone)
        if getattr(backbone, 'with_cls_token', False):
            raise ValueError(
                'RandSAC pretraining has no class token: backbone.'
                'with_cls_token must be False (it is for evaluating encoders '
                'pretrained with one, such as MAE)')
        if neck is not None and not isinstance(neck, nn.Module):
            neck = fill_from_backbone('neck', neck, decoder_shapes(backbone))
            neck = MODELS.build(neck)
        if not isinstance(head, nn.Module):
            width = backbone.embed_dims if neck is None else neck.embed_dims
            head = fill_from_backbone('head', head,
                                      head_shapes(backbone, width))
        super().__init__(backbone=backbone, neck=neck, head=head, **kwargs)
        self.attention = attention
        self.sdpa_backends = sdpa_backends
        self.compile_options = compile
        self._compiled_segment_loss = None  # built at the first step
        if self.two_stream and not hasattr(self.backbone,
                                           'forward_two_stream'):
            raise ValueError(
                'RandSAC with neck=None is the two-stream variant: backbone '
                'must be RandSACTwoStreamViT, got '
                f'{type(self.backbone).__name__}')

    @staticmethod
    def _images(inputs):
        return inputs[0] if isinstance(inputs, (list, tuple)) else inputs

    def stack_token_ranks(self, data_samples):
        """The data samples' ``token_rank`` fields as a host array.

        They stay where the pipeline made them (numpy): ``SegmentBatch``
        plans the order on the host, so the step never waits on the device.

        Returns:
            np.ndarray: int64 [B, N].

        Raises:
            KeyError: the samples carry no ``token_rank``.
            ValueError: their layouts are for another token grid than the
                backbone's.
        """
        if not data_samples or 'token_rank' not in data_samples[0]:
            raise KeyError(
                'RandSAC: data samples have no token_rank; add '
                'RandSACSegmentGenerator to the pipeline and pack it with '
                "PackInputs(algorithm_keys=['token_rank'])")
        fields = [s.token_rank for s in data_samples]
        ranks = host_array(torch.stack(fields) if torch.is_tensor(fields[0])
                           else np.stack(fields))
        grid = tuple(self.backbone.patch_resolution)
        if ranks.shape[1] != grid[0] * grid[1]:
            raise ValueError(
                f'RandSAC: the pipeline made layouts of {ranks.shape[1]} '
                f'tokens, the backbone has a {grid[0]}x{grid[1]} grid; give '
                'RandSACSegmentGenerator the input_size and patch_size of '
                'the backbone')
        return ranks

    def attention_kernel(self, images):
        """The kernel 'auto' resolves to for ``images``' device."""
        if self.attention != 'auto':
            return self.attention
        return 'explicit' if images.device.type == 'cpu' else 'sdpa'

    def extract_feat(self, inputs, data_samples=None):
        """The probe feature: mean of the final-normed last-layer tokens.

        Returns:
            tuple[torch.Tensor]: ([B, C], ).
        """
        featmap = self.backbone(self._images(inputs))[-1]  # [B, C, h, w]
        return (featmap.flatten(2).mean(dim=2), )

    @torch.compiler.disable
    def plan_batch(self, images, layouts, trim_outer_segments=True):
        """The batch's token order and masks (``SegmentBatch``), planned on
        the host from the layouts. Never traced by ``torch.compile`` (the
        layouts are numpy arrays): a compiled ``loss`` runs it eagerly and
        compiles the rest.

        Args:
            images (torch.Tensor): [B, 3, H, W], whose device the masks go
                to.
            layouts (list[DataSample] | np.ndarray | torch.Tensor): the data
                samples (with ``token_rank``), or ``token_rank`` int64
                [B, N] itself.
            trim_outer_segments (bool): see ``SegmentBatch``.

        Returns:
            SegmentBatch
        """
        token_rank = self.stack_token_ranks(layouts) \
            if isinstance(layouts, (list, tuple)) else layouts
        kernel = self.attention_kernel(images)
        if kernel == 'sdpa':
            check_sdpa_backends(self.sdpa_backends, images.device)
        return SegmentBatch(token_rank, trim_outer_segments, attention=kernel,
                            device=images.device,
                            sdpa_backends=self.sdpa_backends)

    def predict_segments(self, images, token_rank, batch=None,
                         trim_outer_segments=True):
        """Predictions of every segment but the first.

        Args:
            images (torch.Tensor): [B, 3, H, W], preprocessed.
            token_rank (np.ndarray | torch.Tensor): int64 [B, N], on the
                host (see ``SegmentBatch``).
            batch (SegmentBatch | None): prebuilt order and masks of
                ``token_rank`` (default: built here).
            trim_outer_segments (bool): leave the last segment out of the
                encoder and the first out of the decoder where the batch
                allows (the same loss, less work; see ``SegmentBatch``).
                Used when ``batch`` is built here.

        Returns:
            tuple: ``pred`` [B, L, P*P*C] and ``target`` [B, L, P*P*C] (in
            target space), tokens in serialization order from position
            ``batch.dec_start``, and the ``SegmentBatch``.
        """
        if batch is None:
            batch = self.plan_batch(images, token_rank, trim_outer_segments)
        if self.two_stream:
            features = self.backbone.forward_two_stream(images, batch)
        else:
            features = self.neck(
                self.backbone.encode_segments(images, batch), batch)
        pred = self.head(features)
        patches = gather_tokens(self.head.patchify(images),
                                batch.decoder_order)
        return pred, self.head.construct_target(patches), batch

    def loss(self, inputs, data_samples, trim_outer_segments=True,
             **kwargs):
        """The MSE of the predicted segments' pixels; see
        :meth:`predict_segments` for ``trim_outer_segments``.

        Returns:
            dict: ``loss``, a scalar tensor.
        """
        images = self._images(inputs)
        batch = self.plan_batch(images, data_samples, trim_outer_segments)
        return dict(loss=self.compiled_segment_loss(images, batch))

    @property
    def compiled_segment_loss(self):
        """:meth:`segment_loss`, compiled when the model was built with
        ``compile`` (once, at the first step)."""
        if not self.compile_options:
            return self.segment_loss
        if self._compiled_segment_loss is None:
            options = {} if self.compile_options is True \
                else dict(self.compile_options)
            self._compiled_segment_loss = torch.compile(self.segment_loss,
                                                        **options)
        return self._compiled_segment_loss

    def segment_loss(self, images, batch):
        """The training step's computation, from preprocessed images and a
        planned ``SegmentBatch``: no host sync, so it compiles whole
        (``torch.compile(model.segment_loss, fullgraph=True)``).

        Returns:
            torch.Tensor: the scalar loss.
        """
        pred, target, batch = self.predict_segments(images, None, batch)
        return self.head.loss(pred, target, batch.loss_mask)

    def parse_losses(self, losses):
        """mmengine's, but the logged values are averaged over processes
        (the loss to backpropagate stays this process's), so a distributed
        run logs the loss of its global batch, the value one process with
        that batch logs."""
        loss, log_vars = super().parse_losses(losses)
        if is_distributed():
            for name, value in log_vars.items():
                value = value.detach().clone()
                all_reduce(value, 'mean')  # in place
                log_vars[name] = value
        return loss, log_vars

    @torch.no_grad()
    def reconstruct(self, inputs, data_samples):
        """Predictions in raster token order, for visualization.

        Returns:
            dict: ``pred`` and ``target`` [B, N, P*P*C] (target space; zero
            where nothing is predicted), ``loss_mask`` bool [B, N] (tokens
            that are predicted: all but the first segment's) and
            ``token_rank`` [B, N].
        """
        images = self._images(inputs)
        token_rank = self.stack_token_ranks(data_samples)
        pred, _, batch = self.predict_segments(images, token_rank)
        token_rank = torch.from_numpy(token_rank).to(images.device)
        target = self.head.construct_target(self.head.patchify(images))
        full_pred = torch.zeros_like(target)
        index = batch.decoder_order.unsqueeze(-1).expand_as(pred)
        full_pred.scatter_(1, index, pred.to(target.dtype))
        predicted = token_rank >= 1
        full_pred[~predicted] = 0
        return dict(pred=full_pred, target=target, loss_mask=predicted,
                    token_rank=token_rank)
