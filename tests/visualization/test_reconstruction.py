"""predict_images: the pixels vis_reconstruction draws, the first segment
kept and every other one the model's prediction."""
import numpy as np
import pytest
import torch
from mmengine.config import Config
from mmpretrain.structures import DataSample

from randsac_mm.apis import build_model
from randsac_mm.datasets import MNIST5k, RandSACSegmentGenerator
from randsac_mm.visualization.reconstruction import predict_images

from ..conftest import REPO_ROOT

CONFIG = f'{REPO_ROOT}/configs/demo/randsac_vit-mini-p4_square-16to4_mnist.py'


def _sample(rank):
    sample = DataSample()
    sample.set_field(rank, 'token_rank')
    return sample


def test_prediction_keeps_the_first_segment_and_predicts_the_rest():
    cfg = Config.fromfile(CONFIG)
    model = build_model(cfg, seed=0)  # untrained: the mapping is the point
    images = np.stack([MNIST5k(split='test').get_data_info(i)['img']
                       for i in range(4)])
    generator = RandSACSegmentGenerator.from_config(cfg)
    np.random.seed(0)
    ranks = np.stack([generator(dict())['token_rank'] for _ in images])
    shown = predict_images(model, images, ranks)
    assert shown.shape == images.shape and shown.dtype == np.uint8
    first = np.kron((ranks == 0).reshape(-1, 8, 8),
                    np.ones((4, 4), dtype=bool))  # [B, 32, 32] pixels
    assert np.array_equal(shown[first], images[first])
    # Predicted pixels are the model's, not copies of the image.
    assert not np.array_equal(shown[~first], images[~first])
    # ... and they are exactly the head's output mapped back to pixels.
    preprocessor = model.data_preprocessor
    out = model.reconstruct(
        (torch.from_numpy(images).permute(0, 3, 1, 2).float() -
         preprocessor.mean) / preprocessor.std,
        [_sample(r) for r in ranks])
    pixels = model.head.unpatchify(out['pred'], (8, 8)) * \
        preprocessor.std + preprocessor.mean
    expected = pixels.clamp(0, 255).round().byte().permute(0, 2, 3, 1)
    assert np.array_equal(shown[~first], expected.numpy()[~first])


def test_a_model_that_would_not_normalise_is_refused():
    from mmpretrain.registry import MODELS
    model = MODELS.build(Config.fromfile(CONFIG).model)  # no preprocessor
    with pytest.raises(ValueError, match='build_model'):
        predict_images(model, None, None)


def test_the_figure_names_its_columns_rows_and_the_order_of_colours():
    import matplotlib.pyplot as plt
    import numpy as np

    from randsac_mm.visualization.reconstruction import reconstruction_figure
    images = np.zeros((2, 16, 16, 3), np.uint8)
    ranks = np.tile(np.arange(16), (2, 1))
    fig = reconstruction_figure(images, ranks, images, (4, 4), None,
                                'title', names=['cat', 'dog'])
    try:
        axes = fig.axes
        assert [a.get_title() for a in axes[:2]] == ['cat', 'dog']
        assert [axes[i].get_ylabel() for i in (0, 2, 4)] == [
            'original', 'serialization', 'prediction']
        key = axes[-1]  # the colour bar
        assert [t.get_text() for t in key.get_yticklabels()] == [
            'first', 'last']
        assert key.get_ylabel() == 'prediction step'
    finally:
        plt.close(fig)
