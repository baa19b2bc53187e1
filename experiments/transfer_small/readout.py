"""Do an encoder's frozen tokens carry the identity of the digit they lie
on? The small transfer study's readout check, per initialisation.

A logistic regression reads each token's feature (the encoder's last block,
final-normed, as UperNet's coarsest tap sees it) and predicts its digit, on
two kinds of image:

- ``digits``: single MNIST5k digits at 32 px, the pretraining's own images
  (8x8 tokens); the tokens on ink (mean pixel at least ``INK``), labelled
  with the image's digit;
- ``scenes``: the study's 64 px digit scenes (16x16 tokens); the tokens
  with at least ``MIN_DIGIT_PIXELS`` of their 16 pixels on a digit,
  labelled with the digit most of those pixels belong to;
- ``canvas``: the ``digits`` images, each pasted at a random place on the
  token grid of an empty image of the scenes' side (16x16 tokens, the
  position embeddings interpolated as for the scenes), read by the scenes'
  encoder: the same tokens' pixels as ``digits``, one digit as there, in
  the scenes' image size. Between ``digits`` and ``canvas`` only the size
  changes (and with it the position embeddings' interpolation); between
  ``canvas`` and ``scenes``, the content: one digit or several;
- ``canvas_regenerated``, ``scenes_regenerated`` (pretrained encoders
  only): the same two with the position embeddings not interpolated from
  the pretraining's 8x8 grid but made anew at 16x16 with the pretraining's
  spacing (the fixed sine-cosine at integer positions, as the pretraining
  had them): a digit's tokens then sit as far apart in position as they
  did in pretraining, where interpolation halves their distances.

The probe trains on ``settings.readout_digits`` training digits and
``settings.readout_scenes`` training scenes; its accuracy is over those
tokens of held-out images (``TEST_IMAGES``: MNIST5k's test digits, the
validation scenes). Chance is about 10%.
"""
import glob
import os.path as osp

import numpy as np

from .runs import run_config

__all__ = ['KINDS', 'token_identity']

INK = 40  # mean grey level of a token's 4x4 pixels on a digit's stroke
MIN_DIGIT_PIXELS = 4
TEST_IMAGES = dict(digits=300, scenes=150)
KINDS = ('digits', 'canvas', 'scenes', 'canvas_regenerated',
         'scenes_regenerated')  # as above


def _encoder(checkpoint, img_size, settings):
    """The segmentation config's backbone at ``img_size``, every tap at
    the token grid, from ``checkpoint`` (None: its own random init; seed 0).
    Returns (backbone in eval mode, the config's normalisation)."""
    import torch
    from mmengine.registry import DefaultScope
    from mmseg.registry import MODELS

    cfg = run_config('segmentation', 'random', 0, None, settings)
    backbone = cfg.model.backbone
    backbone.img_size = img_size
    backbone.scales = (1, ) * len(backbone.out_indices)
    backbone.drop_path_rate = 0.0
    if checkpoint is not None:
        backbone.init_cfg = dict(type='Pretrained', checkpoint=checkpoint,
                                 prefix='backbone.')
    torch.manual_seed(0)
    with DefaultScope.overwrite_default_scope('mmseg'):
        model = MODELS.build(backbone)
    model.init_weights()
    model.eval()  # (mmpretrain's BaseBackbone.train returns None)
    preprocessor = cfg.model.data_preprocessor
    return model, (preprocessor.mean[0], preprocessor.std[0])


def _features(model, norm, images):
    """[N, H, W] grey images -> [N, h, w, C] last-block token features."""
    import torch
    mean, std = norm
    out = []
    with torch.no_grad():
        for start in range(0, len(images), 100):
            x = (torch.as_tensor(images[start:start + 100]).float() - mean) \
                / std
            out.append(model(x[:, None].expand(-1, 3, -1, -1))[-1])
    return torch.cat(out).permute(0, 2, 3, 1).numpy()


def _digit_images(split, count):
    from randsac_mm.datasets.mnist import MNIST5k
    dataset = MNIST5k(split=split, pipeline=[])
    images, labels = [], []
    # Evenly spread over the split (its digits come in runs of a class).
    for i in np.linspace(0, len(dataset) - 1, min(count, len(dataset))):
        info = dataset.get_data_info(int(i))
        image = np.asarray(info['img'])
        images.append(image[..., 0] if image.ndim == 3 else image)
        labels.append(int(info['gt_label']))
    return np.stack(images), np.array(labels)


