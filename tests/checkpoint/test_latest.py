"""``--resume`` continues from what a checkpoint is: the training
checkpoint of the work dir that ends the latest (epoch, iteration)."""
import os
import shutil

import torch

from randsac_mm.checkpoint.latest import dangling_pointer, latest_checkpoint
from randsac_mm.checkpoint.reading import (
    TRAINING_STATE,
    lacking_training_state,
    training_progress,
)


def save_training_checkpoint(path, epoch, iteration=None):
    """What mmengine's CheckpointHook saves, in small."""
    torch.save(dict(meta=dict(epoch=epoch, iter=iteration or 4 * epoch),
                    state_dict={'w': torch.zeros(2)},
                    optimizer={'state': {}, 'param_groups': []}), path)
    return str(path)


def test_a_training_checkpoint_records_its_progress(tmp_path):
    assert training_progress(save_training_checkpoint(
        tmp_path / 'epoch_2.pth', 2, 8)) == (2, 8)
    torch.save({'w': torch.zeros(2)}, tmp_path / 'encoder.pth')
    torch.save(dict(meta=dict(epoch=3, iter=12), state_dict={}),
               tmp_path / 'no_optimizer.pth')
    (tmp_path / 'text.pth').write_text('not a checkpoint')
    for name in ('encoder.pth', 'no_optimizer.pth', 'text.pth'):
        assert training_progress(str(tmp_path / name)) is None, name
    assert lacking_training_state(torch.load(
        tmp_path / 'no_optimizer.pth')) == ['optimizer']
    assert lacking_training_state({'w': torch.zeros(1)}) == \
        list(TRAINING_STATE)
    assert lacking_training_state(dict(meta=dict(epoch=1, iter='4'),
                                       optimizer={})) == ['meta.iter']


def test_a_stale_pointer_does_not_send_the_run_back(tmp_path):
    """Killed after saving epoch 2, before the pointer was rewritten."""
    first = save_training_checkpoint(tmp_path / 'epoch_1.pth', 1)
    second = save_training_checkpoint(tmp_path / 'epoch_2.pth', 2)
    (tmp_path / 'last_checkpoint').write_text(first)
    told = []
    assert latest_checkpoint(str(tmp_path), log=told.append) == second
    assert told == [f"{tmp_path / 'last_checkpoint'} names {first!r}; "
                    f'resuming from {second}, the training checkpoint of '
                    'this folder that ends the latest epoch and iteration '
                    '(2, 8)']
    (tmp_path / 'last_checkpoint').write_text(second)
    told.clear()
    assert latest_checkpoint(str(tmp_path), log=told.append) == second
    assert told == []  # the pointer agrees: nothing to say
    (tmp_path / 'last_checkpoint').write_text('')  # killed mid-write
    assert latest_checkpoint(str(tmp_path)) == second


def test_a_pointer_to_a_removed_checkpoint_is_said_so(tmp_path):
    """mmengine's CheckpointHook, killed after removing epoch_1.pth and
    before writing epoch_2.pth, leaves the pointer naming a lost file."""
    first = save_training_checkpoint(tmp_path / 'epoch_1.pth', 1)
    (tmp_path / 'last_checkpoint').write_text(first)
    assert dangling_pointer(str(tmp_path)) is None
    os.remove(first)
    assert dangling_pointer(str(tmp_path)) == first
    assert latest_checkpoint(str(tmp_path)) is None
    older = save_training_checkpoint(tmp_path / 'iter_2.pth', 0, 2)
    told = []
    assert latest_checkpoint(str(tmp_path), log=told.append) == older
    assert told[0].startswith(f"{tmp_path / 'last_checkpoint'} names "
                              f"{first!r}, which does not exist; resuming "
                              f'from {older}')
    (tmp_path / 'last_checkpoint').write_text('')
    assert dangling_pointer(str(tmp_path)) is None


def test_file_times_do_not_decide(tmp_path):
    first = save_training_checkpoint(tmp_path / 'epoch_1.pth', 1)
    second = save_training_checkpoint(tmp_path / 'epoch_2.pth', 2)
    os.utime(second, (1, 1))  # touched old, or copied without times
    os.utime(first, None)
    assert latest_checkpoint(str(tmp_path)) == second


def test_an_encoder_in_the_work_dir_is_never_resumed(tmp_path):
    second = save_training_checkpoint(tmp_path / 'epoch_2.pth', 2)
    torch.save({'patch_embed.projection.weight': torch.zeros(2)},
               tmp_path / 'encoder.pth')  # tools/model_converters output
    torch.save({'w': torch.zeros(2)}, tmp_path / 'zzz_export.pth')
    assert latest_checkpoint(str(tmp_path)) == second
    os.remove(second)
    assert latest_checkpoint(str(tmp_path)) is None
    assert latest_checkpoint(str(tmp_path / 'nowhere')) is None


def test_a_copied_work_dir_resumes_its_own_files(tmp_path):
    original = tmp_path / 'run'
    original.mkdir()
    save_training_checkpoint(original / 'epoch_1.pth', 1)
    mine = save_training_checkpoint(original / 'epoch_2.pth', 2)
    (original / 'last_checkpoint').write_text(mine)
    copy = tmp_path / 'copy'
    shutil.copytree(original, copy)
    os.remove(original / 'epoch_2.pth')  # the original folder moves on
    save_training_checkpoint(original / 'epoch_3.pth', 3)
    told = []
    assert latest_checkpoint(str(copy), log=told.append) == \
        str(copy / 'epoch_2.pth')
    assert len(told) == 1 and f'names {mine!r}' in told[0]
