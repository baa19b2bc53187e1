"""RandSAC: Random Segments with Autoregressive Coding."""
import numpy as np
import torch
from mmpretrain.models import BaseSelfSupervisor
from mmpretrain.registry import MODELS
from torch import nn

from ..attention import DEFAULT_SDPA_BACKENDS, ModelAttention
from ..necks import SegmentDecoder
from ..utils import SegmentBatch
from ..utils.segment_batch import host_array
from .derived_shapes import decoder_shapes, fill_from_backbone, head_shapes

__all__ = ['RandSAC']


@MODELS.register_module()
class RandSAC(BaseSelfSupervisor):
    """Autoregressive segment prediction (GPT across segments, BERT within):
    one training step is :meth:`plan_batch`, :meth:`predict_segments`, and
    ``head.loss`` (docs/model.md, "One training step").

    Args:
        backbone (dict): the encoder, ``RandSACViT``; or the two-stream
            ``RandSACTwoStreamViT`` with ``neck=None``.
        neck (dict | None): the decoder, a ``SegmentDecoder``
            (``RandSACDecoder``; the contract: ``models.necks.
            segment_decoder``). Its shapes, and the head's, come from the
            backbone.
        head (dict): ``RandSACPretrainHead``.
        attention (str | dict): the attention kernel of the masked layers:
            'auto' (by device: each kernel's ``auto_devices``), a name
            of ``ATTENTION_KERNELS`` ('sdpa', 'explicit', 'flex'), or
            ``dict(type=name, **options)`` (docs/model.md, "Attention
            kernels"); resolved for the device a batch is on, the first
            time a batch is there (``kernel_on``), and kept for it.
        sdpa_backends (Sequence[str]): the 'sdpa' kernel's backends, most
            preferred first; 'cudnn' only where it passes its check.
        **kwargs: ``BaseSelfSupervisor``'s (``data_preprocessor``,
            ``init_cfg``, ...).
    """

    def __init__(self, backbone, neck=None, head=None, attention='auto',
                 sdpa_backends=DEFAULT_SDPA_BACKENDS, **kwargs):
        if head is None:
            raise ValueError('RandSAC needs a head (RandSACPretrainHead)')
        self.sdpa_backends = tuple(sdpa_backends)
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
        if neck is not None and not isinstance(neck, SegmentDecoder):
            raise ValueError(
                f'RandSAC: neck {type(neck).__name__} is not a '
                'SegmentDecoder; a decoder subclasses randsac_mm.models.'
                'necks.SegmentDecoder and keeps its contract (what it is '
                'given, what it returns)')
        if not isinstance(head, nn.Module):
            width = backbone.embed_dims if neck is None else neck.embed_dims
            head = fill_from_backbone('head', head,
                                      head_shapes(backbone, width))
        super().__init__(backbone=backbone, neck=neck, head=head, **kwargs)
        self.attention = attention  # checked at once (the setter)
        two_stream = getattr(self.backbone, 'predicts_segments', False)
        if neck is None and not two_stream:
            raise ValueError(
                'RandSAC with neck=None is the two-stream variant: backbone '
                'must be RandSACTwoStreamViT, got '
                f'{type(self.backbone).__name__}')
        if neck is not None and two_stream:
            raise ValueError(
                f'{type(self.backbone).__name__} predicts the segments itself '
                'with its query stream: give neck=None, not a '
                f'{type(self.neck).__name__}')

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

    @property
    def attention(self):
        """The attention setting (see the class's Args); setting it checks
        it and forgets the kernels resolved for the one before."""
        return self._model_attention.setting

    @attention.setter
    def attention(self, value):
        self._model_attention = ModelAttention(value, self.sdpa_backends)

    def kernel_on(self, device):
        """The kernel of ``attention`` on ``device``: 'auto' resolved and
        the kernel cleared there the first time it is asked for
        (``ModelAttention.on``; the check runs with gradients on and
        autocast off, whatever the batch runs under), then kept, so only a
        device's first batch runs the check. Asked for each batch's device
        rather than told when the model moves: no hook into how a runner
        moves or wraps the model (DDP, FSDP) is needed."""
        return self._model_attention.on(device)

    @property
    def kernel(self):
        """The kernel on the device the model's weights are on."""
        return self.kernel_on(next(self.parameters()).device)

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
                to and whose kernel attends (``kernel_on``).
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
        return SegmentBatch(token_rank, self.kernel_on(images.device),
                            trim_outer_segments, device=images.device)

    def predict_segments(self, images, batch):
        """Steps 2 and 3 and the head's forward: the predicted pixels of
        every segment but the first. No host sync: it compiles whole
        (``torch.compile(fullgraph=True)``).

        The backbone encodes all segments but the last, segment-causally;
        the neck predicts all but the first from the encoder's layers. The
        two-stream backbone (``predicts_segments``) does both with shared
        weights, so it takes no neck: the one place the variants differ.

        Args:
            images (torch.Tensor): [B, 3, H, W], preprocessed.
            batch (SegmentBatch): the planned order and masks
                (:meth:`plan_batch`).

        Returns:
            torch.Tensor: ``pred`` [B, N - dec_start, P*P*C] (in target
            space), tokens in serialization order from position
            ``batch.dec_start`` (raster indices ``batch.decoder_order``).
        """
        features = self.backbone.encode_segments(images, batch)
        if self.with_neck:
            features = self.neck(features, batch)
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