def _on_canvas(images, side, patch, seed=0):
    """[N, h, w] images -> [N, side, side]: each pasted on an empty image
    at a random offset that is a multiple of ``patch`` (so each token holds
    the same pixels as in the image alone)."""
    n, h, w = images.shape
    rng = np.random.default_rng(seed)
    canvas = np.zeros((n, side, side), images.dtype)
    for image, out in zip(images, canvas):
        y = rng.integers(0, (side - h) // patch + 1) * patch
        x = rng.integers(0, (side - w) // patch + 1) * patch
        out[y:y + h, x:x + w] = image
    return canvas


def _digit_tokens(features, images, labels, patch):
    n, h, w = images.shape
    ink = images.reshape(n, h // patch, patch, w // patch, patch).mean(
        (2, 4)) >= INK
    return features[ink], np.broadcast_to(labels[:, None, None],
                                          ink.shape)[ink]


def _scene_images(scenes, split, count):
    from PIL import Image
    paths = sorted(glob.glob(osp.join(scenes, 'images', split,
                                      '*.png')))[:count]
    images = np.stack([np.asarray(Image.open(p)) for p in paths])
    classes = np.stack([np.asarray(Image.open(
        p.replace(osp.join('images', split), osp.join('annotations', split))))
        for p in paths])
    return images, classes


def _scene_tokens(features, classes, patch):
    """Tokens on a digit and their digit (class map value 1 + digit)."""
    n, h, w = classes.shape
    blocks = classes.reshape(n, h // patch, patch, w // patch, patch)
    blocks = blocks.transpose(0, 1, 3, 2, 4).reshape(n, h // patch,
                                                     w // patch, -1)
    counts = np.stack([(blocks == 1 + d).sum(-1) for d in range(10)], -1)
    on_digit = counts.max(-1) >= MIN_DIGIT_PIXELS
    return features[on_digit], counts.argmax(-1)[on_digit]


def _accuracy(train, test):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    scaler = StandardScaler().fit(train[0])
    probe = LogisticRegression(max_iter=300).fit(scaler.transform(train[0]),
                                                 train[1])
    return 100 * probe.score(scaler.transform(test[0]), test[1])


def _canvas_and_scenes(model, norm, digits, scenes, patch):
    """``canvas`` and ``scenes`` accuracy and test tokens of the scene-sized
    ``model``; ``digits`` and ``scenes``: (training, test) images."""
    side = model.patch_resolution[0] * patch
    sets = []
    for seed, (images, labels) in enumerate(digits):
        canvas = _on_canvas(images, side, patch, seed)
        sets.append(_digit_tokens(_features(model, norm, canvas), canvas,
                                  labels, patch))
    result = dict(canvas=_accuracy(*sets), canvas_tokens=len(sets[1][1]))
    sets = [_scene_tokens(_features(model, norm, images), classes, patch)
            for images, classes in scenes]
    result.update(scenes=_accuracy(*sets), scene_tokens=len(sets[1][1]))
    return result


def token_identity(checkpoint, settings):
    """Readout accuracy (%) of the tokens' digit, on single digits (alone,
    and on an empty image of the scenes' side) and on scenes, of the
    encoder in ``checkpoint`` (a downstream encoder file; None: random
    init).

    Returns:
        dict: the accuracy of each of ``KINDS`` (the two ``_regenerated``
        only for a checkpoint), and the test tokens read
        (``digit_tokens``, ``canvas_tokens``, ``scene_tokens``).
    """
    result = {}
    model, norm = _encoder(checkpoint, 32, settings)
    patch = model.patch_embed.projection.stride[0]
    digits = [_digit_images(split, count) for split, count in (
        ('train', settings.readout_digits), ('test', TEST_IMAGES['digits']))]
    sets = [_digit_tokens(_features(model, norm, images), images, labels,
                          patch) for images, labels in digits]
    result.update(digits=_accuracy(*sets), digit_tokens=len(sets[1][1]))
    model, norm = _encoder(checkpoint, settings.scene_size, settings)
    scenes = [_scene_images(settings.scenes, split, count)
              for split, count in (('training', settings.readout_scenes),
                                   ('validation', TEST_IMAGES['scenes']))]
    result.update(_canvas_and_scenes(model, norm, digits, scenes, patch))
    if checkpoint is not None:
        from randsac_mm.models.utils import sincos_2d_embedding
        model.pos_embed.data.copy_(sincos_2d_embedding(
            *model.patch_resolution, model.embed_dims))
        result.update({f'{key}_regenerated': value for key, value in
                       _canvas_and_scenes(model, norm, digits, scenes,
                                          patch).items()
                       if key in ('canvas', 'scenes')})
    return result
