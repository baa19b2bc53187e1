"""python -m experiments.benchmarks.layout_geometry: how coherent a
config's segments are and how far a predicted token lies from its context."""
import json
import math

import numpy as np
import pytest

from experiments.benchmarks.layout_geometry import layout_geometry

from ...conftest import REPO_ROOT, run_tool

LAYOUT_GEOMETRY = ['-m', 'experiments.benchmarks.layout_geometry']
SMALL_SCALE = (f'{REPO_ROOT}/configs/small_scale/'
               'randsac_vit-mini-p4_{}_fashion-mnist.py')


def test_a_row_of_single_patches_filled_from_afar():
    # 1 x 4 tokens, each its own segment; order: token 0, 3, 2, 1.
    stats = layout_geometry(np.arange(4), np.array([0, 3, 2, 1]), (1, 4))
    assert stats['neighbour_share'] == 0
    assert stats['given_share'] == 0.25
    assert stats['context_mean'] == 2  # 3, 2 and 1 tokens before
    # token 3 sees token 0 only (3 away); tokens 2 and 1 a neighbour.
    assert stats['nearest_context_mean'] == pytest.approx(5 / 3)


def test_two_halves_whole_and_diagonal():
    rows = layout_geometry(np.array([0, 0, 1, 1]), np.array([0, 0, 1, 1]),
                           (2, 2))
    assert rows == dict(neighbour_share=1.0, given_share=0.5,
                        context_mean=2.0, nearest_context_mean=1.0)
    diagonal = layout_geometry(np.array([0, 1, 1, 0]),
                               np.array([0, 1, 1, 0]), (2, 2))
    assert diagonal['neighbour_share'] == 0  # a segment of corners


def test_one_segment_predicts_nothing():
    stats = layout_geometry(np.zeros(4, dtype=int), np.zeros(4, dtype=int),
                            (2, 2))
    assert stats['given_share'] == 1
    assert math.isnan(stats['context_mean'])
    assert math.isnan(stats['nearest_context_mean'])


@pytest.mark.heavy
def test_shuffled_blobs_keep_counts_and_lose_coherence(tmp_path):
    out = tmp_path / 'geometry.json'
    variants = ['patch-random', 'blob-k7', 'blob-k7-shuffle']
    printed = run_tool([*LAYOUT_GEOMETRY,
                        *(SMALL_SCALE.format(v) for v in variants),
                        '--samples', '100', '--out', out]).stdout
    results = json.loads(out.read_text())['configs']
    patch, blob, shuffled = (results[f'small_scale/randsac_vit-mini-p4_{v}'
                                     '_fashion-mnist.py'] for v in variants)
    assert patch['grid'] == [8, 8] and patch['segments_mean'] == 64
    assert patch['neighbour_share'] == 0 and patch['given_share'] == 1 / 64
    assert blob['coherent'] and not shuffled['coherent']
    assert abs(blob['segments_mean'] - shuffled['segments_mean']) < 0.3
    assert abs(blob['given_share'] - shuffled['given_share']) < 0.03
    assert blob['neighbour_share'] > 0.95 > 0.6 > shuffled['neighbour_share']
    # Scattered tokens sit next to earlier ones; a whole blob does not.
    assert shuffled['nearest_context_mean'] < blob['nearest_context_mean']
    assert 'with a neighbour in their segment' in printed
