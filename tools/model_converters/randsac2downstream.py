r"""Converts a RandSAC pretraining checkpoint for mmseg or mmdet.

Keeps the encoder only (keys ``backbone.*``), interpolates its position
embeddings to the downstream resolution, prints what was kept, resized and
dropped (and why), and refuses checkpoints without encoder keys or with the
wrong shapes. The output loads with
``init_cfg=dict(type='Pretrained', checkpoint=OUT, prefix='backbone.')``.

    python tools/model_converters/randsac2downstream.py \
        work_dirs/randsac_vit-b_in1k/epoch_1600.pth randsac_vit-b_ade20k.pth \
        --to mmseg          # 512 px (ADE20K); --to mmdet: 1024 px (COCO)
"""
import os.path as osp

from randsac_mm.cli.args import positive_int
from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, OUTPUT_FILE
from randsac_mm.cli.run_tool import run_tool

DEFAULT_SIZE = {'mmseg': 512, 'mmdet': 1024}


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_path('src', kind=CHECKPOINT,
                    help='RandSAC pretraining checkpoint')
    parser.add_path('dst', kind=OUTPUT_FILE, help='output checkpoint')
    parser.add_argument('--to', choices=sorted(DEFAULT_SIZE), required=True,
                        help='downstream library')
    parser.add_argument('--img-size', type=positive_int,
                        help='downstream input side, pixels; None: 512 for '
                        'mmseg, 1024 for mmdet')
    parser.add_argument('--num-layers', type=positive_int, default=12,
                        help="depth of the downstream encoder (the "
                        "segmentation and detection configs' ViT-B); a "
                        'checkpoint of another depth is refused')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    # After the arguments are checked: a mistake is reported at once.


    import randsac_mm.registration  # noqa: F401  (allowlists mmengine checkpoint globals)
    from randsac_mm.checkpoint.conversion import (
        ConversionError,
        convert_for_downstream,
    )
    from randsac_mm.checkpoint.reading import read_checkpoint
    img_size = args.img_size or DEFAULT_SIZE[args.to]
    _, state = read_checkpoint(args.src, 'src')
    try:
        converted, report = convert_for_downstream(state, img_size,
                                                   num_layers=args.num_layers)
    except ConversionError as e:
        raise UserError(f'src {args.src!r}: {e}')
    for key, what in report:
        print(f'{key:60s} {what}')
    kept = sum(1 for _, w in report if not w.startswith('dropped'))
    print(f'{kept} encoder tensors for {args.to} at {img_size} px, '
          f'{len(report) - kept} dropped')
    from randsac_mm.checkpoint import save_atomic
    save_atomic({'state_dict': converted,
                 'meta': dict(converted_from=osp.abspath(args.src),
                              target=args.to, img_size=img_size)}, args.dst)
    print(f'written {args.dst}')


if __name__ == '__main__':
    run_tool(main)
