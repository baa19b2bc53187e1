r"""Exports a RandSAC (or MAE, or fine-tuned) checkpoint's encoder to timm
and to Hugging Face transformers, as files on disk
(``randsac_mm.checkpoint.export`` says what each holds).

    python tools/model_converters/export.py CHECKPOINT --to timm hf \
        --out-dir work_dirs/export [--config CONFIG]

The exported model computes the encoder's feature as the model does: the
averaged final-normed patch tokens (RandSAC, MAE, probes, fine-tuning), the
average then ``ln2`` (mmpretrain's ``out_type='avg_featmap'``) or the class
token (``out_type='cls_token'``). A feature a format cannot compute is
refused, naming why, before anything is written; the neck and the head are
not exported.

Loading them (no hub, no download):

    import json, timm
    meta = json.load(open('work_dirs/export/timm/timm_model.json'))
    model = timm.create_model(meta['model_name'], pretrained=True,
        pretrained_cfg_overlay=dict(file='work_dirs/export/timm/'
                                    'model.safetensors'), **meta['kwargs'])
    feature = model(images)                 # [B, C], images normalised

    from transformers import AutoModel
    model = AutoModel.from_pretrained('work_dirs/export/hf')
    feature = model(pixel_values=images).last_hidden_state.mean(1)
    # (an encoder with a class token, MAE: last_hidden_state[:, 1:]; the
    # tool prints which)
"""
import os.path as osp

from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, CONFIG, OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.run.config_kinds import require_kind


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_path('checkpoint', kind=CHECKPOINT,
                    help='an mmengine checkpoint (.pth) of a pretraining or '
                    'classifier model')
    parser.add_argument('--to', nargs='+', choices=['timm', 'hf'],
                        default=['timm', 'hf'],
                        help='formats: timm, hf (Hugging Face transformers)')
    parser.add_path('--out-dir', kind=OUTPUT_FOLDER,
                    default='work_dirs/export',
                    help='a folder per format goes here')
    parser.add_path('--config', kind=CONFIG,
                    help="the checkpoint's config; None: the one mmengine "
                    'stored in the checkpoint')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def load_checkpoint(path, config=None):
    """The checkpoint's model and config, or UserError naming the argument:
    not a torch checkpoint, no state_dict, no config stored, not a
    pretraining or classifier model, weights that do not fit."""
    from randsac_mm.apis import build_model
    from randsac_mm.checkpoint.reading import read_checkpoint, stored_config
    from randsac_mm.cli.config_file import read_config
    from randsac_mm.evaluation.weights import load_weights
    name = osp.basename(path)
    checkpoint, _ = read_checkpoint(path, 'checkpoint')
    argument = '--config' if config else 'checkpoint'
    cfg = read_config(config, '--config') if config else \
        stored_config(checkpoint)
    if cfg is None:
        raise UserError(f'checkpoint: {name} stores no config (mmengine '
                        "writes it in meta['cfg']); give its config with "
                        '--config')
    require_kind(cfg, ('pretraining', 'classifier'), argument,
                 config or path)
    model = build_model(cfg, init=False)
    load_weights(model, path, 'checkpoint', config)
    return model.eval(), cfg


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.checkpoint.export import (
        check_exportable,
        describe_feature,
        export_hf,
        export_timm,
    )
    model, cfg = load_checkpoint(args.checkpoint, args.config)
    if not hasattr(model, 'backbone'):
        raise UserError('checkpoint: its model has no backbone (encoder) to '
                        'export')
    # Every format checked before any is written.
    targets = list(dict.fromkeys(args.to))
    try:
        shapes = {t: check_exportable(model.backbone, t) for t in targets}
    except ValueError as e:
        raise UserError(f'checkpoint {osp.basename(args.checkpoint)}: {e}')
    for target in targets:
        folder = osp.join(args.out_dir, target)
        (export_timm if target == 'timm' else export_hf)(model, cfg, folder)
        print(f'wrote {folder} (feature: '
              f'{describe_feature(shapes[target], target)})')


if __name__ == '__main__':
    run_tool(main)
