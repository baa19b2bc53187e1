"""PreemptionHook: SIGTERM or SIGUSR1 in training stops the run after the
iteration, with one line in the console and the run's log naming the signal
and the checkpoint to resume from, and exit code 128 + the signal."""
import logging
import os
import signal

import pytest
import torch
from mmengine.hooks import Hook
from mmengine.model import BaseModel
from mmengine.runner import Runner

import randsac_mm.engine.hooks  # noqa: F401  (registers the hooks)
from randsac_mm.checkpoint.latest import latest_checkpoint

from ..conftest import LineHandler


class Linear(BaseModel):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 1)
        self.losses = []

    def forward(self, inputs, mode='loss'):
        loss = self.fc(inputs).pow(2).mean()
        self.losses.append(loss.item())
        return dict(loss=loss)


class SignalAt(Hook):
    """Sends ``signum`` to this process after iteration ``at`` (1-based),
    as a cluster would: between two of the loop's statements."""

    priority = 'HIGHEST'

    def __init__(self, signum, at):
        self.signum, self.at = signum, at

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None):
        if runner.iter + 1 == self.at:
            os.kill(os.getpid(), self.signum)


def run(work_dir, by_epoch, hooks=(), resume_from=None, said=None):
    """4 epochs of 4 iterations (a checkpoint after each), or 16 iterations
    (a checkpoint every 8); returns the model's losses. What the run's
    logger says (its console and its log file) goes to ``said``."""
    torch.manual_seed(0)  # the same initial weights in every run
    model = Linear()
    loop = dict(by_epoch=True, max_epochs=4) if by_epoch else dict(
        by_epoch=False, max_iters=16)
    runner = Runner(
        model=model, work_dir=str(work_dir),
        train_dataloader=dict(
            dataset=[dict(inputs=torch.full((4,), float(i)))
                     for i in range(8)],
            sampler=dict(type='DefaultSampler' if by_epoch else
                         'InfiniteSampler', shuffle=False),
            collate_fn=dict(type='default_collate'), batch_size=2),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        train_cfg=loop,
        default_hooks=dict(checkpoint=dict(
            type='AtomicCheckpointHook', by_epoch=by_epoch,
            interval=1 if by_epoch else 8)),
        custom_hooks=[dict(type='PreemptionHook'), *hooks],
        resume=resume_from is not None, load_from=resume_from,
        default_scope='mmengine')
    # The run's logger writes its log file too (mmengine's FileHandler).
    assert any(isinstance(h, logging.FileHandler)
               for h in runner.logger.handlers)
    handler = LineHandler(said if said is not None else [])
    runner.logger.addHandler(handler)
    try:
        runner.train()
    finally:
        runner.logger.removeHandler(handler)
    return model.losses


def test_an_iteration_run_saves_where_it_stopped_and_resumes_exactly(
        tmp_path):
    whole = run(tmp_path / 'whole', by_epoch=False)
    said = []
    with pytest.raises(SystemExit) as stopped:
        run(tmp_path / 'cut', by_epoch=False,
            hooks=[SignalAt(signal.SIGUSR1, at=5)], said=said)
    assert stopped.value.code == 138
    checkpoint = latest_checkpoint(str(tmp_path / 'cut'))
    assert os.path.basename(checkpoint) == 'iter_5.pth'
    assert said.count('stopped by SIGUSR1 at iteration 5: saved iter_5.pth; '
                      '--resume continues from iteration 6') == 1
    resumed = run(tmp_path / 'cut', by_epoch=False, resume_from=checkpoint)
    assert resumed == pytest.approx(whole[5:], abs=1e-7)


@pytest.mark.parametrize('at, line', [
    (6, 'stopped by SIGTERM in iteration 6 (epoch 2): --resume restarts '
        'epoch 2 from epoch_1.pth'),
    # In an epoch's last iteration: it waits for that epoch's checkpoint.
    (8, 'stopped by SIGTERM after epoch 2: --resume restarts epoch 3 from '
        'epoch_2.pth'),
    (2, 'stopped by SIGTERM in iteration 2 (epoch 1): no checkpoint written '
        'yet: a new run starts from the beginning'),
], ids=['in-an-epoch', 'at-its-end', 'before-any-checkpoint'])
def test_an_epoch_run_names_the_epoch_a_resume_restarts(tmp_path, at, line):
    said = []
    with pytest.raises(SystemExit) as stopped:
        run(tmp_path, by_epoch=True,
            hooks=[SignalAt(signal.SIGTERM, at=at)], said=said)
    assert stopped.value.code == 143
    assert line in said
    saved = {6: ['epoch_1.pth'], 8: ['epoch_1.pth', 'epoch_2.pth'], 2: []}
    assert sorted(p.name for p in tmp_path.glob('*.pth')) == saved[at]


def test_the_handlers_before_training_are_put_back(tmp_path):
    def mine(signum, frame):
        pass
    signal.signal(signal.SIGTERM, mine)
    run(tmp_path, by_epoch=True)
    assert signal.getsignal(signal.SIGTERM) is mine
