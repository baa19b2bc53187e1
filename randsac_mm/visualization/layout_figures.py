"""Figures of segment layouts: the paper's prediction orders (Figure 2),
hierarchies (Figure 3) and a reveal GIF (tools/visualization/
vis_segments.py)."""
import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..segments import SegmentSpec, make_layout  # noqa: E402
from .layout_pictures import reveal_frames, save_gif, square_crop, token_map  # noqa

__all__ = ['LayoutDraws', 'hierarchy_figure', 'reveal_gif', 'schemes_figure',
           'spec_title']

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


def spec_title(spec):
    """How the figures label a layout: 'random square M=2, 16 -> 4',
    'raster patch', 'random blob K=11'."""
    options = dict(spec.options)
    parts = []
    if 'square_size' in options:
        parts.append(f"M={options.pop('square_size')}")
    if 'num_segments' in options:
        parts.append(f"K={options.pop('num_segments')}")
    hierarchy = options.pop('hierarchy', ())
    if hierarchy:
        parts.append(' -> '.join(map(str, (spec.nominal_segments, )
                                     + tuple(hierarchy))))
    if options.pop('exact_counts', False):
        parts.append('exact counts')
    parts += [f'{k}={v}' for k, v in options.items() if v]
    if not spec.coherent:
        parts.append('shuffled')
    return f'{spec.serialization} {spec.segment}' + (
        ' ' + ', '.join(parts) if parts else '')


def _replaces(layout, segment, serialization):
    """Whether the config's ``layout`` takes the place of this panel."""
    if layout is None or layout.segment != segment:
        return False
    return segment != 'patch' or layout.serialization == serialization


class LayoutDraws:
    """One layout drawn per spec, however many pictures show it: the
    pictures of one image that share a :class:`LayoutDraws` show one draw
    of each spec (a config's own layout is the same in the schemes panel,
    the hierarchy figure and the GIF).

    Args:
        rng (numpy.random.Generator): draws each spec's layout, at its
            first picture.
    """

    def __init__(self, rng):
        self.rng = rng
        self._drawn = {}

    def __call__(self, spec):
        """The layout of ``spec`` (a SegmentSpec): drawn once."""
        if spec not in self._drawn:
            self._drawn[spec] = make_layout(spec, self.rng)
        return self._drawn[spec]


def schemes_figure(image, grid, draws, path, square_size=3, num_segments=11,
                   pixel_grid=32, input_size=None, layout=None):
    """The paper's Figure 2: the original and five prediction orders
    (raster pixel, raster patch, random patch, square, blob) of one image
    [side, side, 3] on the token ``grid``.

    Args:
        draws (LayoutDraws): the layout of each panel's spec.
        square_size, num_segments (int): the square and blob panels' M and
            K.
        input_size (int | None): the input side the label of the original
            names (default: the image's).
        layout (SegmentSpec | None): a config's own layout: it takes the
            place of the panel of its scheme (for 'patch', of its
            serialization), labelled with its options and '(config)'.

    Returns:
        list[str]: the panels' titles.
    """
    side = image.shape[0]
    pixel = square_crop(image, pixel_grid)
    # (image, grid, segment, serialization, options) of each panel; the
    # config's layout takes its scheme's place (not the pixel panel's).
    arguments = [
        (pixel, (pixel_grid, ) * 2, 'patch', 'raster', {}),
        (image, grid, 'patch', 'raster', {}),
        (image, grid, 'patch', 'random', {}),
        (image, grid, 'square', 'random', dict(square_size=square_size)),
        (image, grid, 'blob', 'random', dict(num_segments=num_segments)),
    ]
    panels = []
    for index, (img, on, segment, serialization, options) in enumerate(
            arguments):
        letter = 'bcdef'[index]
        if index == 0:
            spec = SegmentSpec(on, segment, serialization=serialization)
            title = 'raster pixel'
        elif _replaces(layout, segment, serialization):
            spec, title = layout, f'{spec_title(layout)} (config)'
        else:
            spec = SegmentSpec(on, segment, serialization=serialization,
                               **options)
            title = spec_title(spec)
        panels.append((f'({letter}) {title}', img, spec))
    fig, axes = plt.subplots(1, 6, figsize=(15, 2.9))
    axes[0].imshow(image)
    titles = [f'(a) original {input_size or side}px']
    axes[0].set_title(titles[0], fontsize=9)
    axes[0].axis('off')
    for ax, (title, img, spec) in zip(axes[1:], panels):
        draw_order_panel(ax, img, draws(spec), title)
        titles.append(title)
    fig.suptitle('Prediction order (dark: first, bright: last; numbers: '
                 'step)', fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return titles


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


def hierarchy_figure(image, grid, draws, path, square_size=3,
                     hierarchy=(4, ), num_segments=11, layout=None):
    """The paper's Figure 3: square and blob hierarchies of one image, a
    colour per partition, shades for its segments, arrows along the
    prediction order.

    Args:
        draws (LayoutDraws): the layout of each panel's spec.
        layout (SegmentSpec | None): a config's own square or blob layout,
            drawn instead of the panel of its scheme.

    Returns:
        list[str]: the panels' titles.
    """
    side = image.shape[0]
    arguments = [('square', dict(square_size=square_size,
                                 hierarchy=tuple(hierarchy))),
                 ('blob', dict(num_segments=num_segments,
                               hierarchy=(max(2, num_segments // 2), )))]
    specs = []
    for segment, options in arguments:
        if _replaces(layout, segment, 'random'):
            specs.append((layout, f'{spec_title(layout)} (config)'))
        else:
            spec = SegmentSpec(grid, segment, **options)
            specs.append((spec, spec_title(spec)))
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
    axes[0].imshow(image)
    axes[0].set_title('original', fontsize=9)
    titles = ['original']
    for ax, (spec, title) in zip(axes[1:], specs):
        drawn = draws(spec)
        ax.imshow(image)
        ax.imshow(partition_colours(drawn, side), alpha=0.7)
        points = centroids(drawn, side)[drawn.order]
        for (y0, x0), (y1, x1) in zip(points[:-1], points[1:]):
            ax.annotate('', xy=(x1, y1), xytext=(x0, y0),
                        arrowprops=dict(arrowstyle='->', color='black',
                                        lw=1.3))
        ax.plot(points[0, 1], points[0, 0], 'o', color='white', mec='black')
        title = f'{title}\ncolour = partition, shade = segment'
        ax.set_title(title, fontsize=8)
        titles.append(title)
    for ax in axes:
        ax.axis('off')
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches='tight')
    plt.close(fig)
    return titles


def reveal_gif(image, grid, draws, path, square_size=3, hierarchy=(4, ),
               gif_side=256, frame_ms=250, layout=None):
    """The image revealed segment by segment in prediction order: a square
    layout (``square_size``, ``hierarchy``: the hierarchy figure's square
    panel), or ``layout`` (a config's own, a SegmentSpec), as ``draws``
    drew it for the other pictures."""
    if layout is None:
        layout = SegmentSpec(grid, 'square', square_size=square_size,
                             hierarchy=tuple(hierarchy))
    drawn = draws(layout)
    big = square_crop(image, gif_side - gif_side % grid[0])
    save_gif(reveal_frames(big, drawn.token_rank, grid), path, frame_ms)
