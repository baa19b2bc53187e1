import numpy as np
import pytest
from PIL import Image

from ..conftest import run_tool

VIS = 'tools/visualization/vis_segments.py'


@pytest.mark.heavy
def test_writes_three_pictures_for_a_photo_file(tmp_path):
    photo = tmp_path / 'photo.png'
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)).save(
        photo)
    out = run_tool([VIS, '--img', photo, '--out-dir', tmp_path / 'vis',
                    '--input-size', '96', '--patch-size', '16',
                    '--square-size', '3', '--hierarchy', '--seed', '1'])
    assert out.stdout.count('written') == 3
    schemes = Image.open(tmp_path / 'vis' / 'photo_schemes.png')
    assert schemes.size[0] > 3 * schemes.size[1]  # six panels in a row
    Image.open(tmp_path / 'vis' / 'photo_hierarchy.png').verify()
    gif = Image.open(tmp_path / 'vis' / 'photo_reveal.gif')
    # 6x6 tokens in 3x3 squares: 4 segments, so 5 frames (none .. all).
    assert gif.n_frames == 5
    gif.seek(0)
    first = np.asarray(gif.convert('RGB')).astype(int)
    gif.seek(4)
    last = np.asarray(gif.convert('RGB')).astype(int)
    assert last.std() > first.std()  # the image is revealed


@pytest.mark.heavy
def test_writes_pictures_for_a_dataset_sample(tmp_path):
    run_tool([VIS, '--config', 'configs/_base_/datasets/digits.py',
              '--index', '3', '--input-size', '32', '--patch-size', '4',
              '--square-size', '2', '--num-segments', '7', '--out-dir',
              tmp_path])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ['digits_3_hierarchy.png', 'digits_3_reveal.gif',
                     'digits_3_schemes.png']
    # 8x8 tokens in 2x2 squares: 16 segments, 17 frames.
    assert Image.open(tmp_path / 'digits_3_reveal.gif').n_frames == 17


@pytest.mark.heavy
def test_bad_layout_argument_fails_before_drawing(tmp_path):
    with pytest.raises(pytest.fail.Exception,
                       match=r'square_size \(M\) must divide'):
        run_tool([VIS, '--img', 'sklearn:flower.jpg', '--square-size', '5',
                  '--out-dir', tmp_path])
    assert not list(tmp_path.iterdir())

