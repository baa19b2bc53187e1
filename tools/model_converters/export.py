"""Exports a RandSAC (or MAE, or fine-tuned) checkpoint's encoder to timm
and to Hugging Face transformers, as files on disk
(``randsac_mm.checkpoint.export`` says what each holds).

    python tools/model_converters/export.py CHECKPOINT --to timm hf \
        --out-dir work_dirs/export [--config CONFIG]

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
    # (an encoder with a class token, MAE: last_hidden_state[:, 1:])
"""
import argparse
import os.path as osp


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('checkpoint', help='an mmengine checkpoint')
    parser.add_argument('--to', nargs='+', choices=['timm', 'hf'],
                        default=['timm', 'hf'], help='formats (default both)')
    parser.add_argument('--out-dir', default='work_dirs/export',
                        help='a folder per format goes here')
    parser.add_argument('--config', help="the checkpoint's config (default: "
                        'the one stored in it)')
    args = parser.parse_args(argv)
    for path in (args.checkpoint, args.config):
        if path is not None and not osp.isfile(path):
            parser.error(f'no such file: {path!r}')
    return args


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from randsac_mm.apis import load_model
    from randsac_mm.checkpoint.export import export_hf, export_timm
    model, cfg = load_model(args.checkpoint, args.config)
    for target in args.to:
        folder = osp.join(args.out_dir, target)
        (export_timm if target == 'timm' else export_hf)(model, cfg, folder)
        print(f'wrote {folder}')


if __name__ == '__main__':
    main()
