import collections
import pickle

import pytest
import torch


def test_import_registers_modules():
    from mmengine.registry import OPTIM_WRAPPERS
    from mmpretrain.registry import DATASETS

    import randsac_mm.registration  # noqa: F401
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


def problems(installed, packages=None, ops=True):
    from randsac_mm.version_check import DOWNSTREAM, find_version_problems
    return find_version_problems(installed, packages or DOWNSTREAM,
                                 has_mmcv_ops=ops)


def test_the_pins_pass_with_a_local_suffix():
    assert problems(GOOD) == ([], [])


def test_pretraining_accepts_mmcv_lite_and_no_downstream_packages():
    from randsac_mm.version_check import PRETRAINING
    lite = {k: v for k, v in GOOD.items()
            if k not in ('mmcv', 'mmsegmentation', 'mmdet')}
    lite['mmcv-lite'] = '2.1.0'
    assert problems(lite, PRETRAINING, ops=False) == ([], [])


def test_downstream_refuses_mmcv_without_ops_naming_the_command():
    errors, _ = problems(dict(GOOD, mmcv=None, **{'mmcv-lite': '2.1.0'}),
                         ops=False)
    [error] = errors
    assert 'no compiled ops' in error and 'make install-downstream' in error


def test_other_versions_warn_missing_ones_refuse():
    errors, notes = problems(dict(GOOD, torch='2.14.0', mmdet=None))
    assert notes == ['torch==2.14.0 is installed; randsac_mm is tested with '
                     'torch==2.13.0 (pip install torch==2.13.0 '
                     'torchvision==0.28.0)']
    assert errors == ['mmdet is not installed; need mmdet==3.3.0: '
                      'make install-downstream']


@pytest.mark.parametrize('torch, torchvision', [
    ('2.11.0+cu130', '0.26.0+cu130'), ('2.12.1', '0.27.0')])
def test_older_torch_of_a_gpu_node_is_accepted_untested(torch, torchvision):
    errors, notes = problems(dict(GOOD, torch=torch, torchvision=torchvision))
    assert errors == []
    what_to_do = ('only; if a run fails or its numbers differ, check it '
                  'with the pinned version (pip install torch==2.13.0 '
                  'torchvision==0.28.0) before reporting it')
    assert notes == [
        f'torch=={torch} is installed: randsac_mm accepts it but is tested '
        f'with torch==2.13.0 {what_to_do}',
        f'torchvision=={torchvision} is installed: randsac_mm accepts it but '
        f'is tested with torchvision==0.28.0 {what_to_do}']


@pytest.mark.parametrize('torch', ['2.10.0', '2.13.1', '3.11.0'])
def test_torch_outside_the_accepted_releases_gets_the_pin_note(torch):
    errors, notes = problems(dict(GOOD, torch=torch))
    assert errors == []
    assert notes == [f'torch=={torch} is installed; randsac_mm is tested '
                     'with torch==2.13.0 (pip install torch==2.13.0 '
                     'torchvision==0.28.0)']


def test_downstream_refuses_mmcv_2_2():
    errors, notes = problems(dict(GOOD, mmcv='2.2.0'))
    assert any('mmdet 3.3.0 and mmseg 1.2.2 refuse mmcv>=2.2' in e
               for e in errors)
    assert len(notes) == 1  # and the version itself is noted


def test_version_check_refuses_onedl_fork_beside_upstream():
    errors, _ = problems(dict(GOOD, **{'onedl-mmcv': '2.3.0'}))
    assert len(errors) == 1
    assert 'onedl-mmcv==2.3.0 is installed beside upstream' in errors[0]
    assert 'Uninstall onedl-mmcv' in errors[0]


def test_check_versions_warns_then_raises(monkeypatch):
    from randsac_mm import version_check
    monkeypatch.setattr(version_check, 'find_version_problems',
                        lambda packages: (['mmdet is not installed'],
                                          ['torch==2.14.0 is installed']))
    monkeypatch.delenv(version_check.SKIP_ENV, raising=False)
    with pytest.warns(UserWarning, match='torch==2.14.0 is installed'), \
            pytest.raises(ImportError, match='mmdet is not installed'):
        version_check.check_versions()
    monkeypatch.setenv(version_check.SKIP_ENV, '1')
    version_check.check_versions()


