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
  labelled with the digit most of those pixels belong to.

The probe trains on ``settings.readout_digits`` training digits and
``settings.readout_scenes`` training scenes; its accuracy is over those
tokens of held-out images (``TEST_IMAGES``: MNIST5k's test digits, the
validation scenes). Chance is about 10%.
"""
import glob
import os.path as osp

import numpy as np

__all__ = ['token_identity']

INK = 40  # mean grey level of a token's 4x4 pixels on a digit's stroke
MIN_DIGIT_PIXELS = 4
TEST_IMAGES = dict(digits=300, scenes=150)


def _encoder(checkpoint, img_size, settings):
    """The segmentation config's backbone at ``img_size``, every tap at
    the token grid, from ``checkpoint`` (None: its own random init; seed 0).
    Returns (backbone in eval mode, the config's normalisation)."""
    import torch
    from mmengine.registry import DefaultScope
    from mmseg.registry import MODELS

    from .transfer_small import run_config
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


def token_identity(checkpoint, settings):
    """Readout accuracy (%) of the tokens' digit, on single digits and on
    scenes, of the encoder in ``checkpoint`` (a downstream encoder file;
    None: random init).

    Returns:
        dict: ``digits`` and ``scenes`` accuracy, and the test tokens read
        (``digit_tokens``, ``scene_tokens``).
    """
    result = {}
    model, norm = _encoder(checkpoint, 32, settings)
    patch = model.patch_embed.projection.stride[0]
    sets = []
    for split, count in (('train', settings.readout_digits),
                         ('test', TEST_IMAGES['digits'])):
        images, labels = _digit_images(split, count)
        sets.append(_digit_tokens(_features(model, norm, images), images,
                                  labels, patch))
    result.update(digits=_accuracy(*sets), digit_tokens=len(sets[1][1]))
    model, norm = _encoder(checkpoint, settings.scene_size, settings)
    sets = []
    for split, count in (('training', settings.readout_scenes),
                         ('validation', TEST_IMAGES['scenes'])):
        images, classes = _scene_images(settings.scenes, split, count)
        sets.append(_scene_tokens(_features(model, norm, images), classes,
                                  patch))
    result.update(scenes=_accuracy(*sets), scene_tokens=len(sets[1][1]))
    return result
