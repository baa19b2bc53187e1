r"""Where one training step's time goes: the step timed, then a few steps
under ``torch.profiler``, the top kernels and their share. From the
repository root:

    python -m experiments.benchmarks.step_profile [--setting vit-b-in1k] \
        [--batch-size 512] [--modes eager compiled] [--steps 20] \
        [--warmup 5] [--profile-steps 3] [--top 15] \
        [--attention sdpa explicit flex] --out work_dirs/step_profile

On an H100: ``--batch-size 512 --modes eager compiled``; the attention
kernels against each other: ``--modes compiled --attention sdpa explicit
flex``.

The step is the one ``tools/train.py`` runs: ``model.train_step`` with the
setting's pretraining config's model, data preprocessor and optimizer
wrapper (bf16 autocast on CUDA, its parameter groups, fused AdamW), on
random uint8 images and the config's layouts (``throughput.layouts``), so
no data loader stands between the figures and the model. The mode
``compiled`` compiles the loss as ``tools/train.py --compile`` does
(``compile_loss``). ``--attention`` runs each mode with each named kernel
(``randsac_mm.models.attention``) in place of the config's own; each
(mode, kernel) pair is one entry, named ``mode (kernel)``.

Writes ``step_profile.json`` and ``step_profile.md`` in ``--out`` after
each mode (so a run stopped while compiling keeps the eager figures), for
each mode: the
first step's seconds (compilation, with ``--compile``), the median of
``--steps`` timed steps (ms/step, images/s, TFLOP/s and MFU against
``--peak-tflops`` or the GPU's known peak), and the profiled steps' top
``--top`` entries by self time on the device (CUDA kernels on a GPU, aten
operators on a CPU): calls and milliseconds per step and their share of
the device's busy time, with that busy time's share of the wall time (the
rest is the device waiting on the host); on a GPU also the operators
ranked by the time of the kernels they launched.
"""
import argparse
import os.path as osp
import statistics
import time

from randsac_mm.cli.args import (
    HelpFormatter,
    non_negative_int,
    positive_float,
    positive_int,
)
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from ..benchmark_io import code_commit, machine_info, write_json
from .gpu_acceptance import peak_tflops
from .throughput import SETTINGS, forward_macs, image_size, layouts

PROG = 'python -m experiments.benchmarks.step_profile'


def build_step(setting, batch_size, device, compiled, attention=None):
    """``step(i)``: the i-th training step of ``setting`` at ``batch_size``
    on ``device`` (the config's model and optimizer wrapper, a pool of the
    config's layouts cycled through); returns the loss. ``attention``: a
    kernel's name in place of the config's (None: the config's)."""
    import torch
    from mmengine.optim import build_optim_wrapper

    from randsac_mm.apis import build_model
    from randsac_mm.engine.hooks.compile_loss_hook import compile_loss

    from .throughput import setting_config
    cfg = setting_config(setting)
    if attention is not None:
        cfg.model.attention = attention
    model = build_model(cfg, None, seed=0).to(device)
    model.train()
    if compiled:
        compile_loss(model)
    optim = build_optim_wrapper(model, cfg.optim_wrapper)
    generator = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (batch_size, 3, *image_size(setting)),
                           dtype=torch.uint8, generator=generator)
    if device == 'cuda':
        images = images.pin_memory()
    batches = [dict(inputs=images, data_samples=samples)
               for samples in layouts(setting, batch_size)]

    def step(i):
        return model.train_step(batches[i % len(batches)], optim)['loss']
    return step


def profile_rows(prof, device, steps, top):
    """The top ``top`` entries by self time on the device, per step, and the
    device's busy milliseconds per step.

    On a GPU, ``key_averages()`` holds the kernels (events on the device)
    and the operators that launched them (events on the CPU, whose self
    device time is their kernels' time again): busy time and the kernel
    rows count the kernels alone, and the operators are ranked apart by
    their kernels' time (``operators``). On a CPU, the operators' self CPU
    time, with no ``operators`` rows.

    Returns:
        (rows, busy, operators): lists of dict(name, calls, ms, share) and
        the busy milliseconds per step that ``share`` divides.
    """
    from torch.autograd import DeviceType
    events = prof.key_averages()
    if device == 'cuda':
        key = 'self_device_time_total'
        # record_function ranges show on the device's track too, as
        # annotations spanning kernels: not kernels themselves.
        kernels = [e for e in events if e.device_type != DeviceType.CPU
                   and not e.is_user_annotation]
        launchers = [e for e in events if e.device_type == DeviceType.CPU]
    else:
        key, kernels, launchers = 'self_cpu_time_total', list(events), []
    busy = sum(getattr(e, key) for e in kernels) / 1e3 / steps

    def ranked(entries):
        entries = sorted(entries, key=lambda e: getattr(e, key), reverse=True)
        return [dict(name=e.key, calls=e.count / steps,
                     ms=getattr(e, key) / 1e3 / steps,
                     share=getattr(e, key) / 1e3 / steps / busy if busy else 0)
                for e in entries[:top] if getattr(e, key) > 0]
    return ranked(kernels), busy, ranked(launchers)


