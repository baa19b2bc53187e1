"""GPU memory of pretraining configs, measured on the CPU (no GPU needed).

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
import argparse
import json
import os.path as osp

from mmengine.config import DictAction

GiB = 2**30


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('configs', nargs='+', help='config files')
    parser.add_argument('--gpu-mem', type=float, default=80.0,
                        help='memory of one GPU in GiB (default 80)')
    parser.add_argument('--gpus', type=int, default=8,
                        help='data-parallel GPUs (default 8, as the '
                        "configs' 8xbN)")
    parser.add_argument('--batch', type=int, default=None,
                        help='images per GPU (default: each config\'s)')
    parser.add_argument('--out', help='JSON file to write')
    parser.add_argument('--cfg-options', nargs='+', action=DictAction,
                        help='config overrides, e.g. model.backbone.with_cp='
                        'True model.neck.with_cp=True')
    args = parser.parse_args(argv)
    for path in args.configs:
        if not osp.isfile(path):
            parser.error(f'no such config: {path!r}')
    if args.gpu_mem <= 0 or args.gpus < 1 or (args.batch is not None
                                              and args.batch < 1):
        parser.error('--gpu-mem must be > 0, --gpus and --batch >= 1')
    return args


def main(argv=None):
    args = parse_args(argv)
    from randsac_mm.analysis.memory import memory_report
    rows = [memory_report(path, gpus=args.gpus, gpu_mem_gib=args.gpu_mem,
                          batch_size=args.batch, cfg_options=args.cfg_options)
            for path in args.configs]
    print(f'GPU memory per GPU ({args.gpus} GPUs, {args.gpu_mem:g} GiB '
          'each), measured on the CPU:')
    for row in rows:
        print(row['line'])
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(dict(gpus=args.gpus, gpu_mem_gib=args.gpu_mem,
                           configs=rows), f, indent=2)
        print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
