import pytest
import torch

from ..conftest import DEMO_CLASSIFIER, run_tool

SMALL = ['train_dataloader.dataset.indices=256',
         'train_cfg.val_interval=100', 'default_hooks.logger.interval=1']


POISON_HOOK = """
import torch
from mmengine.hooks import Hook
from mmengine.registry import HOOKS


@HOOKS.register_module()
class PoisonWeightsHook(Hook):
    # Makes the classifier's weights NaN before iteration `at_iter`.
    def __init__(self, at_iter):
        self.at_iter = at_iter

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        if runner.iter + 1 == self.at_iter:
            with torch.no_grad():
                runner.model.head.fc.weight.fill_(float('nan'))
"""


@pytest.mark.heavy
def test_divergence_stops_with_iteration_and_keeps_last_good_checkpoint(
        tmp_path):
    (tmp_path / 'poison_hook.py').write_text(POISON_HOOK)
    config = tmp_path / 'diverging.py'
    config.write_text(f"""
_base_ = ['{DEMO_CLASSIFIER}']
custom_imports = dict(imports=['randsac_mm.registration', 'poison_hook'],
                      allow_failed_imports=False)
custom_hooks = [dict(type='NonFiniteLossHook'),
                dict(type='PoisonWeightsHook', at_iter=5)]
""")
    work = tmp_path / 'work'
    # 256 images, batch 64: epoch 1 is iterations 1-4 (saved), then the
    # loss of iteration 5 is NaN.
    with pytest.raises(pytest.fail.Exception) as info:
        run_tool(['tools/train.py', config, '--device', 'cpu', '--work-dir',
                  work,
                  '--cfg-options', 'train_cfg.max_epochs=2', *SMALL],
                 env={'PYTHONPATH': str(tmp_path)})
    message = str(info.value)
    assert 'non-finite training loss nan at iteration 5 (epoch 2)' in message
    assert 'Last good checkpoint:' in message and 'epoch_1.pth' in message
    assert (work / 'epoch_1.pth').exists()
    assert not (work / 'epoch_2.pth').exists()
    import randsac_mm.registration  # noqa: F401
    good = torch.load(work / 'epoch_1.pth')
    assert all(torch.isfinite(v).all() for v in good['state_dict'].values()
               if v.is_floating_point())


@pytest.mark.parametrize('outputs', [
    {'loss': torch.tensor(1.5)}, {'loss': 2.0}, {}, None])
def test_a_finite_or_missing_loss_goes_on(outputs):
    from randsac_mm.engine import NonFiniteLossHook
    assert NonFiniteLossHook().after_train_iter(
        _Runner(), 0, outputs=outputs) is None


@pytest.mark.parametrize('value', [float('nan'), float('inf'),
                                   -float('inf')])
def test_a_non_finite_loss_stops_naming_it_and_the_last_checkpoint(
        value, tmp_path):
    from randsac_mm.engine import NonFiniteLossHook

    from ..checkpoint.test_latest import save_training_checkpoint
    saved = save_training_checkpoint(tmp_path / 'epoch_1.pth', 1)
    with pytest.raises(FloatingPointError) as info:
        NonFiniteLossHook().after_train_iter(
            _Runner(tmp_path), 0, outputs={'loss': torch.tensor(value)})
    assert str(info.value).startswith(
        f'non-finite training loss {value} at iteration 7 (epoch 2)')
    assert f'Last good checkpoint: {saved}. ' in str(info.value)
    assert str(info.value).endswith('then resume from it with --resume.')


def test_before_any_checkpoint_it_says_to_start_again(tmp_path):
    """drop_path_rate=1.0 (now refused) gave NaN at iteration 1, and the
    message said to resume from a checkpoint that did not exist."""
    from randsac_mm.engine import NonFiniteLossHook
    with pytest.raises(FloatingPointError) as info:
        NonFiniteLossHook().after_train_iter(
            _Runner(tmp_path), 0, outputs={'loss': torch.tensor(float('nan'))})
    assert 'No checkpoint was written yet.' in str(info.value)
    assert str(info.value).endswith('then start the run again.')
    assert '--resume' not in str(info.value)


def test_a_loss_that_requires_grad_is_read_without_a_warning():
    """The training loss is attached to the graph: reading it must not
    warn (float() of a tensor that requires grad does)."""
    import warnings

    from randsac_mm.engine import NonFiniteLossHook
    weight = torch.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        NonFiniteLossHook().after_train_iter(None, 0, outputs={
            'loss': (weight * 2).sum()})
    with pytest.raises(FloatingPointError, match='non-finite training loss '
                       'inf'), warnings.catch_warnings():
        warnings.simplefilter('error')
        NonFiniteLossHook().after_train_iter(_Runner('.'), 0, outputs={
            'loss': (weight * float('inf')).sum()})


class _Runner:
    """What the hook reads of mmengine's Runner when the loss diverges."""
    iter, epoch = 6, 1

    def __init__(self, work_dir='.'):
        self.work_dir = str(work_dir)
