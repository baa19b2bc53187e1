"""Images per second one dataloader worker prepares for a pretraining
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

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# This tool's code is in the checkout's experiments/ package, not in the
# installed randsac_mm (docs/architecture.md): run it from a checkout.
sys.path.insert(0, REPO_ROOT)


# bf16 dense peak of an H100 SXM, TFLOP/s (NVIDIA's datasheet).
H100_BF16_TFLOPS = 989.0


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='a pretraining config')
    parser.add_argument('--images', type=int, default=200,
                        help='JPEGs to write and time (default 200)')
    parser.add_argument('--rounds', type=int, default=3,
                        help='passes over them; the fastest counts')
    parser.add_argument('--peak-tflops', type=float,
                        default=H100_BF16_TFLOPS,
                        help='GPU peak TFLOP/s (default: H100 bf16, 989)')
    parser.add_argument('--mfu', type=float, default=0.4,
                        help='model FLOPs utilisation to feed (default 0.4)')
    parser.add_argument('--gpu-images-per-s', type=float, default=None,
                        help='images/s one GPU trains (instead of '
                        '--peak-tflops and --mfu)')
    parser.add_argument('--out', help='JSON file to write')
    args = parser.parse_args(argv)
    if not osp.isfile(args.config):
        parser.error(f'no such config: {args.config!r}')
    if args.images < 1 or args.rounds < 1:
        parser.error('--images and --rounds must be >= 1')
    if not 0 < args.mfu <= 1 or args.peak_tflops <= 0:
        parser.error('--mfu must be in (0, 1] and --peak-tflops > 0')
    return args


def main(argv=None):
    args = parse_args(argv)
    from mmengine.config import Config

    import randsac_mm.registration  # noqa: F401  (registers)
    from experiments.benchmark_io import machine_info, write_json
    from experiments.data_pipeline import pipeline_throughput, write_jpegs
    from randsac_mm.analysis.flops import forward_macs
    cfg = Config.fromfile(args.config)
    pipeline = cfg.train_dataloader.dataset.pipeline
    if not pipeline or pipeline[0]['type'] not in ('PerSampleSeed',
                                                   'LoadImageFromFile'):
        raise ValueError(f'{args.config}: its training pipeline does not '
                         'load image files (an ImageNet-style config does)')
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
    main()