def entry_name(compiled, attention):
    """An entry's name: its mode, and its kernel where one was named."""
    mode = 'compiled' if compiled else 'eager'
    return mode if attention is None else f'{mode} ({attention})'


def profile_mode(args, compiled, attention=None):
    """One mode's figures (``compiled``: the loss compiled; ``attention``:
    a kernel's name, None: the config's)."""
    import torch
    device = args.device
    batch = args.batch_size or SETTINGS[args.setting][1]
    step = build_step(args.setting, batch, device, compiled, attention)

    def sync():
        if device == 'cuda':
            torch.cuda.synchronize()

    start = time.perf_counter()
    step(0)
    sync()
    first = time.perf_counter() - start
    name = entry_name(compiled, attention)
    print(f'[step_profile] {name}: first step {first:.1f} s', flush=True)
    for i in range(1, args.warmup):
        step(i)
    sync()
    if device == 'cuda':
        torch.cuda.reset_peak_memory_stats()
    times = []
    for i in range(args.steps):
        start = time.perf_counter()
        step(args.warmup + i)
        sync()
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device == 'cuda':
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        start = time.perf_counter()
        for i in range(args.profile_steps):
            loss = step(args.warmup + args.steps + i)
        sync()
        wall = (time.perf_counter() - start) / args.profile_steps * 1e3
    rows, busy, operators = profile_rows(prof, device, args.profile_steps,
                                         args.top)
    tflops = batch / seconds * args.flops_per_image / 1e12
    print(f'[step_profile] {name}: {seconds * 1e3:.1f} ms/step', flush=True)
    return dict(
        first_step_s=first, ms_per_step=seconds * 1e3,
        images_per_s=batch / seconds, tflops=tflops,
        mfu=tflops / args.peak if args.peak else None,
        peak_allocated_gib=(torch.cuda.max_memory_allocated() / 2**30
                            if device == 'cuda' else None),
        attention=attention, loss=float(loss.detach()),
        profiled_ms_per_step=wall,
        device_busy_ms_per_step=busy, device_busy_share=busy / wall,
        top=rows, top_operators=operators)


def profile_main(argv=None):
    from mmengine.registry import init_default_scope

    import randsac_mm.registration  # noqa: F401
    args = parse_args(argv)
    init_default_scope('mmpretrain')
    env = machine_info()
    args.peak = peak_tflops(args, env)
    args.flops_per_image = forward_macs(args.setting) * 2 * 3
    result = dict(
        setting=args.setting, config=SETTINGS[args.setting][0],
        batch_size=args.batch_size or SETTINGS[args.setting][1],
        device=args.device, threads=args.threads, steps=args.steps,
        warmup=args.warmup, profiled_steps=args.profile_steps,
        modes_run=args.modes,
        attention=[a for a in args.attention if a is not None],
        flops_per_image=args.flops_per_image, peak_tflops=args.peak,
        machine=env, commit=code_commit(), modes={})
    for mode in args.modes:
        for attention in args.attention:
            name = entry_name(mode == 'compiled', attention)
            result['modes'][name] = profile_mode(args, mode == 'compiled',
                                                 attention)
            write_json(osp.join(args.out, 'step_profile.json'), result)
            text = markdown(result)
            with open(osp.join(args.out, 'step_profile.md'), 'w') as f:
                f.write(text)
    print(text)


