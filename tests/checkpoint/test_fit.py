"""The one check of a checkpoint against a model (``checkpoint.fit``)."""
import pytest
import torch

from randsac_mm.checkpoint.fit import (
    DROPPED,
    EFFECTS,
    check_fit,
    weight_mismatch,
)

MODEL = {'backbone.a': torch.zeros(2), 'backbone.b': torch.zeros(3),
         'head.fc': torch.zeros(4)}


def test_not_expected_spares_the_models_new_parts_only():
    state = {'backbone.a': torch.zeros(2), 'backbone.b': torch.zeros(3),
             'extra.w': torch.zeros(1)}
    missing, unexpected, reshaped = weight_mismatch(
        MODEL, state, not_expected=('head.', ))
    assert missing == [] and reshaped == []
    # What the checkpoint has beyond the model is still named.
    assert unexpected == ['extra.w']
    # A key of the checkpoint under a not-expected prefix that the model has
    # is not unexpected either.
    assert weight_mismatch(MODEL, dict(state, **{'head.fc': torch.zeros(4)}),
                           not_expected=('head.', ))[1] == ['extra.w']


def test_only_extra_weights_say_they_would_be_dropped():
    state = dict(MODEL, **{'extra.w': torch.zeros(1)})
    with pytest.raises(ValueError) as error:
        check_fit(MODEL, state, 'checkpoint', 'x.pth', 'evaluate')
    assert f'so {DROPPED}.' in str(error.value)
    assert EFFECTS['evaluate'] not in str(error.value)
    state = {'backbone.a': torch.zeros(2)}
    with pytest.raises(ValueError, match=f"so {EFFECTS['evaluate']}"):
        check_fit(MODEL, state, 'checkpoint', 'x.pth', 'evaluate')


def test_a_kind_without_a_description_is_named_by_its_name():
    with pytest.raises(ValueError, match=r'It looks like a checkpoint of a '
                       r'depth config: give a checkpoint'):
        check_fit(MODEL, {}, 'checkpoint', 'x.pth', 'evaluate', kind='depth')
