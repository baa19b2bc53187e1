"""RandSAC checkpoints into UperNet (mmseg) and Mask R-CNN (mmdet)."""
import json
import re
import shutil

import pytest
import torch
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import DefaultScope
from mmpretrain.models.utils import resize_pos_embed

import randsac_mm.downstream  # noqa: F401

from .. import data_factory
from ..conftest import REPO_ROOT, run_tool, save_moved_checkpoint

pytestmark = pytest.mark.heavy

SEG = (f'{REPO_ROOT}/configs/segmentation/'
       'upernet_randsac-vit-b_8xb2-160k_ade20k-512x512.py')
DET = f'{REPO_ROOT}/configs/detection/mask-rcnn_randsac-vit-b_fpn_coco.py'
ARCH = dict(embed_dims=64, num_layers=4, num_heads=2, feedforward_channels=128)
# Both recipes train in fp16 (AmpOptimWrapper), which needs CUDA: the tiny
# configs run the same optimizer in fp32.
FP32_OPTIM_WRAPPER = '''optim_wrapper = {
    **{k: v for k, v in _base_.optim_wrapper.items() if k != 'loss_scale'},
    'type': 'OptimWrapper', '_delete_': True}
'''


@pytest.fixture(scope='module')
def pretrained(tmp_path_factory):
    """A RandSAC pretraining checkpoint (ViT 4 x 64, 192 px, P=16)."""
    from mmpretrain.registry import MODELS
    torch.manual_seed(0)
    with DefaultScope.overwrite_default_scope('mmpretrain'):
        model = MODELS.build(dict(
            type='RandSAC',
            backbone=dict(type='RandSACViT', arch=ARCH, img_size=192,
                          patch_size=16),
            neck=dict(type='RandSACDecoder', num_layers=1, num_heads=2),
            head=dict(type='RandSACPretrainHead')))
        model.init_weights()
    return save_moved_checkpoint(
        model, tmp_path_factory.mktemp('ckpt') / 'randsac.pth')


def tiny_seg_config(tmp_path, checkpoint, data_root):
    path = tmp_path / 'tiny_seg.py'
    path.write_text(f'''
_base_ = ['{SEG}']
norm_cfg = dict(type='BN', requires_grad=True)
model = dict(
    data_preprocessor=dict(size=(64, 64)),
    backbone=dict(arch=dict(_delete_=True, **{ARCH}), img_size=64,
                  out_indices=(0, 1, 2, 3), norm_cfg=norm_cfg,
                  init_cfg=dict(checkpoint='{checkpoint}')),
    decode_head=dict(in_channels=[64, 64, 64, 64], channels=32,
                     norm_cfg=norm_cfg),
    auxiliary_head=dict(in_channels=64, channels=16, norm_cfg=norm_cfg),
    test_cfg=dict(mode='whole'))
train_dataloader = dict(batch_size=2, num_workers=0, persistent_workers=False,
    dataset=dict(data_root='{data_root}', pipeline=[
        dict(type='LoadImageFromFile'),
        dict(type='LoadAnnotations', reduce_zero_label=True),
        dict(type='RandomCrop', crop_size=(64, 64)),
        dict(type='PackSegInputs')]))
val_dataloader = dict(num_workers=0, persistent_workers=False,
    dataset=dict(data_root='{data_root}', pipeline=[
        dict(type='LoadImageFromFile'),
        dict(type='Resize', scale=(64, 64), keep_ratio=False),
        dict(type='LoadAnnotations', reduce_zero_label=True),
        dict(type='PackSegInputs')]))
test_dataloader = val_dataloader
train_cfg = dict(max_iters=2, val_interval=2)
{FP32_OPTIM_WRAPPER}default_hooks = dict(logger=dict(interval=1),
                     checkpoint=dict(interval=2),
                     visualization=dict(draw=False))
env_cfg = dict(dist_cfg=dict(backend='gloo'))
''')
    return str(path)


