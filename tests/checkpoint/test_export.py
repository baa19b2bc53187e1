"""Exports to timm and transformers compute our frozen feature: loaded with
the real libraries, from the files alone, on the same images (1e-5)."""
import json

import pytest
import torch
from mmengine.config import Config

import randsac_mm.registration  # noqa: F401
from randsac_mm.apis import build_model, load_model
from randsac_mm.checkpoint.export import export_hf, export_timm
from randsac_mm.evaluation.frozen_features import pooled

from ..conftest import REPO_ROOT, run_tool, save_moved_checkpoint

SMALL = f'{REPO_ROOT}/configs/small_scale/'
CONFIGS = {
    'randsac': SMALL + 'randsac_vit-mini-p4_blob-k7_fashion-mnist.py',
    'two-stream': SMALL +
    'randsac_vit-mini-p4_blob-11to5_two-stream_fashion-mnist.py',
    'mae': SMALL + 'mae_vit-mini-p4_fashion-mnist.py',
}


def checkpoint(kind, tmp_path):
    """A checkpoint as mmengine writes it (weights and the config text),
    of a randomly initialised model of the config, its weights moved off
    their initial values so every tensor matters."""
    cfg = Config.fromfile(CONFIGS[kind])
    model = build_model(cfg, seed=0)
    path = tmp_path / f'{kind}.pth'
    save_moved_checkpoint(model, path, meta=dict(cfg=cfg.pretty_text))
    return path


def our_feature(model, images):
    with torch.no_grad():
        out = model.extract_feat(images)
    return pooled(out[-1] if isinstance(out, tuple) else out)


@pytest.mark.parametrize('kind', list(CONFIGS))
def test_exports_compute_our_feature(kind, tmp_path):
    model, cfg = load_model(checkpoint(kind, tmp_path))
    images = torch.randn(3, 3, 32, 32)
    ours = our_feature(model, images)
    export_timm(model, cfg, tmp_path / 'timm')
    meta = json.loads((tmp_path / 'timm' / 'timm_model.json').read_text())
    theirs = timm_model(tmp_path / 'timm')
    with torch.no_grad():
        torch.testing.assert_close(theirs(images), ours, rtol=1e-5,
                                   atol=1e-5)
    export_hf(model, cfg, tmp_path / 'hf')
    hf = hf_model(tmp_path / 'hf', kind)
    expected = 'ViTModel' if kind == 'mae' else 'IJepaModel'
    assert type(hf).__name__ == expected
    with torch.no_grad():
        tokens = hf(pixel_values=images).last_hidden_state
    patches = tokens[:, 1:] if kind == 'mae' else tokens
    torch.testing.assert_close(patches.mean(1), ours, rtol=1e-5, atol=1e-5)
    # The normalisation travels with the files: the configs' pixel
    # statistics, on the 0..1 scale.
    assert meta['pretrained_cfg']['mean'] == pytest.approx(
        [m / 255 for m in cfg.data_preprocessor.mean])
    processor = json.loads((tmp_path / 'hf' /
                            'preprocessor_config.json').read_text())
    assert processor['image_std'] == pytest.approx(
        [s / 255 for s in cfg.data_preprocessor.std])


def test_a_changed_weight_changes_the_export(tmp_path):
    """Guards the test above against comparing a model with itself."""
    model, cfg = load_model(checkpoint('randsac', tmp_path))
    images = torch.randn(2, 3, 32, 32)
    ours = our_feature(model, images)
    with torch.no_grad():
        model.backbone.layers[3].ffn.layers[1].weight.mul_(1.5)
    export_timm(model, cfg, tmp_path / 'timm')
    theirs = timm_model(tmp_path / 'timm')
    with torch.no_grad():
        assert not torch.allclose(theirs(images), ours, atol=1e-4)


@pytest.mark.heavy
def test_the_tool_writes_both_formats(tmp_path):
    out = run_tool(['tools/model_converters/export.py',
                    checkpoint('randsac', tmp_path), '--out-dir',
                    tmp_path / 'export'])
    assert sorted(p.name for p in (tmp_path / 'export' / 'hf').iterdir()) \
        == ['config.json', 'model.safetensors', 'preprocessor_config.json']
    assert sorted(p.name for p in (tmp_path / 'export' / 'timm').iterdir()) \
        == ['model.safetensors', 'timm_model.json']
    assert out.stdout.count('wrote ') == 2


def test_a_checkpoint_without_config_needs_one(tmp_path):
    path = tmp_path / 'bare.pth'
    torch.save(dict(state_dict={}), path)
    with pytest.raises(ValueError, match=r'stores no config .*: give it with '
                       'config='):
        load_model(path)


SUPERVISED = f'{REPO_ROOT}/configs/demo/vit-mini-p4_1xb64-10e_digits.py'


