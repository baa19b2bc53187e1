import collections
import pickle

import pytest
import torch


def test_import_registers_modules():
    import randsac_mm.mmpretrain  # noqa: F401
    from mmengine.registry import OPTIM_WRAPPERS
    from mmpretrain.registry import DATASETS

    from randsac_mm.datasets import DigitsDataset
    from randsac_mm.engine import AutocastOptimWrapper

    assert DATASETS.get('DigitsDataset') is DigitsDataset
    assert OPTIM_WRAPPERS.get('AutocastOptimWrapper') is AutocastOptimWrapper


def test_imagenet100_class_list_ships_in_package():
    from importlib.resources import files
    text = files('randsac_mm').joinpath('datasets/meta/imagenet100.txt')
    wnids = text.read_text().split()
    assert len(wnids) == 100 == len(set(wnids))
    assert all(w.startswith('n') and len(w) == 9 for w in wnids)


GOOD = {
    'torch': '2.13.0+cu130', 'torchvision': '0.28.0', 'mmcv': '2.1.0',
    'mmengine': '0.10.7', 'mmpretrain': '1.2.0', 'mmsegmentation': '1.2.2',
    'mmdet': '3.3.0'
}


def test_version_check_accepts_the_pins_with_local_suffix():
    from randsac_mm.utils.version_check import find_version_problems
    assert find_version_problems(GOOD) == []


def test_version_check_names_what_to_install():
    from randsac_mm.utils.version_check import find_version_problems
    problems = find_version_problems(
        dict(GOOD, torch='2.14.0', mmdet=None, mmcv='2.2.0'))
    text = '\n'.join(problems)
    assert len(problems) == 3
    assert 'torch==2.14.0 is installed; need torch==2.13.0' in text
    assert 'pip install torch==2.13.0 torchvision==0.28.0' in text
    assert 'mmdet is not installed; need mmdet==3.3.0' in text
    assert 'MMCV_WITH_OPS=1' in text and 'mmcv==2.1.0' in text


def test_version_check_refuses_onedl_fork_beside_upstream():
    from randsac_mm.utils.version_check import find_version_problems
    problems = find_version_problems(dict(GOOD, **{'onedl-mmcv': '2.3.0'}))
    assert len(problems) == 1
    assert 'onedl-mmcv==2.3.0 is installed' in problems[0]
    assert 'Uninstall onedl-mmcv' in problems[0]


def test_check_versions_raises_on_wrong_stack(monkeypatch):
    from randsac_mm.utils import version_check
    monkeypatch.setattr(version_check, 'find_version_problems',
                        lambda: ['mmdet is not installed'])
    monkeypatch.delenv(version_check.SKIP_ENV, raising=False)
    with pytest.raises(ImportError, match='mmdet is not installed'):
        version_check.check_versions()
    monkeypatch.setenv(version_check.SKIP_ENV, '1')
    version_check.check_versions()


def test_weights_only_load_reads_message_hub(tmp_path):
    import randsac_mm.mmpretrain  # noqa: F401  (allowlists the globals)
    from mmengine.logging import MessageHub
    hub = MessageHub.get_instance('test_weights_only_load')
    for value in (3.0, 1.0, 2.0):
        hub.update_scalar('train/loss', value)
    import numpy as np
    hub.update_info('eta', np.float64(12.5))
    path = tmp_path / 'ckpt.pth'
    torch.save({'message_hub': hub.state_dict()}, path)
    loaded = torch.load(path)  # weights_only=True is torch's default
    buffer = loaded['message_hub']['log_scalars']['train/loss']
    assert buffer.min() == 1.0 and buffer.mean() == 2.0
    assert loaded['message_hub']['runtime_info']['eta'] == 12.5


def test_weights_only_getattr_is_restricted(tmp_path):
    import randsac_mm.mmpretrain  # noqa: F401
    from mmengine.logging import HistoryBuffer

    from randsac_mm.utils.checkpoint_globals import history_buffer_getattr
    assert history_buffer_getattr(HistoryBuffer, 'mean') is HistoryBuffer.mean
    with pytest.raises(pickle.UnpicklingError, match='only allows getattr'):
        history_buffer_getattr(HistoryBuffer, '__init__')

    class Evil:
        # getattr(OrderedDict, 'fromkeys'): OrderedDict is allowed by torch,
        # the attribute is not a HistoryBuffer method.
        def __reduce__(self):
            return (getattr, (collections.OrderedDict, 'fromkeys'))

    path = tmp_path / 'evil.pth'
    torch.save({'x': Evil()}, path)
    with pytest.raises(pickle.UnpicklingError, match='only allows getattr'):
        torch.load(path)


def test_import_registers_model_modules():
    import randsac_mm.mmpretrain  # noqa: F401
    from mmpretrain.registry import MODELS, TRANSFORMS
    for name in ('RandSAC', 'RandSACViT', 'RandSACTwoStreamViT',
                 'RandSACDecoder', 'RandSACPretrainHead'):
        assert MODELS.get(name) is not None, name
    assert TRANSFORMS.get('RandSACSegmentGenerator') is not None


def test_downstream_registers_transfer_modules():
    import randsac_mm.downstream  # noqa: F401
    from mmdet.registry import DATASETS as DET_DATASETS
    from mmdet.registry import MODELS as DET_MODELS
    from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
    from mmseg.registry import DATASETS as SEG_DATASETS
    from mmseg.registry import MODELS as SEG_MODELS

    from randsac_mm.downstream import (
        BackboneLayerDecayOptimWrapperConstructor, CheckedADE20KDataset,
        CheckedCocoDataset, RandSACViTPyramid)
    assert SEG_MODELS.get('RandSACViTPyramid') is RandSACViTPyramid
    assert DET_MODELS.get('RandSACViTPyramid') is RandSACViTPyramid
    assert SEG_DATASETS.get('CheckedADE20KDataset') is CheckedADE20KDataset
    assert DET_DATASETS.get('CheckedCocoDataset') is CheckedCocoDataset
    assert OPTIM_WRAPPER_CONSTRUCTORS.get(
        'BackboneLayerDecayOptimWrapperConstructor') is \
        BackboneLayerDecayOptimWrapperConstructor