def test_weights_only_load_reads_message_hub(tmp_path):
    from mmengine.logging import MessageHub

    import randsac_mm.registration  # noqa: F401  (allowlists the globals)
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
    from mmengine.logging import HistoryBuffer

    import randsac_mm.registration  # noqa: F401
    from randsac_mm.checkpoint.safe_globals import history_buffer_getattr
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
    from mmpretrain.registry import MODELS, TRANSFORMS

    import randsac_mm.registration  # noqa: F401
    for name in ('RandSAC', 'RandSACViT', 'RandSACTwoStreamViT',
                 'RandSACDecoder', 'RandSACPretrainHead',
                 'GlobalTokenMSELoss'):
        assert MODELS.get(name) is not None, name
    assert TRANSFORMS.get('RandSACSegmentGenerator') is not None


def test_downstream_registers_transfer_modules():
    from mmdet.registry import DATASETS as DET_DATASETS
    from mmdet.registry import MODELS as DET_MODELS
    from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
    from mmseg.registry import DATASETS as SEG_DATASETS
    from mmseg.registry import MODELS as SEG_MODELS

    import randsac_mm.downstream  # noqa: F401
    from randsac_mm.downstream import (
        BackboneLayerDecayOptimWrapperConstructor,
        CheckedADE20KDataset,
        CheckedCocoDataset,
        RandSACViTPyramid,
    )
    assert SEG_MODELS.get('RandSACViTPyramid') is RandSACViTPyramid
    assert DET_MODELS.get('RandSACViTPyramid') is RandSACViTPyramid
    assert SEG_DATASETS.get('CheckedADE20KDataset') is CheckedADE20KDataset
    assert DET_DATASETS.get('CheckedCocoDataset') is CheckedCocoDataset
    assert OPTIM_WRAPPER_CONSTRUCTORS.get(
        'BackboneLayerDecayOptimWrapperConstructor') is \
        BackboneLayerDecayOptimWrapperConstructor


def test_mmpretrains_model_list_holds_what_its_get_model_builds():
    """list_models('*randsac*') names the pretraining and classification
    configs, which get_model builds, and none of mmseg's or mmdet's."""
    import mmpretrain

    import randsac_mm.registration  # noqa: F401
    names = mmpretrain.list_models('*randsac*')
    assert 'randsac_vit-b_in1k' in names
    assert not [n for n in names if n.startswith(('upernet', 'mask-rcnn'))]
    # Through mmpretrain's public register_model_index alone: every model
    # of its index says its weights are not released, by its own name.
    from randsac_mm.installed_files import METAFILE
    from randsac_mm.registration import NO_RELEASED_WEIGHTS, index_models
    models = index_models(METAFILE)
    assert {m['Name'] for m in models} <= set(mmpretrain.list_models())
    assert [m['Name'] for m in models
            if m['Weights'] != NO_RELEASED_WEIGHTS + m['Name']] == []
    model = mmpretrain.get_model(
        'randsac_vit-mini-p4_square-16to4_digits')
    assert type(model).__name__ == 'RandSAC'


def test_get_model_pretrained_true_is_refused_saying_no_weights_exist(
        tmp_path):
    """Before: mmpretrain warned and returned random weights. A checkpoint
    one trained loads by its path."""
    import mmpretrain
    import pytest
    import torch

    import randsac_mm.registration  # noqa: F401
    name = 'randsac_vit-mini-p4_square-16to4_digits'
    with pytest.raises(ValueError, match=(
            rf'^pretrained=True: randsac_mm releases no weights for {name} '
            r"\(the paper's checkpoints are not public\); pass a checkpoint "
            'you trained')):
        mmpretrain.get_model(name, pretrained=True)
    trained = mmpretrain.get_model(name)
    path = tmp_path / 'epoch_1.pth'
    torch.save({'state_dict': trained.state_dict(), 'meta': {}}, path)
    loaded = mmpretrain.get_model(name, pretrained=str(path))
    for key, value in trained.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key
