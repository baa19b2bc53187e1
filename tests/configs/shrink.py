"""Localises a config to tiny data on disk and shrinks large models, the
way a user would with --cfg-options."""
import os.path as osp
from glob import glob

from ..conftest import REPO_ROOT

CONFIG_DIR = osp.join(REPO_ROOT, 'configs')
PRETRAIN_CONFIGS = sorted(
    glob(osp.join(CONFIG_DIR, 'pretrain', '*.py')) +
    [osp.join(CONFIG_DIR, 'randsac_vit-b_in1k.py')] +
    [p for p in glob(osp.join(CONFIG_DIR, 'demo', '*.py'))
     if osp.basename(p).startswith('randsac')] +
    glob(osp.join(CONFIG_DIR, 'small_scale', '*.py')) +
    glob(osp.join(CONFIG_DIR, 'paper_scale', '*.py')))
EVAL_CONFIGS = sorted(glob(osp.join(CONFIG_DIR, 'benchmarks', '*', '*.py')))
SUPERVISED_CONFIGS = sorted(glob(osp.join(CONFIG_DIR, 'supervised', '*.py')))
SMALL_ARCH = dict(embed_dims=64, num_layers=2, num_heads=2,
                  feedforward_channels=128)


def name(path):
    return osp.relpath(path, CONFIG_DIR)


# mmpretrain-scope configs; segmentation/ and detection/ (mmseg, mmdet) are
# trained and evaluated in tests/tools/test_transfer.py.
TRANSFER_DIRS = ('segmentation', 'detection')
ALL_CONFIGS = sorted(
    p for p in glob(osp.join(CONFIG_DIR, '**', '*.py'), recursive=True)
    if '_base_' not in p and name(p).split('/')[0] not in TRANSFER_DIRS)


def encoder_width(arch):
    """embed_dims of a VisionTransformer ``arch``: a dict, or a name of
    mmpretrain's arch_zoo (configs name a shape the zoo has)."""
    if isinstance(arch, dict):
        return arch['embed_dims']
    from mmpretrain.models import VisionTransformer
    return VisionTransformer.arch_zoo[arch.lower()]['embed_dims']


def is_large(backbone):
    dims = encoder_width(backbone.get('arch', 'base'))
    tokens = (backbone['img_size'] // backbone['patch_size'])**2
    return dims > 192 or tokens > 256


def shrink_model(model):
    """Two-layer 64-wide encoder (one more layer for two-stream), one
    decoder layer: for ViT-S/B and for 1024-token ViT-T configs."""
    backbone = model['backbone']
    if not is_large(backbone):
        return False
    # A two-stream encoder, or an evaluation backbone of one: one layer more.
    two_stream = backbone['type'] == 'RandSACTwoStreamViT' or \
        'query_token' in backbone.get('unused_checkpoint_keys', ())
    backbone['arch'] = dict(SMALL_ARCH, num_layers=3 if two_stream else 2)
    neck = model.get('neck')
    if isinstance(neck, dict) and neck.get('type') == 'RandSACDecoder':
        # Its grid and encoder shapes, and the head's, follow the backbone.
        model['neck'].update(embed_dims=64, num_layers=1, num_heads=2)
    if model['head'].get('type') != 'RandSACPretrainHead':  # classifiers
        model['head']['in_channels'] = 64
        if isinstance(backbone.get('frozen_stages'), int):
            backbone['frozen_stages'] = 2
        necks = model['neck'] if isinstance(model['neck'], list) else []
        for neck in necks:
            if neck['type'] == 'ClsBatchNormNeck':
                neck['input_features'] = 64
    return True


def localise(cfg, data_roots, work_dir):
    """Tiny data, one iteration, no workers, no validation, CPU-friendly."""
    loader = cfg.train_dataloader
    dataset = loader.dataset
    if dataset.type == 'InMemoryBatchImages':  # the data set it holds
        dataset = dataset.dataset
    if dataset.type not in ('DigitsDataset', 'MNIST5k'):  # data installed
        dataset.data_root = data_roots[dataset.type]
    dataset.indices = 2
    loader.update(batch_size=2, num_workers=0, persistent_workers=False,
                  pin_memory=False)
    cfg.train_cfg.max_epochs = 1
    cfg.train_cfg.pop('val_interval', None)
    for key in ('val_dataloader', 'val_cfg', 'val_evaluator'):
        cfg[key] = None
    cfg.work_dir = str(work_dir)
    cfg.default_hooks.logger.interval = 1
    cfg.default_hooks.checkpoint.interval = 1
    cfg.env_cfg.dist_cfg = dict(backend='gloo')
    return cfg