def tiny_det_config(tmp_path, checkpoint, data_root):
    path = tmp_path / 'tiny_det.py'
    path.write_text(f'''
_base_ = ['{DET}']
norm_cfg = dict(type='BN', requires_grad=True)
model = dict(
    backbone=dict(arch=dict(_delete_=True, **{ARCH}), img_size=128,
                  out_indices=(0, 1, 2, 3),
                  init_cfg=dict(checkpoint='{checkpoint}')),
    neck=dict(in_channels=[64, 64, 64, 64], out_channels=32,
              norm_cfg=norm_cfg),
    rpn_head=dict(in_channels=32, feat_channels=32),
    roi_head=dict(bbox_roi_extractor=dict(out_channels=32),
                  bbox_head=dict(in_channels=32, conv_out_channels=32,
                                 fc_out_channels=64, norm_cfg=norm_cfg),
                  mask_roi_extractor=dict(out_channels=32),
                  mask_head=dict(in_channels=32, conv_out_channels=32,
                                 num_convs=1, norm_cfg=norm_cfg)),
    # After one tiny iteration no box scores 0.05: keep every box so that
    # the COCO metrics are computed.
    test_cfg=dict(rcnn=dict(score_thr=0.0)))
pipeline = [
    dict(type='LoadImageFromFile'),
    dict(type='LoadAnnotations', with_bbox=True, with_mask=True),
    dict(type='Resize', scale=(128, 128), keep_ratio=True),
    dict(type='PackDetInputs',
         meta_keys=('img_id', 'img_path', 'ori_shape', 'img_shape',
                    'scale_factor', 'flip', 'flip_direction'))]
train_dataloader = dict(batch_size=2, num_workers=0, persistent_workers=False,
    dataset=dict(data_root='{data_root}/', pipeline=pipeline))
val_dataloader = dict(num_workers=0, persistent_workers=False,
    dataset=dict(data_root='{data_root}/', pipeline=pipeline))
test_dataloader = val_dataloader
val_evaluator = dict(ann_file='{data_root}/annotations/instances_val2017.json')
test_evaluator = val_evaluator
train_cfg = dict(max_epochs=1, val_interval=1)
{FP32_OPTIM_WRAPPER}default_hooks = dict(logger=dict(interval=1),
                     checkpoint=dict(interval=1),
                     visualization=dict(draw=False))
env_cfg = dict(dist_cfg=dict(backend='gloo'))
''')
    return str(path)


def build(config, scope):
    """Builds and initialises the config's model in ``scope`` (without
    leaving that scope as the process default for later tests)."""
    cfg = Config.fromfile(config)
    registry = __import__(f'{scope}.registry', fromlist=['MODELS']).MODELS
    with DefaultScope.overwrite_default_scope(scope):
        model = registry.build(cfg.model)
        model.init_weights()
    return cfg, model


def assert_backbone_is_pretrained(model, checkpoint):
    source = torch.load(checkpoint)['state_dict']
    loaded = model.backbone.state_dict()
    for key, value in loaded.items():
        if key.startswith('fpn'):
            continue  # the pyramid is new
        expected = source['backbone.' + key]
        if key == 'pos_embed':  # the documented interpolation, 12x12 -> grid
            side = int(value.shape[1]**0.5)
            expected = resize_pos_embed(expected, (12, 12), (side, side),
                                        'bicubic', 0)
            assert torch.allclose(value, expected, atol=1e-5)
        else:
            assert torch.equal(value, expected), key
    assert any(k.startswith('layers.3.') for k in loaded)


def test_segmentation_trains_evaluates_and_loads_pretrained(
        tmp_path, pretrained):
    root = data_factory.write_ade20k(str(tmp_path / 'ade'))
    config = tiny_seg_config(tmp_path, pretrained, root)
    _, model = build(config, 'mmseg')
    assert_backbone_is_pretrained(model, pretrained)
    out = run_tool(['tools/train.py', config, '--device', 'cpu',
                    '--work-dir', tmp_path / 'w'])
    assert re.search(r'mIoU: \d+\.\d+', out.stdout + out.stderr)
    test = run_tool(['tools/test.py', config, tmp_path / 'w' / 'iter_2.pth',
                     '--device', 'cpu',
                     '--work-dir', tmp_path / 't'])
    metrics = json.loads(test.stdout.splitlines()[-1][len('Test metrics: '):])
    assert 0 <= metrics['mIoU'] <= 100


def test_detection_trains_evaluates_and_loads_pretrained(tmp_path, pretrained):
    root = data_factory.write_coco(str(tmp_path / 'coco'))
    config = tiny_det_config(tmp_path, pretrained, root)
    _, model = build(config, 'mmdet')
    assert_backbone_is_pretrained(model, pretrained)
    out = run_tool(['tools/train.py', config, '--device', 'cpu',
                    '--work-dir', tmp_path / 'w'])
    log = out.stdout + out.stderr
    assert re.search(r'coco/bbox_mAP: -?\d+\.\d+', log)
    assert re.search(r'coco/segm_mAP: -?\d+\.\d+', log)


def test_layer_decay_gives_each_block_its_lr(tmp_path, pretrained):
    root = data_factory.write_ade20k(str(tmp_path / 'ade'))
    cfg, model = build(tiny_seg_config(tmp_path, pretrained, root), 'mmseg')
    wrapper = build_optim_wrapper(model, cfg.optim_wrapper)
    lr = {g['param_name']: g['lr'] for g in wrapper.optimizer.param_groups}
    base = cfg.optim_wrapper.optimizer.lr
    blocks = [lr[f'backbone.layers.{i}.attn.qkv.weight'] for i in range(4)]
    # 4 blocks: depth i + 1 of 6, lr = base x 0.65^(5 - (i + 1)).
    assert blocks == pytest.approx([base * 0.65**(4 - i) for i in range(4)])
    assert lr['backbone.patch_embed.projection.weight'] == pytest.approx(
        base * 0.65**5)
    assert lr['decode_head.conv_seg.weight'] == pytest.approx(base)


