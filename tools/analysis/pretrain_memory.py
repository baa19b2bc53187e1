r"""GPU memory of pretraining configs, measured on the CPU (no GPU needed).

For each config: the activations its forward pass saves for backward, per
image and fixed, measured under the config's precision on a GPU (bf16
autocast for the pretraining configs) with CUDA's attention kernel; the
weights, AdamW state and DDP gradient buckets (or FSDP shards); the peak of
one GPU at the config's batch and the largest batch that fits ``--gpu-mem``.
For a downstream config (segmentation, detection), the backbone's
activations for one image, windowed and global.

    python tools/analysis/pretrain_memory.py configs/randsac_vit-b_in1k.py
    python tools/analysis/pretrain_memory.py configs/pretrain/*in1k.py \
        configs/pretrain/*in100.py --gpu-mem 80 --out memory.json
    python tools/analysis/pretrain_memory.py configs/randsac_vit-b_in1k.py \
        --gpu-mem 40 --cfg-options model.backbone.with_cp=True \
        model.neck.with_cp=True
    python tools/analysis/pretrain_memory.py \
        configs/detection/mask-rcnn_randsac-vit-b_fpn_coco.py

The estimate is checked against the measured peak of a whole step on the
CPU (tests/analysis/test_memory.py).
"""
from randsac_mm.cli.args import add_cfg_options, positive_float, positive_int
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CONFIG, OUTPUT_FILE
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.run.config_kinds import require_kind

GiB = 2**30


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_path('configs', kind=CONFIG, nargs='+',
                    help='pretraining configs (RandSAC, MAE), or '
                    'segmentation or detection configs')
    parser.add_argument('--gpu-mem', type=positive_float, default=80.0,
                        help='memory of one GPU in GiB')
    parser.add_argument('--gpus', type=positive_int, default=8,
                        help="data-parallel GPUs (the configs' 8xbN)")
    parser.add_argument('--batch', type=positive_int, default=None,
                        help="images per GPU; None: each config's")
    parser.add_path('--out', kind=OUTPUT_FILE,
                    help='JSON file to write; None: not written')
    add_cfg_options(parser, 'config overrides, e.g. model.backbone.with_cp='
                    'True model.neck.with_cp=True; None: none')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def check_configs(args):
    """Every config is one this tool measures (checked before any is):
    a pretraining config's step, or a downstream backbone; its model
    builds (a key no class takes is one line naming it).

    Returns:
        dict: {path: its config, the --cfg-options applied}.
    """
    import torch

    from randsac_mm.cli.config_file import apply_cfg_options, read_config
    from randsac_mm.run.builds import check_model_builds
    configs = {}
    for path in args.configs:
        cfg = configs[path] = read_config(path, 'configs')
        if args.cfg_options:
            apply_cfg_options(cfg, args.cfg_options)
        kind = require_kind(cfg, ('pretraining', 'segmentation',
                                  'detection'), 'configs', path)
        if kind == 'pretraining':
            # Its keys; its weights are never made (the estimate's are fake).
            with torch.device('meta'):
                check_model_builds(cfg)
        else:
            import randsac_mm.downstream  # noqa: F401  (registers)
            check_model_builds(cfg)
    return configs


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    configs = check_configs(args)
    from randsac_mm.analysis.memory import memory_report
    gpus = f"{args.gpus} GPU{'s' if args.gpus > 1 else ''}"
    print(f'GPU memory per GPU ({gpus}, {args.gpu_mem:g} GiB each), '
          'measured on the CPU:', flush=True)
    rows = []
    for path, cfg in configs.items():  # each line as it is measured
        rows.append(memory_report(cfg, path, gpus=args.gpus,
                                  gpu_mem_gib=args.gpu_mem,
                                  batch_size=args.batch))
        print(rows[-1]['line'], flush=True)
    if args.out:
        from randsac_mm.checkpoint import write_json
        write_json(args.out, dict(gpus=args.gpus, gpu_mem_gib=args.gpu_mem,
                                  configs=rows))
        print(f'wrote {args.out}')


if __name__ == '__main__':
    run_tool(main)
