"""mmcv's compiled ops on a GPU against the CPU, on the same inputs: the
check that an mmcv built without a GPU (``make node-mmcv``, ``FORCE_CUDA=1
make install-downstream``; docs/install.md) holds CUDA kernels that compute
what its CPU kernels do. From the repository root:

    python -m experiments.benchmarks.mmcv_cuda_ops --out DIR
    python -m experiments.benchmarks.mmcv_cuda_ops --out DIR --device cpu

The ops are the two Mask R-CNN cannot run without, as mmdet calls them:

- RoIAlign (``mmcv.ops.roi_align``, ``aligned=True``): 7x7 bins at stride 4
  of FPN-like features, with mmdet's adaptive sampling (``sampling_ratio``
  0) and with 2 samples a bin; the output and the gradient of the features;
- NMS (``mmcv.ops.nms``): the boxes kept, in order, at IoU 0.5, from
  boxes in clusters as a detector's proposals are.

``--device cpu`` runs the CPU against itself (the test suite: the path and
the record, no GPU). Writes ``mmcv_cuda_ops.json`` (each op's largest
difference, its tolerance and the median milliseconds a call on each
device) and prints a line an op; exit code 1 when one differs beyond its
tolerance.
"""
import argparse
import os.path as osp
import statistics
import sys
import time

from randsac_mm.cli.args import HelpFormatter
from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.run_tool import run_tool

from ..benchmark_io import code_commit, machine_info, write_json

PROG = 'python -m experiments.benchmarks.mmcv_cuda_ops'
# Largest absolute difference allowed, against values of order 1: the CUDA
# kernels sum bilinear samples in another order, and the backward adds
# with atomics.
TOLERANCE = 1e-4
# Features of a batch of 2 at stride 4 of a 256 px image, 16 channels.
FEATURES = (2, 16, 64, 64)
STRIDE = 4
ROIS = 256
BOXES = 1000


def roi_inputs(generator):
    """features (N, C, H, W) float32, rois (ROIS, 5): image index and
    x1, y1, x2, y2 in the image's pixels, of sizes 4 to 128 px."""
    import torch
    features = torch.randn(FEATURES, generator=generator)
    side = FEATURES[-1] * STRIDE
    size = 4 + torch.rand(ROIS, 2, generator=generator) * 124
    corner = torch.rand(ROIS, 2, generator=generator) * (side - size)
    image = torch.randint(FEATURES[0], (ROIS, 1), generator=generator)
    rois = torch.cat([image.float(), corner, corner + size], dim=1)
    return features, rois


def nms_inputs(generator):
    """boxes (BOXES, 4) x1, y1, x2, y2 in 32 clusters, scores (BOXES,)
    distinct: overlapping boxes, so NMS has choices to make."""
    import torch
    centres = torch.rand(32, 2, generator=generator) * 512
    which = torch.randint(32, (BOXES,), generator=generator)
    centre = centres[which] + torch.randn(BOXES, 2, generator=generator) * 8
    half = 16 + torch.rand(BOXES, 2, generator=generator) * 32
    boxes = torch.cat([centre - half, centre + half], dim=1)
    scores = torch.randperm(BOXES, generator=generator).float() / BOXES
    return boxes, scores


def median_ms(call, device, repeats=10):
    """The median milliseconds of ``call()`` on ``device`` (synchronised),
    after one call to warm up."""
    import torch

    def sync():
        if device.startswith('cuda'):
            torch.cuda.synchronize()
    call()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def roi_align_rows(device, generator):
    """A row for each sampling ratio: the largest output and feature
    gradient differences of ``device`` against the CPU."""
    import torch
    from mmcv.ops import roi_align
    features, rois = roi_inputs(generator)
    weights = torch.randn(ROIS, FEATURES[1], 7, 7, generator=generator)
    rows = []
    for ratio in (0, 2):
        def run(on, ratio=ratio):
            x = features.to(on).requires_grad_()
            out = roi_align(x, rois.to(on), (7, 7), 1 / STRIDE, ratio,
                            'avg', True)
            (out * weights.to(on)).sum().backward()
            return out.detach().cpu(), x.grad.cpu()
        reference, other = run('cpu'), run(device)
        rows.append(dict(
            op=f'roi_align (sampling_ratio {ratio})',
            max_abs_diff=max((a - b).abs().max().item()
                             for a, b in zip(reference, other)),
            tolerance=TOLERANCE,
            ms_cpu=median_ms(lambda: run('cpu'), 'cpu'),
            ms_device=median_ms(lambda: run(device), device)))
    return rows


def nms_row(device, generator):
    """Whether NMS on ``device`` keeps the CPU's boxes, in its order."""
    from mmcv.ops import nms
    boxes, scores = nms_inputs(generator)

    def run(on):
        return nms(boxes.to(on), scores.to(on), 0.5)[1].cpu()
    reference, other = run('cpu'), run(device)
    same = reference.tolist() == other.tolist()
    return dict(op='nms (IoU 0.5)', kept_cpu=len(reference),
                kept_device=len(other), same_kept=same,
                max_abs_diff=0.0 if same else None, tolerance=0.0,
                ms_cpu=median_ms(lambda: run('cpu'), 'cpu'),
                ms_device=median_ms(lambda: run(device), device))


def passed(row):
    """Whether a row's device agrees with the CPU within its tolerance."""
    return row['max_abs_diff'] is not None and \
        row['max_abs_diff'] <= row['tolerance']


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument('--out', required=True,
                        help='folder for mmcv_cuda_ops.json (made if '
                        'missing)')
    parser.add_argument('--device', default='cuda', choices=['cuda', 'cpu'],
                        help='the device set against the CPU (cpu: the '
                        "path and the record, no GPU's kernels)")
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the inputs')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    from randsac_mm.cli.device import use_device_or_exit
    use_device_or_exit(args.device, PROG)
    import mmcv
    import torch
    generator = torch.Generator().manual_seed(args.seed)
    rows = roi_align_rows(args.device, generator) + [
        nms_row(args.device, generator)]
    for row in rows:
        print(f"{row['op']}: {args.device} against cpu, largest difference "
              f"{row['max_abs_diff']} (tolerance {row['tolerance']}), "
              f"{row['ms_device']:.2f} ms against {row['ms_cpu']:.2f} ms: "
              f"{'same' if passed(row) else 'DIFFERENT'}")
    write_json(osp.join(args.out, 'mmcv_cuda_ops.json'), dict(
        date=time.strftime('%Y-%m-%d'), command=' '.join(
            [PROG] + sys.argv[1:]), commit=code_commit(),
        environment=dict(machine_info(), mmcv=mmcv.__version__),
        device=args.device, seed=args.seed, ops=rows,
        passed=all(passed(r) for r in rows)))
    return 0 if all(passed(r) for r in rows) else 1


if __name__ == '__main__':
    sys.exit(run_tool(main, prog=PROG))