def test_converter_keeps_encoder_and_resizes(tmp_path, pretrained):
    out = tmp_path / 'seg.pth'
    printed = run_tool(['tools/model_converters/randsac2downstream.py',
                        pretrained, out, '--to', 'mmseg', '--img-size', '64',
                        '--num-layers', '4'])
    state = torch.load(out)['state_dict']
    assert state and all(k.startswith('backbone.') for k in state)
    assert state['backbone.pos_embed'].shape == (1, 16, 64)
    assert 'dropped: pretraining decoder' in printed.stdout
    assert 'resized (1, 144, 64) -> (1, 16, 64)' in printed.stdout
    # The converted checkpoint initialises the backbone like the raw one.
    root = data_factory.write_ade20k(str(tmp_path / 'ade'))
    _, model = build(tiny_seg_config(tmp_path, str(out), root), 'mmseg')
    assert torch.equal(model.backbone.layers[2].attn.qkv.weight,
                       state['backbone.layers.2.attn.qkv.weight'])


@pytest.mark.parametrize('corrupt, message', [
    (lambda sd: {k.replace('backbone.', 'encoder.'): v
                 for k, v in sd.items()}, 'no encoder keys starting with'),
    (lambda sd: {k: (v[:, :, :8] if k == 'backbone.pos_embed' else v)
                 for k, v in sd.items()}, 'pos_embed has shape'),
    (lambda sd: {k: v for k, v in sd.items() if 'layers.0.' not in k},
     "lacks \\['layers.0.attn.qkv.weight'\\]"),
    # The downstream configs' encoder has 12 layers, this one 4.
    (lambda sd: sd, 'a 4-layer encoder; the downstream configs build 12'),
    # A two-stream checkpoint, and a deeper one.
    (lambda sd: {**sd, 'backbone.query_token': torch.zeros(1, 1, 64)},
     "4-layer encoder and \\['query_token'\\]"),
    (lambda sd: {**sd, 'backbone.layers.4.attn.qkv.weight':
                 torch.zeros(192, 64)},
     "5-layer encoder and \\['layers.4.\\*'\\]"),
    # A fine-tuned classifier: its head is no pixel predictor.
    (lambda sd: {**{k: v for k, v in sd.items()
                    if k.startswith('backbone.')},
                 'head.fc.weight': torch.zeros(10, 64)},
     '^the checkpoint is a classifier checkpoint, not a pretraining one: '
     'convert the RandSAC'),
])
def test_converter_refuses_malformed_checkpoints(pretrained, corrupt,
                                                 message):
    from randsac_mm.checkpoint import ConversionError, convert_for_downstream
    state = corrupt(torch.load(pretrained)['state_dict'])
    num_layers = 12 if '4-layer encoder;' in message else 4
    with pytest.raises(ConversionError, match=message):
        convert_for_downstream(state, 64, num_layers=num_layers)


def test_converter_tool_refuses_and_writes_nothing(tmp_path, pretrained):
    bad = tmp_path / 'bad.pth'
    torch.save({'state_dict': {**torch.load(pretrained)['state_dict'],
                               'backbone.query_token': torch.zeros(1, 1, 64)}},
               bad)
    with pytest.raises(pytest.fail.Exception,
                       match="src .*bad.pth.*\\['query_token'\\]"):
        run_tool(['tools/model_converters/randsac2downstream.py', bad,
                  tmp_path / 'o.pth', '--to', 'mmseg', '--num-layers', '4'])
    assert not (tmp_path / 'o.pth').exists()


def test_converter_refuses_corrupted_file(tmp_path):
    bad = tmp_path / 'truncated.pth'
    bad.write_bytes(b'PK\x03\x04 truncated')
    with pytest.raises(pytest.fail.Exception,
                       match='is not a checkpoint torch.load can read'):
        run_tool(['tools/model_converters/randsac2downstream.py', bad,
                  tmp_path / 'o.pth', '--to', 'mmseg'])


@pytest.mark.parametrize('dst, message', [
    ('{src}', 'dst: .*pre.pth is src, which this tool reads; give another '
              'file name'),
    ('{tmp}', 'dst: .* is a folder; give a file name'),
    ('{tmp}/a_file/o.pth', r'dst: cannot make .*a_file/o\.pth \(.*a_file is '
                           r'not a writable folder\)'),
])
def test_converter_never_writes_over_what_it_reads(tmp_path, pretrained,
                                                   dst, message):
    src = tmp_path / 'pre.pth'
    shutil.copy(pretrained, src)
    (tmp_path / 'a_file').write_text('x')
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(pytest.fail.Exception, match=message):
        run_tool(['tools/model_converters/randsac2downstream.py', src,
                  dst.format(src=src, tmp=tmp_path), '--to', 'mmseg'])
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert src.read_bytes() == open(pretrained, 'rb').read()
