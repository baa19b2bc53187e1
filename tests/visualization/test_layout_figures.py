"""vis_segments' pictures of one call show one draw of each layout: a
config's own layout is the same in the schemes panel, the hierarchy figure
and the GIF (before: three draws, while --help said the GIF reveals the
panel's layout)."""
import numpy as np

from randsac_mm.segments import SegmentSpec, token_grid
from randsac_mm.visualization import layout_figures
from randsac_mm.visualization.layout_figures import (
    LayoutDraws,
    hierarchy_figure,
    reveal_gif,
    schemes_figure,
)


def test_the_three_pictures_share_one_draw_of_each_layout(tmp_path,
                                                           monkeypatch):
    drawn = []
    make_layout = layout_figures.make_layout

    def counted(spec, rng):
        drawn.append(spec)
        return make_layout(spec, rng)
    monkeypatch.setattr(layout_figures, 'make_layout', counted)
    grid = token_grid(32, 4)
    config = SegmentSpec(grid, 'square', square_size=2, hierarchy=(4, ))
    image = np.random.default_rng(0).integers(0, 255, (192, 192, 3),
                                              dtype=np.uint8)
    draws = LayoutDraws(np.random.default_rng(0))
    schemes_figure(image, grid, draws, tmp_path / 's.png', square_size=2,
                   num_segments=7, layout=config)
    hierarchy_figure(image, grid, draws, tmp_path / 'h.png', square_size=2,
                     hierarchy=(4, ), num_segments=7, layout=config)
    reveal_gif(image, grid, draws, tmp_path / 'r.gif', gif_side=64,
               layout=config)
    assert drawn.count(config) == 1
    assert len(drawn) == len(set(drawn))  # no spec drawn twice
    assert draws(config) is draws(config)
