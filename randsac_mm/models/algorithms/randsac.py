"""RandSAC: Random Segments with Autoregressive Coding."""
import functools

import numpy as np
import torch
from mmengine.dist import all_reduce, is_distributed
from mmpretrain.models import BaseSelfSupervisor
from mmpretrain.registry import MODELS
from torch import nn

from ..utils import ATTENTION_KERNELS, SegmentBatch
from ..utils.attention import DEFAULT_SDPA_BACKENDS, sdpa_backend_list
from ..utils.sdpa_check import check_sdpa_backends
from ..utils.segment_batch import host_array
from .derived_shapes import decoder_shapes, fill_from_backbone, head_shapes

__all__ = ['RandSAC']


@MODELS.register_module()
class RandSAC(BaseSelfSupervisor):
    """Autoregressive segment prediction (GPT across segments, BERT within).

    Data samples carry ``token_rank`` from ``RandSACSegmentGenerator``.
    One training step (:meth:`loss`, MAE's steps with a plan first):

    1. :meth:`plan_batch`: tokens sorted by serialization step, sequence
       lengths and masks (``SegmentBatch``), planned on the host from the
       layouts, outside any compiled region;
    2. the backbone (``RandSACViT.encode_segments``) encodes all segments
       but the last, segment-causally;
    3. the neck (``RandSACDecoder``) predicts all segments but the first
       from the final-normed encoder layers (mixed by the skip layer);
       with ``neck=None`` the backbone must be the two-stream variant,
       whose query stream (``forward_two_stream``) does 2 and 3;
    4. the head maps the features to pixels and ``head.loss`` regresses
       the pixels (per-patch normalised with ``norm_pix``): the MSE over
       the predicted tokens of the global batch (``GlobalTokenMSELoss``).

    Steps 2 to 4 are :meth:`predict_segments` and ``head.loss``;
    :meth:`reconstruct` runs the same :meth:`predict_segments`.

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
        compile (bool | dict): run the training step (``forward`` with
            ``mode='loss'``, as mmengine calls it) through
            ``torch.compile(self.loss)``: the host planning runs eagerly
            (a graph break), steps 2 to 4 compiled (:attr:`compiled_loss`).
            A dict gives ``torch.compile``'s arguments (e.g.
            ``dict(mode='max-autotune')``). The first steps (and the first
            of each new sequence length, with blobs) are slow while it
            compiles. ``loss`` itself stays eager.
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
        self._compiled_loss = None  # built at the first step
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
        """Step 1: the batch's token order and masks (``SegmentBatch``),
        planned on the host from the layouts. Never traced by
        ``torch.compile`` (the layouts are numpy arrays): a compiled
        ``loss`` runs it eagerly and compiles the rest.

        Args:
            images (torch.Tensor): [B, 3, H, W], whose device the masks go
                to.
            layouts (list[DataSample] | np.ndarray | torch.Tensor): the data
                samples (with ``token_rank``), or ``token_rank`` int64
                [B, N] itself.
            trim_outer_segments (bool): leave the last segment out of the
                encoder and the first out of the decoder where the batch
                allows (the same loss, less work; see ``SegmentBatch``).
                False: all N tokens in both (the lengths the paper's FLOPs
                table counts). Training trims.

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

    def predict_segments(self, images, batch):
        """Steps 2 and 3 and the head's forward: the predicted pixels of
        every segment but the first. No host sync: it compiles whole
        (``torch.compile(fullgraph=True)``).

        Args:
            images (torch.Tensor): [B, 3, H, W], preprocessed.
            batch (SegmentBatch): the planned order and masks
                (:meth:`plan_batch`).

        Returns:
            torch.Tensor: ``pred`` [B, N - dec_start, P*P*C] (in target
            space), tokens in serialization order from position
            ``batch.dec_start`` (raster indices ``batch.decoder_order``).
        """
        if self.two_stream:
            features = self.backbone.forward_two_stream(images, batch)
        else:
            features = self.neck(
                self.backbone.encode_segments(images, batch), batch)
        return self.head(features)

    def loss(self, inputs, data_samples):
        """The training step: plan the batch on the host, predict the
        segments (backbone, neck, head), regress their pixels.

        Args:
            inputs (torch.Tensor | list[torch.Tensor]): images
                [B, 3, H, W], preprocessed.
            data_samples (list[DataSample] | np.ndarray): the data samples
                with ``token_rank``, or ``token_rank`` int64 [B, N].

        Returns:
            dict: ``loss``, a scalar tensor.
        """
        images = self._images(inputs)
        batch = self.plan_batch(images, data_samples)  # host side, eager
        pred = self.predict_segments(images, batch)  # backbone, neck, head
        loss = self.head.loss(pred, images, batch.decoder_order,
                              batch.loss_mask)
        return dict(loss=loss)

    def forward(self, inputs, data_samples=None, mode='tensor'):
        """``BaseSelfSupervisor.forward``; ``mode='loss'`` runs
        :attr:`compiled_loss`."""
        if mode == 'loss':
            return self.compiled_loss(inputs, data_samples)
        return super().forward(inputs, data_samples, mode)

    @property
    def compiled_loss(self):
        """:meth:`loss`, compiled (once, at the first step) when the model
        was built with ``compile``; else ``loss`` itself."""
        if not self.compile_options:
            return self.loss
        if self._compiled_loss is None:
            options = {} if self.compile_options is True \
                else dict(self.compile_options)
            # The function, not this model's bound method: a deep copy of
            # the model (an EMA copy) shares it and runs its own weights.
            self._compiled_loss = torch.compile(type(self).loss, **options)
        return functools.partial(self._compiled_loss, self)

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
        """Predictions in raster token order, for visualization: those of
        the training step (:meth:`predict_segments`).

        Returns:
            dict: ``pred`` and ``target`` [B, N, P*P*C] (target space; zero
            where nothing is predicted), ``loss_mask`` bool [B, N] (tokens
            that are predicted: all but the first segment's) and
            ``token_rank`` [B, N].
        """
        images = self._images(inputs)
        token_rank = self.stack_token_ranks(data_samples)
        batch = self.plan_batch(images, token_rank)
        pred = self.predict_segments(images, batch)
        token_rank = torch.from_numpy(token_rank).to(images.device)
        target = self.head.construct_target(self.head.patchify(images))
        full_pred = torch.zeros_like(target)
        index = batch.decoder_order.unsqueeze(-1).expand_as(pred)
        full_pred.scatter_(1, index, pred.to(target.dtype))
        predicted = token_rank >= 1
        full_pred[~predicted] = 0
        return dict(pred=full_pred, target=target, loss_mask=predicted,
                    token_rank=token_rank)
