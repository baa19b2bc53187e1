"""Evaluates a checkpoint on a config's test set and prints the metrics.

Example:
    python tools/test.py configs/demo/vit-mini-p4_1xb64-10e_digits.py \
        work_dirs/vit-mini-p4_1xb64-10e_digits/epoch_10.pth --device cpu

As tools/train.py, it runs on CUDA GPUs, and on the CPU only with
``--device cpu``.

The last line printed is ``Test metrics: {...}`` (JSON); the same dict is
written to ``<work_dir>/test_metrics.json``.
"""
import argparse
import json
import os
import os.path as osp

# Light imports only: the device is chosen before anything (mmengine, mmcv)
# asks torch for the GPUs.
from randsac_mm.apis.config import add_common_args, load_run_config
from randsac_mm.apis.device import use_device_or_exit


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Evaluate a checkpoint with a config\'s test_dataloader '
        'and test_evaluator.')
    parser.add_argument('config', help='path of the config file')
    parser.add_argument('checkpoint', help='checkpoint file to evaluate')
    parser.add_argument(
        '--out',
        help='also dump the per-sample predictions to this .pkl file')
    add_common_args(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    use_device_or_exit(args.device, 'tools/test.py')
    from mmengine.dist import is_main_process
    from mmengine.runner import Runner

    import randsac_mm.registration  # noqa: F401  (checks the stack, registers our modules)
    from randsac_mm.apis.distributed import prepare_cpu_distributed
    if not osp.isfile(args.checkpoint):
        raise FileNotFoundError(
            f'checkpoint: no such file {args.checkpoint!r}')
    cfg = load_run_config(args)
    cfg.load_from = args.checkpoint
    if args.out is not None:
        if not args.out.endswith('.pkl'):
            raise ValueError(f'--out must end with .pkl, got {args.out!r}')
        cfg.test_evaluator = list(cfg.test_evaluator) if isinstance(
            cfg.test_evaluator, (list, tuple)) else [cfg.test_evaluator]
        cfg.test_evaluator.append(
            dict(type='DumpResults', out_file_path=args.out))
    if args.device == 'cpu':
        prepare_cpu_distributed(cfg, args.launcher)
    runner = Runner.from_cfg(cfg)
    metrics = runner.test()
    if is_main_process():
        metrics = {k: float(v) for k, v in metrics.items()}
        os.makedirs(cfg.work_dir, exist_ok=True)
        with open(osp.join(cfg.work_dir, 'test_metrics.json'), 'w') as f:
            json.dump(metrics, f, indent=2)
        print('Test metrics: ' + json.dumps(metrics), flush=True)


if __name__ == '__main__':
    main()
