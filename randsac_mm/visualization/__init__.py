"""Pictures: segment layouts and their serialization (reveal GIFs, step
overlays) and reconstructions of a checkpoint."""
from .layout_pictures import (
                              reveal_frames,
                              save_gif,
                              square_crop,
                              steps_overlay,
                              token_map,
)
from .reconstruction import (
                              predict_images,
                              reconstruction_figure,
                              save_reveal_gif,
)

__all__ = ['predict_images', 'reconstruction_figure',
           'reveal_frames', 'save_gif', 'save_reveal_gif', 'square_crop',
           'steps_overlay', 'token_map']
