r"""Images per second one dataloader worker prepares for a pretraining
config, and how many workers a GPU needs.

The config's training pipeline runs, step by step, in one process with one
thread (what a worker does), over JPEG photographs of ImageNet's typical
sizes written to a temporary folder (``experiments.data_pipeline``).
A GPU's appetite comes from the config's FLOPs: ``--mfu`` of
``--peak-tflops`` over 3 x 2 x the forward multiply-accumulates of an image
(tools/analysis/get_flops.py), or ``--gpu-images-per-s`` directly.

    python tools/benchmarks/data_pipeline.py configs/randsac_vit-b_in1k.py \
        [--images 200] [--peak-tflops 989 --mfu 0.4] [--out data.json]
"""
import argparse
import math
import os.path as osp
import sys
import tempfile

from randsac_mm.apis.cli import (
    HelpFormatter,
    UserError,
    add_debug_arg,
    existing_file,
    positive_float,
    positive_int,
    require_kind,
    run_tool,
)

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)


# bf16 dense peak of an H100 SXM, TFLOP/s (NVIDIA's datasheet).
H100_BF16_TFLOPS = 989.0



def fraction(text):
    """argparse ``type`` of a share: a float in (0, 1]."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f'must be in (0, 1], got {text}')
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('config', type=existing_file,
                        help='a RandSAC pretraining config whose '
                        'training pipeline loads image files (ImageNet-style'
                        ', e.g. configs/randsac_vit-b_in1k.py)')
    parser.add_argument('--images', type=positive_int, default=200,
                        help='JPEGs to write and time')
    parser.add_argument('--rounds', type=positive_int, default=3,
                        help='passes over them; the fastest counts')
    parser.add_argument('--peak-tflops', type=positive_float,
                        default=H100_BF16_TFLOPS,
                        help='GPU peak TFLOP/s (the default: H100 bf16)')
    parser.add_argument('--mfu', type=fraction, default=0.4,
                        help='model FLOPs utilisation to feed, in (0, 1]')
    parser.add_argument('--gpu-images-per-s', type=positive_float,
                        default=None,
                        help='images/s one GPU trains, instead of '
                        '--peak-tflops and --mfu; None: from them')
    parser.add_argument('--out', help='JSON file to write; None: not '
                        'written')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def check_config(path):
    """The config, if this tool can time it (UserError naming it if not):
    a RandSAC pretraining config (its FLOPs need the segment layout) whose
    training pipeline loads image files."""
    from mmengine.config import Config

    from experiments.data_pipeline import check_loads_files
    from randsac_mm.datasets import RandSACSegmentGenerator
    cfg = Config.fromfile(path)
    name = osp.basename(path)
    require_kind(cfg, ('pretraining', ), 'config', path)
    try:
        RandSACSegmentGenerator.from_config(cfg)
        check_loads_files(cfg.train_dataloader.dataset.get('pipeline'))
    except ValueError as e:
        raise UserError(f'config: {name}: {e}')
    return cfg


def main(argv=None):
    args = parse_args(argv)
    import randsac_mm.registration  # noqa: F401  (registers)
    from experiments.benchmark_io import machine_info, write_json
    from experiments.data_pipeline import pipeline_throughput, write_jpegs
    from randsac_mm.analysis.flops import forward_macs
    cfg = check_config(args.config)
    pipeline = cfg.train_dataloader.dataset.pipeline
    with tempfile.TemporaryDirectory() as folder:
        paths = write_jpegs(folder, args.images)
        result = pipeline_throughput(pipeline, paths, args.rounds)
    macs = forward_macs(cfg)
    need = args.gpu_images_per_s or \
        args.mfu * args.peak_tflops * 1e12 / (6 * macs)
    workers = math.ceil(need / result['images_per_s'])
    result.update(config=args.config, images=args.images,
                  forward_gmacs=macs / 1e9, gpu_images_per_s=need,
                  workers_per_gpu=workers,
                  config_workers=cfg.train_dataloader.num_workers,
                  machine=machine_info())
    print(f'{args.config}: one worker, {result["ms_per_image"]:.2f} ms per '
          f'image = {result["images_per_s"]:.0f} images/s')
    for step, ms in result['steps'].items():
        print(f'  {step:26s} {ms:6.2f} ms')
    source = f'{args.gpu_images_per_s:.0f} images/s given' \
        if args.gpu_images_per_s else (
            f'{args.mfu:.0%} of {args.peak_tflops:g} TFLOP/s at '
            f'{6 * macs / 1e9:.0f} GFLOP per image')
    print(f'a GPU training {need:.0f} images/s ({source}) needs {workers} '
          f'workers; the config has num_workers='
          f'{cfg.train_dataloader.num_workers}')
    if args.out:
        write_json(result, args.out)


if __name__ == '__main__':
    run_tool(main)
