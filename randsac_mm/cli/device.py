"""The device a run trains on, chosen, never guessed.

A GPU node whose CUDA does not start (a driver older than the CUDA torch
was built for, no driver, no visible GPU) looks to torch exactly like a CPU
machine: ``torch.cuda.is_available()`` is False. Left to that test, a
1600-epoch job would train on the node's CPUs without a word. So the tools
train on the CPU only when asked (``--device cpu``: the test suite, the
demo, the small-scale study), and otherwise stop before building anything,
naming torch's CUDA, the driver and what to do.

Call :func:`use_device` before anything initialises CUDA: it hides the GPUs
for 'cpu' (``CUDA_VISIBLE_DEVICES=''``), so mmengine places the model and
the data on the CPU even on a GPU node.
"""
import os
import shutil
import subprocess
import sys
import warnings

__all__ = ['DEVICES', 'NoUsableCuda', 'cuda_report', 'driver_version',
           'use_device', 'use_device_or_exit']

DEVICES = ('cuda', 'cpu')
# The oldest Linux driver each CUDA major version runs on (NVIDIA's CUDA
# compatibility tables; 12.x and 13.x with minor-version compatibility).
MIN_DRIVER = {11: '450.80.02', 12: '525.60.13', 13: '580.65.06'}


class NoUsableCuda(RuntimeError):
    """CUDA was asked for (the default) and this process cannot use it."""


def driver_version():
    """The NVIDIA driver's version as ``nvidia-smi`` reports it, or a
    sentence saying why there is none."""
    if shutil.which('nvidia-smi') is None:
        return 'nvidia-smi not found (no NVIDIA driver on this machine?)'
    try:
        proc = subprocess.run(
            ['nvidia-smi', '--query-gpu=driver_version',
             '--format=csv,noheader'], capture_output=True, text=True,
            timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f'nvidia-smi did not answer ({e})'
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    if proc.returncode or not lines:
        return 'nvidia-smi failed: ' + (lines[0] if lines else
                                        f'exit code {proc.returncode}')
    return lines[0].strip()


def cuda_report(local_rank=0):
    """Why this process cannot use a CUDA GPU, or None when it can.

    Args:
        local_rank (int): the GPU index the process takes (torchrun's
            ``LOCAL_RANK``): there must be more GPUs than that.

    Returns:
        str | None: a message naming torch's CUDA build, the driver, what
        torch said and what to do.
    """
    import torch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        available = torch.cuda.is_available()
        count = torch.cuda.device_count() if available else 0
    if available and count > local_rank:
        return None
    built = torch.version.cuda
    if built is None:
        problem = f'torch {torch.__version__} is a CPU-only build'
        fix = 'install a CUDA build of torch'
    else:
        major = int(built.split('.')[0])
        need = MIN_DRIVER.get(major)
        problem = (f'torch {torch.__version__} was built for CUDA {built}'
                   + (f' (needs an NVIDIA driver >= {need})' if need else ''))
        fix = ('update the driver, or install a torch build for the CUDA '
               'version your driver supports')
    if available:
        seen = (f'this process is local rank {local_rank}, and only {count} '
                'GPU(s) are visible (CUDA_VISIBLE_DEVICES='
                f'{os.environ.get("CUDA_VISIBLE_DEVICES", "<unset>")!r})')
        fix = 'start at most one process per visible GPU'
    else:
        said = '; '.join(str(w.message).strip().splitlines()[0]
                         for w in caught if str(w.message).strip())
        seen = 'torch.cuda.is_available() is False' + (
            f' (torch: {said})' if said else '')
    return (f'no usable CUDA GPU: {seen}; {problem}; NVIDIA driver: '
            f'{driver_version()}. To fix: {fix}. To train on the CPU on '
            'purpose (tests, the demo), pass --device cpu.')


def use_device(device, local_rank=None):
    """Makes ``device`` the one this process runs on.

    Args:
        device (str): 'cuda' (checks that this process has a usable GPU) or
            'cpu' (hides every GPU from this process, so mmengine's Runner
            places the model and data on the CPU).
        local_rank (int | None): the GPU index of this process (default:
            the ``LOCAL_RANK`` torchrun sets, else 0).

    Raises:
        ValueError: ``device`` is not one of ``DEVICES``.
        NoUsableCuda: 'cuda' and no GPU this process can use.
        RuntimeError: 'cpu' after torch looked for GPUs in this process
            (they can no longer be hidden).
    """
    if device not in DEVICES:
        raise ValueError(f'device must be one of {DEVICES}, got {device!r}')
    if local_rank is None:
        local_rank = int(os.environ.get('LOCAL_RANK', 0))
    if device == 'cpu':
        import torch
        os.environ['CUDA_VISIBLE_DEVICES'] = ''
        # torch reads the variable once, at its first CUDA query: a query
        # made before this call (CUDA initialised among them) would still
        # see the GPUs.
        if torch.cuda.is_available():
            raise RuntimeError("use_device('cpu'): torch counted the GPUs "
                               'before this call; call it first')
        return
    report = cuda_report(local_rank)
    if report is not None:
        raise NoUsableCuda(report)


def use_device_or_exit(device, prog, local_rank=None):
    """:func:`use_device` for a command line: a CUDA problem is reported as
    ``<prog>: error: <why>`` on stderr with exit code 2, no traceback."""
    try:
        use_device(device, local_rank)
    except NoUsableCuda as e:
        sys.stderr.write(f'{prog}: error: {e}\n')
        raise SystemExit(2)


def main(argv=None):
    """``python -m randsac_mm.cli.device --gpus N [--prog NAME]``: exits 2
    with the report when this machine cannot give N processes a GPU each
    (what tools/dist_train.sh and dist_test.sh check before torchrun starts
    them)."""
    import argparse
    parser = argparse.ArgumentParser(
        description='Checks that N processes can each have a CUDA GPU on '
        'this machine.')
    parser.add_argument('--gpus', type=int, required=True,
                        help='processes, one GPU each')
    parser.add_argument('--prog', default='randsac_mm.cli.device',
                        help='the name the error starts with (default: '
                        '%(default)s)')
    args = parser.parse_args(argv)
    # The last process's GPU index: all GPUs before it are there too.
    use_device_or_exit('cuda', args.prog, local_rank=args.gpus - 1)


if __name__ == '__main__':
    main()
