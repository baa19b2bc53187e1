"""Reading back what mmengine logged (experiments.scalars), across the
starts of a resumed run."""

from experiments.scalars import logged_entries, logged_scalars

from ..data_factory import write_logged_scalars


def train(step, loss):
    return dict(step=step, epoch=1, loss=loss, lr=1e-3)


def steps_and_values(records):
    return [(r['step'], r['value']) for r in records]


def test_one_start_is_read_as_logged(tmp_path):
    log_dir = write_logged_scalars(tmp_path, '20261127_100000',
                          [train(20, 3.0), train(40, 2.5),
                           dict(step=40, mIoU=12.5)])
    assert steps_and_values(logged_scalars(log_dir)) == [(20, 3.0),
                                                         (40, 2.5)]
    assert steps_and_values(logged_scalars(tmp_path, key='mIoU')) == [
        (40, 12.5)]


def test_a_resumed_start_replaces_what_its_predecessor_logged_after(
        tmp_path):
    # The first start saved a checkpoint at 40 and was stopped at 80; the
    # second resumed from 40 and logged 60 and 80 again, then 100.
    write_logged_scalars(tmp_path, '20261127_100000',
                [train(20, 3.0), train(40, 2.5), dict(step=40, mIoU=10.0),
                 train(60, 2.0), train(80, 1.9)])
    write_logged_scalars(tmp_path, '20261127_110000',
                [train(60, 2.1), train(80, 1.8), train(100, 1.5),
                 dict(step=100, mIoU=20.0)])
    assert steps_and_values(logged_scalars(tmp_path)) == [
        (20, 3.0), (40, 2.5), (60, 2.1), (80, 1.8), (100, 1.5)]
    # Validation from before the checkpoint stays: the second start did
    # not log that step again.
    assert steps_and_values(logged_scalars(tmp_path, key='mIoU')) == [
        (40, 10.0), (100, 20.0)]


def test_a_start_from_scratch_replaces_an_aborted_one(tmp_path):
    # Stopped before its first checkpoint: the next start begins at
    # iteration 0 again, and only its records count.
    write_logged_scalars(tmp_path, '20261127_100000',
                [train(20, 3.0), train(40, 2.9), train(60, 2.8)])
    write_logged_scalars(tmp_path, '20261127_110000',
                [train(20, 3.1), train(40, 2.7)])
    write_logged_scalars(tmp_path, '20261127_120000', [])
    assert steps_and_values(logged_scalars(tmp_path)) == [(20, 3.1),
                                                          (40, 2.7)]


def test_whole_entries_holding_a_key_are_kept(tmp_path):
    # Training steps (with time) of two starts; validation has no time.
    write_logged_scalars(tmp_path, '20261127_100000',
                [dict(step=1, loss=3.0, time=0.5, data_time=0.1),
                 dict(step=2, loss=2.9, time=0.4, data_time=0.1),
                 dict(step=2, accuracy=11.0)])
    write_logged_scalars(tmp_path, '20261127_110000',
                [dict(step=2, loss=2.8, time=0.3, data_time=0.2)])
    assert logged_entries(tmp_path, key='time') == [
        dict(step=1, loss=3.0, time=0.5, data_time=0.1),
        dict(step=2, loss=2.8, time=0.3, data_time=0.2)]
