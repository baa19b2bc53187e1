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
    state, which mmengine seeds from the run's ``randomness.seed`` (per
    rank and dataloader worker). The same seed therefore gives the same
    layouts, exactly like the random crops of the same pipeline.

    Added keys:
        - token_rank (np.ndarray): int64 [N], N = (H / P) * (W / P) tokens in
          raster order; the serialization step of each token's segment.
        - segment_ids (np.ndarray): int64 [N], the segment of each token,
          numbered by the raster position of its first token.
        - num_segments (int): number of segments S (blobs may have fewer
          than K: empty components are dropped).

    Args:
        input_size (int | tuple[int, int]): image size (H, W) after the
            pipeline's crop.
        patch_size (int): patch side P; must divide both image sides.
        segment (str): 'patch', 'square' or 'blob'.
        square_size (int): M for 'square'; must divide the token grid.
        num_segments (int): K for 'blob', 2 <= K <= N.
        hierarchy (tuple[int]): coarser group counts, ``()`` = flat,
            ``(4,)`` = the paper's 16 -> 4.
        serialization (str): 'random' or 'raster'.
        coherent (bool): False shuffles tokens between segments (ablation).
    """

    def __init__(self,
                 input_size,
                 patch_size,
                 segment='square',
                 square_size=2,
                 num_segments=16,
                 hierarchy=(),
                 serialization='random',
                 coherent=True):
        super().__init__()
        self.input_size = input_size
        self.patch_size = patch_size
        self.grid = token_grid(input_size, patch_size)
        self.spec = SegmentSpec(
            grid=self.grid,
            segment=segment,
            square_size=square_size,
            num_segments=num_segments,
            hierarchy=tuple(hierarchy),
            serialization=serialization,
            coherent=coherent)

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
        results['segment_ids'] = layout.segment_ids
        results['num_segments'] = layout.num_segments
        return results

    def __repr__(self):
        spec = self.spec
        return (f'{self.__class__.__name__}(input_size={self.input_size}, '
                f'patch_size={self.patch_size}, segment={spec.segment!r}, '
                f'square_size={spec.square_size}, '
                f'num_segments={spec.num_segments}, '
                f'hierarchy={spec.hierarchy}, '
                f'serialization={spec.serialization!r}, '
                f'coherent={spec.coherent})')
