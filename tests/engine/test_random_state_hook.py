"""A resumed run continues the global random generators (RandomStateHook)."""
import random

import numpy as np
import pytest
import torch
from mmengine.evaluator import BaseMetric, Evaluator
from mmengine.model import BaseModel
from mmengine.runner import Runner

from randsac_mm.engine.hooks.random_state_hook import (
    capture_random_states,
    restore_random_states,
)


class DrawingModel(BaseModel):
    """A linear model whose loss draws from torch's, numpy's and Python's
    global generators, as MAE's masks, dropout and mixup do; it keeps the
    draws of every iteration and the sum of the batch it was given."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 1)
        self.draws = []

    def forward(self, inputs, mode='loss'):
        """inputs: (B, 4), the collated batch. Predicting draws nothing."""
        if mode == 'predict':
            return list(inputs)
        noise = torch.rand_like(inputs)
        self.draws.append((noise.sum().item(), float(np.random.rand()),
                           random.random(), inputs.sum().item()))
        return dict(loss=self.fc(inputs * noise).pow(2).mean())


class CountMetric(BaseMetric):
    """Counts the validation samples: a validation that draws nothing."""

    def process(self, data_batch, data_samples):
        self.results.append(len(data_samples))

    def compute_metrics(self, results):
        return dict(count=sum(results))


def persistent_validation():
    """Runner arguments: a validation loaded by one persistent worker."""
    return dict(
        val_dataloader=dict(
            dataset=[dict(inputs=torch.zeros(4))] * 2,
            sampler=dict(type='DefaultSampler', shuffle=False),
            collate_fn=dict(type='default_collate'), batch_size=2,
            num_workers=1, persistent_workers=True),
        val_cfg=dict(), val_evaluator=Evaluator([CountMetric()]))


def train(work_dir, hooks, resume_from=None, load_from=None,
          by_epoch=True, persistent_worker=False, epochs=2, validate=False):
    """``epochs`` epochs of 4 iterations (or 8 iterations, checkpoints every
    4), loading in the main process or in one persistent worker, with a
    validation after every epoch if ``validate``; returns the model's
    draws."""
    model = DrawingModel()
    loop = dict(by_epoch=True, max_epochs=epochs) if by_epoch else dict(
        by_epoch=False, max_iters=8)
    validation = {}
    if validate:
        validation = persistent_validation()
        loop['val_interval'] = 1
    sampler = 'DefaultSampler' if by_epoch else 'InfiniteSampler'
    checkpoint = dict(type='CheckpointHook', by_epoch=by_epoch,
                      interval=1 if by_epoch else 4)
    runner = Runner(
        model=model, work_dir=str(work_dir),
        train_dataloader=dict(
            dataset=[dict(inputs=torch.full((4,), float(i)))
                     for i in range(8)],
            sampler=dict(type=sampler, shuffle=True),
            collate_fn=dict(type='default_collate'),
            batch_size=2, num_workers=int(persistent_worker),
            persistent_workers=persistent_worker),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        train_cfg=loop, default_hooks=dict(checkpoint=checkpoint),
        custom_hooks=hooks, randomness=dict(seed=3),
        resume=resume_from is not None,
        load_from=str(resume_from or load_from or '') or None,
        default_scope='mmengine', **validation)
    runner.train()
    return model.draws


HOOK = [dict(type='RandomStateHook')]


def test_capture_and_restore_replay_every_generator():
    states = capture_random_states()
    first = (torch.rand(3), np.random.rand(3), random.random())
    restore_random_states(states)
    again = (torch.rand(3), np.random.rand(3), random.random())
    assert torch.equal(first[0], again[0])
    assert np.array_equal(first[1], again[1]) and first[2] == again[2]


@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs a GPU')
def test_states_mapped_to_the_gpu_restore():
    # A resume on a GPU machine loads the checkpoint with map_location cuda.
    states = capture_random_states()
    first = torch.rand(3)
    states['torch'] = states['torch'].cuda()
    restore_random_states(states)
    assert torch.equal(torch.rand(3), first)


@pytest.mark.parametrize('persistent_worker', [False, True])
def test_a_resumed_run_draws_what_the_uninterrupted_run_draws(
        tmp_path, persistent_worker):
    # A persistent loader creates its iterator (one torch draw) once: in
    # the uninterrupted run before epoch 1, in the resumed one before the
    # restore.
    full = train(tmp_path / 'full', HOOK,
                 persistent_worker=persistent_worker)
    assert len(full) == 8
    resumed = train(tmp_path / 'resumed', HOOK,
                    resume_from=tmp_path / 'full' / 'epoch_1.pth',
                    persistent_worker=persistent_worker)
    assert resumed == full[4:]
    # Without the hook the resume reseeds: epoch 2 draws what epoch 1 drew
    # (on epoch 2's batches).
    unhooked = train(tmp_path / 'unhooked', [])
    reseeded = train(tmp_path / 'reseeded', [],
                     resume_from=tmp_path / 'unhooked' / 'epoch_1.pth')
    assert reseeded != unhooked[4:]
    assert [d[:3] for d in reseeded] == [d[:3] for d in unhooked[:4]]


def test_a_persistent_validation_loader_is_started_before_the_restore(
        tmp_path):
    # The uninterrupted run creates the validation iterator (one torch
    # draw) after epoch 1 and reuses it; resumed after epoch 2, the run
    # creates it before the restore, so epoch 4 still draws the same.
    full = train(tmp_path / 'full', HOOK, epochs=4, validate=True)
    resumed = train(tmp_path / 'resumed', HOOK, epochs=4, validate=True,
                    resume_from=tmp_path / 'full' / 'epoch_2.pth')
    assert len(full) == 16 and resumed == full[8:]
    # The documented limit: resumed after epoch 1, whose checkpoint comes
    # before the first validation, torch's stream is one draw off (numpy's
    # and Python's are not).
    off = train(tmp_path / 'off', HOOK, epochs=4, validate=True,
                resume_from=tmp_path / 'full' / 'epoch_1.pth')
    assert [d[1:] for d in off] == [d[1:] for d in full[4:]]
    assert all(a[0] != b[0] for a, b in zip(off, full[4:]))


@pytest.mark.parametrize('persistent_worker', [False, True])
def test_an_iteration_based_run_resumes_its_draws_and_batches(
        tmp_path, persistent_worker):
    # Its checkpoints are saved before the loop counts the iteration: the
    # states must be matched to the iteration the resumed run starts at.
    # The loop creates its loader's iterator before the hook runs and then
    # skips the batches already trained on; a second iter() of a persistent
    # loader would close mmengine's InfiniteSampler's one index generator
    # for good, and the skipping would end in StopIteration.
    full = train(tmp_path / 'full', HOOK, by_epoch=False,
                 persistent_worker=persistent_worker)
    resumed = train(tmp_path / 'resumed', HOOK, by_epoch=False,
                    resume_from=tmp_path / 'full' / 'iter_4.pth',
                    persistent_worker=persistent_worker)
    assert len(full) == 8 and resumed == full[4:]


def test_load_from_starts_a_new_run_from_the_seed(tmp_path):
    full = train(tmp_path / 'full', HOOK)
    # load_from (fine-tuning from weights) is a new run at iteration 0:
    # its draws are the seed's, not the checkpoint's continuation.
    fresh = train(tmp_path / 'fresh', HOOK,
                  load_from=tmp_path / 'full' / 'epoch_1.pth')
    assert fresh == full