def markdown(result):
    """The result as step_profile.md: one section per mode."""
    r = result
    what = 'CUDA kernels' if r['device'] == 'cuda' else 'aten operators'
    kernels = ' --attention ' + ' '.join(r['attention']) \
        if r.get('attention') else ''
    # Records made before the threads were kept give none.
    threads = f" --threads {r['threads']}" if r.get('threads') else ''
    lines = [
        f"# One training step of `{r['config']}`", '',
        f"Batch {r['batch_size']} on {r['machine'].get('gpu') or 'the CPU'}"
        f" ({r['device']}); code {r['commit']}. Command: `{PROG} --setting "
        f"{r['setting']} --batch-size {r['batch_size']} --device "
        f"{r['device']}{threads} --steps {r['steps']} --warmup "
        f"{r['warmup']} --profile-steps {r['profiled_steps']} --modes "
        f"{' '.join(r['modes_run'])}{kernels}`. Median of {r['steps']} "
        f"steps after {r['warmup']}; {r['profiled_steps']} profiled.", '']
    for mode, m in r['modes'].items():
        mfu = f"{m['mfu']:.1%}" if m['mfu'] is not None else '-'
        lines += [
            f'## {mode}', '',
            f"First step {m['first_step_s']:.1f} s; {m['ms_per_step']:.1f} "
            f"ms a step ({m['images_per_s']:.0f} images/s, "
            f"{m['tflops']:.1f} TFLOP/s, MFU {mfu}). Profiled: "
            f"{m['profiled_ms_per_step']:.1f} ms a step, the device busy "
            f"{m['device_busy_ms_per_step']:.1f} ms of it "
            f"({m['device_busy_share']:.0%}).", '',
            f'Top {what} by self time on the device, per step:', '']
        lines += table(m['top'])
        if m.get('top_operators'):
            lines += ['Top operators by the time of the kernels they '
                      'launched, per step:', '']
            lines += table(m['top_operators'])
    return '\n'.join(lines)


def table(rows):
    """Markdown lines of ``rows`` (dict(name, calls, ms, share)), then a
    blank line."""
    lines = ['| name | calls | ms | share of busy |',
             '| --- | ---: | ---: | ---: |']
    for row in rows:
        name = row['name'].replace('|', '\\|')
        if len(name) > 90:
            name = name[:87] + '...'
        lines.append(f"| `{name}` | {row['calls']:.0f} | "
                     f"{row['ms']:.2f} | {row['share']:.1%} |")
    return lines + ['']


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--setting', choices=tuple(SETTINGS),
                        default='vit-b-in1k',
                        help='the pretraining config stepped')
    parser.add_argument('--batch-size', type=positive_int, default=None,
                        help="images per step; None: the setting's CPU "
                        'batch (use 512 on a GPU: the config\'s)')
    parser.add_argument('--device', choices=('cpu', 'cuda'), default=None,
                        help='None: cuda where there is one, else cpu')
    parser.add_argument('--modes', nargs='+', choices=('eager', 'compiled'),
                        default=['eager'],
                        help='in order; compiled: the loss compiled as '
                        'tools/train.py --compile does')
    parser.add_argument('--attention', nargs='+', default=None,
                        metavar='KERNEL',
                        help='attention kernels (a registered name: '
                        "explicit, flex, sdpa, or one of a user's), each "
                        "run in every mode in place of the config's own; "
                        "None: the config's")
    parser.add_argument('--steps', type=positive_int, default=20,
                        help='timed steps (the median counts)')
    parser.add_argument('--warmup', type=positive_int, default=5,
                        help='untimed steps first (the first is timed '
                        'alone: compilation)')
    parser.add_argument('--profile-steps', type=positive_int, default=3,
                        help='steps under torch.profiler')
    parser.add_argument('--top', type=positive_int, default=15,
                        help='entries in the table')
    parser.add_argument('--peak-tflops', type=positive_float, default=None,
                        help="the device's peak TFLOP/s for MFU; None: "
                        "known from the GPU's name, else no MFU")
    parser.add_argument('--threads', type=non_negative_int, default=0,
                        help='CPU threads (torch.set_num_threads); 0: '
                        "torch's default")
    parser.add_argument('--out', required=True,
                        help='folder for step_profile.json and .md (made '
                        'if missing)')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    import torch

    from randsac_mm.models.attention import ATTENTION_KERNELS
    for name in args.attention or ():
        if name not in ATTENTION_KERNELS:
            parser.error(f'argument --attention: {name!r} is no registered '
                         f'kernel; choose from {sorted(ATTENTION_KERNELS)}')
    if args.attention and len(set(args.attention)) < len(args.attention):
        parser.error(f'argument --attention: each kernel once, got '
                     f'{args.attention}')
    args.attention = args.attention or [None]
    if args.device is None:
        args.device = 'cuda' if torch.cuda.is_available() else 'cpu'
    if args.device == 'cuda' and not torch.cuda.is_available():
        parser.error('--device cuda: this torch sees no CUDA device')
    if args.threads:
        torch.set_num_threads(args.threads)
    return args


def main(argv=None):
    return run_tool(profile_main, argv, prog=PROG)


if __name__ == '__main__':
    raise SystemExit(main())
