"""experiments.training_clock: a run's training time summed over its
starts, carried by the checkpoints' message hub."""
import itertools
from types import SimpleNamespace

import pytest
from mmengine.logging import MessageHub

import experiments.training_clock as clock_module
from experiments.training_clock import TrainingClock, trained_minutes

_names = itertools.count()


@pytest.fixture
def clock(monkeypatch):
    """A clock whose time is ``now[0]`` seconds."""
    now = [0.0]
    monkeypatch.setattr(clock_module.time, 'perf_counter', lambda: now[0])
    return now


def start(hub_name, checkpoint_hub=None):
    """One start of a run as mmengine's Runner makes it: the clock's
    before_run, the checkpoint's hub restored if it resumes, before_train.
    Returns (runner, hook)."""
    runner = SimpleNamespace(message_hub=MessageHub.get_instance(hub_name))
    hook = TrainingClock()
    hook.before_run(runner)
    if checkpoint_hub is not None:
        runner.message_hub.load_state_dict(checkpoint_hub)
    hook.before_train(runner)
    return runner, hook


def train(runner, hook, clock, seconds, iterations=3):
    for i in range(iterations):
        clock[0] += seconds / iterations
        hook.after_train_iter(runner, i)


def test_a_resumed_run_counts_the_starts_before_it(clock):
    first, hook = start(f'clock-{next(_names)}')
    train(first, hook, clock, 90.0)
    checkpoint = first.message_hub.state_dict()  # saved at its last step
    train(first, hook, clock, 30.0)  # trained after it, then killed
    assert trained_minutes(first) == pytest.approx(2.0)
    clock[0] += 600.0  # between the starts: not training
    second, hook = start(f'clock-{next(_names)}', checkpoint)
    train(second, hook, clock, 150.0)
    # 90 s to the checkpoint, 150 after it: the killed start's last 30 s
    # were trained again.
    assert trained_minutes(second) == pytest.approx(4.0)


def test_a_start_without_a_clocked_checkpoint_counts_itself(clock):
    # A fresh start in a hub reused under the same name, and a start
    # resumed from a checkpoint saved before the clock existed.
    name = f'clock-{next(_names)}'
    first, hook = start(name)
    train(first, hook, clock, 60.0)
    again, hook = start(name)
    train(again, hook, clock, 30.0)
    assert trained_minutes(again) == pytest.approx(0.5)
    unclocked = MessageHub.get_instance(f'clock-{next(_names)}').state_dict()
    resumed, hook = start(f'clock-{next(_names)}', unclocked)
    train(resumed, hook, clock, 45.0)
    assert trained_minutes(resumed) == pytest.approx(0.75)


def test_a_runner_trained_without_the_clock_has_no_minutes():
    runner = SimpleNamespace(
        message_hub=MessageHub.get_instance(f'clock-{next(_names)}'))
    assert trained_minutes(runner) is None
