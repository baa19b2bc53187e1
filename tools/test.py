"""Evaluates a checkpoint on a config's test set and prints the metrics.

Example:
    python tools/test.py configs/demo/vit-mini-p4_1xb64-10e_digits.py \\
        work_dirs/vit-mini-p4_1xb64-10e_digits/epoch_10.pth --device cpu

As tools/train.py, it runs on CUDA GPUs, and on the CPU only with
``--device cpu``.

Before testing, the preflight (``randsac_mm.run.preflight``) builds
the config's model and test set and checks the checkpoint against the
model: a checkpoint that leaves any of the model's weights
uninitialised (a pretraining checkpoint given to a linear-probe config
would score an untrained head), holds another model's weights, or is no
checkpoint at all is refused with one line naming the keys; so is a config
without a test loop (a pretraining config). ``--dry-run`` makes only these
checks (``tools/dist_test.sh`` runs it once before starting its
processes).

The last line printed is ``Test metrics: {...}`` (JSON); the same dict is
written to ``<work_dir>/test_metrics.json``.
"""
import json
import os
import os.path as osp

# Light imports only: the device is chosen before anything (mmengine, mmcv)
# asks torch for the GPUs.
from randsac_mm.cli.device import use_device_or_exit
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import CHECKPOINT, CONFIG, OUTPUT_FILE
from randsac_mm.cli.run_flags import add_common_args, load_run_config
from randsac_mm.cli.run_tool import run_tool

PROG = 'tools/test.py'


def parse_args(argv=None):
    parser = ToolParser(prog=PROG, description=__doc__)
    parser.add_path(
        'config',
        kind=CONFIG,
        help='the config of the model to test (a classifier: linear probe, '
        'fine-tune or supervised; a segmentation or detection config)')
    parser.add_path(
        'checkpoint',
        kind=CHECKPOINT,
        help="a checkpoint of that config's model (tools/train.py's "
        'epoch_N.pth or iter_N.pth)')
    parser.add_path(
        '--out',
        kind=OUTPUT_FILE,
        suffixes=('.pkl', ),
        help='also dump the per-sample predictions to this .pkl file (its '
        'folder is created); None: no dump')
    parser.add_argument(
        '--dry-run',
        action='store_true',
        help='make the checks (config, checkpoint, the first test item, '
        'device) and stop before testing')
    add_common_args(parser)
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)  # and its paths checked: nothing imported yet
    use_device_or_exit(args.device, PROG)
    from mmengine.dist import is_main_process

    import randsac_mm.registration  # noqa: F401  (checks the stack, registers our modules)
    from randsac_mm.checkpoint import write_json
    from randsac_mm.run.distributed import start_process_group
    from randsac_mm.run.preflight import preflight
    from randsac_mm.run.runner import build_runner
    cfg = load_run_config(args)
    if not args.dry_run:  # (dist_test.sh's is one process)
        # Before the preflight: it seeds each process as the Runner will.
        start_process_group(cfg, args.launcher, args.device)
    parts = preflight(cfg, 'test', checkpoint=args.checkpoint)
    if args.dry_run:
        print(f'{PROG}: {args.config}, {args.checkpoint}: the checks passed '
              '(dry run: nothing tested)', flush=True)
        return
    cfg.load_from = args.checkpoint
    if args.out is not None:
        os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
        cfg.test_evaluator = list(cfg.test_evaluator) if isinstance(
            cfg.test_evaluator, (list, tuple)) else [cfg.test_evaluator]
        cfg.test_evaluator.append(
            dict(type='DumpResults', out_file_path=args.out))
    runner = build_runner(cfg, parts)
    metrics = runner.test()
    if is_main_process():
        metrics = {k: float(v) for k, v in metrics.items()}
        write_json(osp.join(cfg.work_dir, 'test_metrics.json'), metrics)
        print('Test metrics: ' + json.dumps(metrics), flush=True)


if __name__ == '__main__':
    run_tool(main, prog=PROG)
