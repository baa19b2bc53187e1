"""The mmpretrain transform that gives each sample its segment layout."""
import numpy as np
from mmcv.transforms import BaseTransform
from mmpretrain.registry import TRANSFORMS

from randsac_mm.segments import SegmentSpec, make_layout, token_grid

__all__ = ['RandSACSegmentGenerator']


@TRANSFORMS.register_module()
class RandSACSegmentGenerator(BaseTransform):
    """Samples a RandSAC segment layout per sample, in the data pipeline.

    Placed after the spatial augmentations, so dataloader workers carry the
    cost and every image of a batch gets its own layout.

    Randomness: each call draws one 63-bit seed from numpy's global random
    state, which ``PerSampleSeed`` (first in every pretraining pipeline)
    reseeds per sample from (run seed, epoch, sample index). The same seed
    therefore gives the same layouts, whatever the rank or dataloader
    worker, exactly like the random crops of the same pipeline.

    Added keys:
        - token_rank (np.ndarray): int64 [N], N = (H / P) * (W / P) tokens in
          raster order; the serialization step of each token's segment (0
          for the first segment). The model needs nothing else: its
          attention masks and loss come from it.

    Args:
        input_size (int | tuple[int, int]): image size (H, W) after the
            pipeline's crop.
        patch_size (int): patch side P; must divide both image sides.
        segment (str): a registered scheme: 'patch', 'square' or 'blob'.
        serialization (str): a registered order: 'random' or 'raster'.
        coherent (bool): False shuffles tokens between segments (ablation).
        **options: the scheme's options, e.g. ``square_size`` and
            ``hierarchy`` for 'square', ``num_segments``, ``hierarchy`` and
            ``exact_counts`` for 'blob' (see
            :class:`~randsac_mm.segments.SegmentSpec` and the scheme
            classes in ``randsac_mm/segments/schemes/``). An option of
            another scheme is refused, naming it.
    """

    def __init__(self,
                 input_size,
                 patch_size,
                 segment='square',
                 serialization='random',
                 coherent=True,
                 **options):
        super().__init__()
        self.input_size = input_size
        self.patch_size = patch_size
        self.grid = token_grid(input_size, patch_size)
        self.spec = SegmentSpec(self.grid, segment, serialization, coherent,
                                **options)
        # Fail when the pipeline is built, not mid-run, if the scheme can
        # (almost) never draw a layout (blobs with exact_counts).
        self.spec.scheme.check_draws()

    @classmethod
    def from_config(cls, cfg):
        """The layout step of a pretraining config's training pipeline, built.

        The one way tools get a config's segment layouts (the demo, the
        reconstruction visualizer), so they sample exactly what training
        samples.

        Raises:
            ValueError: the config's pipeline has no such step (an MAE or a
                classification config).
        """
        pipeline = cfg.train_dataloader.dataset.get('pipeline', [])
        steps = [dict(step) for step in pipeline
                 if step.get('type') in (cls.__name__, cls)]
        if not steps:
            raise ValueError(
                f'the config has no {cls.__name__} in '
                'train_dataloader.dataset.pipeline: not a RandSAC '
                'pretraining config')
        steps[0].pop('type')
        return cls(**steps[0])

    def transform(self, results):
        img = results.get('img')
        if img is not None:
            expected = tuple(p * self.patch_size for p in self.grid)
            if tuple(img.shape[:2]) != expected:
                raise ValueError(
                    f'RandSACSegmentGenerator: the image is {img.shape[0]}x'
                    f'{img.shape[1]} but input_size is {expected[0]}x'
                    f'{expected[1]}; crop or resize to input_size before '
                    'this transform')
        seed = np.random.randint(0, 2**63 - 1, dtype=np.int64)
        layout = make_layout(self.spec, np.random.default_rng(seed))
        results['token_rank'] = layout.token_rank
        return results

    def __repr__(self):
        return (f'{self.__class__.__name__}(input_size={self.input_size}, '
                f'patch_size={self.patch_size}, '
                f'{self.spec.arguments_repr()})')