def supervised_vit(tmp_path, out_type, final_norm, with_cls_token=False):
    """A checkpoint of the demo's supervised ViT classifier (mmpretrain's
    VisionTransformer) with the given output, every weight moved off its
    initial value (the norms' too: ln2 must matter)."""
    cfg = Config.fromfile(SUPERVISED)
    cfg.model.backbone.update(out_type=out_type, final_norm=final_norm,
                              with_cls_token=with_cls_token)
    if out_type == 'featmap':
        cfg.model.neck = dict(type='GlobalAveragePooling')
    model = build_model(cfg, seed=0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    path = tmp_path / f'{out_type}-{final_norm}.pth'
    torch.save(dict(state_dict=model.state_dict(),
                    meta=dict(cfg=cfg.pretty_text)), path)
    return path


def timm_model(folder, **options):
    """The timm export loaded as docs/tools.md shows (its pretrained_cfg
    with the file: timm's data config is the export's)."""
    import timm
    meta = json.loads((folder / 'timm_model.json').read_text())
    return timm.create_model(
        meta['model_name'], pretrained=True, pretrained_cfg_overlay=dict(
            meta['pretrained_cfg'], file=str(folder / 'model.safetensors')),
        **meta['kwargs'], **options).eval()


def hf_model(folder, kind):
    """The transformers export loaded as docs/tools.md shows (an encoder
    with a class token, MAE's, without ViTModel's pooler)."""
    from transformers import AutoModel
    options = dict(add_pooling_layer=False) if kind == 'mae' else {}
    return AutoModel.from_pretrained(folder, **options).eval()


def test_the_exports_data_config_and_other_image_sizes_as_documented(
        tmp_path, caplog):
    """timm's resolve_data_config gives the export's size, mean and std
    (before, as the docs loaded it: 224 px, mean 0.5); another image size
    runs with timm's dynamic_img_size and transformers'
    interpolate_pos_encoding; MAE's ViTModel loads with no pooler to
    initialise (before: a new pooler, and "You should probably TRAIN")."""
    import logging

    import timm
    model, cfg = load_model(checkpoint('mae', tmp_path))
    export_timm(model, cfg, tmp_path / 'timm')
    data = timm.data.resolve_data_config(model=timm_model(tmp_path / 'timm'))
    assert tuple(data['input_size']) == (3, 32, 32)
    assert data['mean'] == pytest.approx(
        tuple(m / 255 for m in cfg.data_preprocessor.mean))
    larger = torch.randn(2, 3, 48, 48)
    with torch.no_grad():
        assert timm_model(tmp_path / 'timm', dynamic_img_size=True)(
            larger).shape == (2, 96)
    export_hf(model, cfg, tmp_path / 'hf')
    with caplog.at_level(logging.WARNING, logger='transformers'):
        hf = hf_model(tmp_path / 'hf', 'mae')
    assert hf.pooler is None
    assert 'newly initialized' not in caplog.text
    with torch.no_grad():
        tokens = hf(pixel_values=larger,
                    interpolate_pos_encoding=True).last_hidden_state
    assert tokens.shape == (2, 1 + 12 * 12, 96)


# (out_type, final_norm, class token): the timm feature, the transformers
# one ('refused': the format cannot compute it).
SUPERVISED_CASES = [
    # mmpretrain's MAE fine-tuning: no norm on the tokens, ln2 on their
    # average: timm's fc_norm; transformers' ViT norms every token.
    ('avg_featmap', False, False, 'fc_norm', 'refused'),
    ('cls_token', True, True, 'token', 'token'),
    ('featmap', False, False, 'avg', 'refused'),
    # ln1 on every token and ln2 on their average: no timm ViT has both.
    ('avg_featmap', True, False, 'refused', 'refused'),
]


@pytest.mark.parametrize('out_type, final_norm, cls, timm_kind, hf_kind',
                         SUPERVISED_CASES)
def test_a_supervised_vit_exports_its_own_feature_or_is_refused(
        tmp_path, out_type, final_norm, cls, timm_kind, hf_kind):
    """The exported model computes the classifier's feature (its
    ``extract_feat``: ln2 of the average for 'avg_featmap', the class
    token for 'cls_token'), or the export is refused, naming why."""
    from transformers import AutoModel
    model, cfg = load_model(supervised_vit(tmp_path, out_type, final_norm,
                                           cls))
    images = torch.randn(3, 3, 32, 32)
    with torch.no_grad():
        ours = model.extract_feat(images)[-1]
    assert ours.shape == (3, 128)
    if timm_kind == 'refused':
        with pytest.raises(ValueError, match='timm.s ViT has one of the two '
                           'norms, never both'):
            export_timm(model, cfg, tmp_path / 'timm')
        assert not (tmp_path / 'timm').exists()
    else:
        kwargs = export_timm(model, cfg, tmp_path / 'timm')
        assert kwargs['fc_norm'] == (timm_kind == 'fc_norm')
        assert kwargs['global_pool'] == ('token' if timm_kind == 'token'
                                         else 'avg')
        with torch.no_grad():
            torch.testing.assert_close(timm_model(tmp_path / 'timm')(images),
                                       ours, rtol=1e-5, atol=1e-5)
    if hf_kind == 'refused':
        with pytest.raises(ValueError, match='export to transformers'):
            export_hf(model, cfg, tmp_path / 'hf')
        assert not (tmp_path / 'hf').exists()
    else:
        export_hf(model, cfg, tmp_path / 'hf')
        hf = AutoModel.from_pretrained(tmp_path / 'hf').eval()
        with torch.no_grad():
            tokens = hf(pixel_values=images).last_hidden_state
        torch.testing.assert_close(tokens[:, 0], ours, rtol=1e-5, atol=1e-5)


def test_ln2_matters_in_the_supervised_export(tmp_path):
    """Guards the test above: the fc_norm export with ln2 left out (what
    the export gave before) differs from the model's feature."""
    model, cfg = load_model(supervised_vit(tmp_path, 'avg_featmap', False))
    images = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        ours = model.extract_feat(images)[-1]
        model.backbone.ln2.weight.fill_(1.0)
        model.backbone.ln2.bias.zero_()
    export_timm(model, cfg, tmp_path / 'timm')
    with torch.no_grad():
        assert not torch.allclose(timm_model(tmp_path / 'timm')(images),
                                  ours, atol=1e-3)
