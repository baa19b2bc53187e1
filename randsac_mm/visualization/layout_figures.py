"""Figures of segment layouts: the paper's prediction orders (Figure 2),
hierarchies (Figure 3) and a reveal GIF (tools/visualization/
vis_segments.py)."""
import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..segments import SegmentSpec, make_layout  # noqa: E402
from .layout_pictures import reveal_frames, save_gif, square_crop, token_map  # noqa

__all__ = ['hierarchy_figure', 'reveal_gif', 'schemes_figure']

PALETTE = plt.get_cmap('tab10').colors


def draw_order_panel(ax, image, layout, title):
    """One layout on the image: colour = prediction step, segment
    boundaries, and each segment's step number."""
    grid, side = layout.grid, image.shape[0]
    steps = token_map(layout.token_rank, grid, side)
    ax.imshow(image)
    ax.imshow(steps, cmap='viridis', alpha=0.55,
              vmin=0, vmax=max(layout.num_segments - 1, 1))
    ids = token_map(layout.segment_ids, grid, side)
    boundary = (np.diff(ids, axis=0, prepend=ids[:1]) != 0) | \
        (np.diff(ids, axis=1, prepend=ids[:, :1]) != 0)
    if layout.num_segments < ids.size:
        ax.imshow(np.ma.masked_where(~boundary, boundary), cmap='gray',
                  vmin=0, vmax=1, alpha=0.9)
    if layout.num_segments <= 64:
        for segment, (y, x) in enumerate(centroids(layout, side)):
            ax.text(x, y, str(layout.token_rank[layout.segment_ids ==
                                                segment][0] + 1),
                    color='white', ha='center', va='center',
                    fontsize=7 if layout.num_segments > 16 else 9,
                    fontweight='bold')
    ax.set_title(title, fontsize=9)
    ax.axis('off')


def centroids(layout, side):
    """Pixel centroid (y, x) of every segment: [S, 2]."""
    h, w = layout.grid
    ys, xs = np.divmod(np.arange(h * w), w)
    cell = np.array([side / h, side / w])
    points = (np.stack([ys, xs], 1) + 0.5) * cell
    sums = np.zeros((layout.num_segments, 2))
    np.add.at(sums, layout.segment_ids, points)
    return sums / np.bincount(layout.segment_ids)[:, None]


def schemes_figure(image, grid, rng, path, square_size=3, num_segments=11,
                   pixel_grid=32, input_size=None):
    """The paper's Figure 2: the original and five prediction orders
    (raster pixel, raster patch, random patch, square, blob) of one image
    [side, side, 3] on the token ``grid``."""
    side = image.shape[0]
    pixel = square_crop(image, pixel_grid)
    panels = [
        ('(b) raster pixel', pixel,
         SegmentSpec((pixel_grid, ) * 2, 'patch',
                     serialization='raster')),
        ('(c) raster patch', image, SegmentSpec(grid, 'patch',
                                                serialization='raster')),
        ('(d) random patch', image, SegmentSpec(grid, 'patch')),
        (f'(e) random square M={square_size}', image,
         SegmentSpec(grid, 'square', square_size=square_size)),
        (f'(f) random blob K={num_segments}', image,
         SegmentSpec(grid, 'blob', num_segments=num_segments)),
    ]
    fig, axes = plt.subplots(1, 6, figsize=(15, 2.9))
    axes[0].imshow(image)
    axes[0].set_title(f'(a) original {input_size or side}px', fontsize=9)
    axes[0].axis('off')
    for ax, (title, img, spec) in zip(axes[1:], panels):
        draw_order_panel(ax, img, make_layout(spec, rng), title)
    fig.suptitle('Prediction order (dark: first, bright: last; numbers: '
                 'step)', fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def partition_colours(layout, side):
    """RGB [side, side, 3]: a hue per top partition, shades per segment."""
    top = layout.groups[-1] if layout.groups else np.zeros_like(
        layout.segment_ids)
    colours = np.zeros((len(layout.segment_ids), 3))
    for partition in np.unique(top):
        members = np.unique(layout.segment_ids[top == partition])
        # Shade by the segment's step within its partition: light first.
        steps = np.argsort(np.argsort(
            [layout.token_rank[layout.segment_ids == m][0] for m in members]))
        base = np.array(PALETTE[partition % len(PALETTE)])
        for member, step in zip(members, steps):
            shade = 1.0 - 0.55 * step / max(len(members) - 1, 1)
            colours[layout.segment_ids == member] = base * shade
    h, w = layout.grid
    return np.kron(colours.reshape(h, w, 3),
                   np.ones((side // h, side // w, 1)))


def hierarchy_figure(image, grid, rng, path, square_size=3, hierarchy=(4, ),
                     num_segments=11):
    """The paper's Figure 3: square and blob hierarchies of one image, a
    colour per partition, shades for its segments, arrows along the
    prediction order."""
    side = image.shape[0]
    specs = [
        (f'square {grid[0] * grid[1] // square_size**2} -> '
         f'{"->".join(map(str, hierarchy))}',
         SegmentSpec(grid, 'square', square_size=square_size,
                     hierarchy=tuple(hierarchy))),
        (f'blob {num_segments} -> {max(2, num_segments // 2)}',
         SegmentSpec(grid, 'blob', num_segments=num_segments,
                     hierarchy=(max(2, num_segments // 2), ))),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
    axes[0].imshow(image)
    axes[0].set_title('original', fontsize=9)
    for ax, (title, spec) in zip(axes[1:], specs):
        layout = make_layout(spec, rng)
        ax.imshow(image)
        ax.imshow(partition_colours(layout, side), alpha=0.7)
        points = centroids(layout, side)[layout.order]
        for (y0, x0), (y1, x1) in zip(points[:-1], points[1:]):
            ax.annotate('', xy=(x1, y1), xytext=(x0, y0),
                        arrowprops=dict(arrowstyle='->', color='black',
                                        lw=1.3))
        ax.plot(points[0, 1], points[0, 0], 'o', color='white', mec='black')
        ax.set_title(f'{title}: colour = partition, shade = segment',
                     fontsize=8)
    for ax in axes:
        ax.axis('off')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def reveal_gif(image, grid, rng, path, square_size=3, hierarchy=(4, ),
               gif_side=256, frame_ms=250):
    """The image revealed segment by segment in prediction order."""
    layout = make_layout(
        SegmentSpec(grid, 'square', square_size=square_size,
                    hierarchy=tuple(hierarchy)), rng)
    big = square_crop(image, gif_side - gif_side % grid[0])
    save_gif(reveal_frames(big, layout.token_rank, grid), path,
             frame_ms)
