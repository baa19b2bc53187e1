"""What every benchmark here records: the machine it ran on, the commit of
the code, and its results as a JSON file."""
import os
import platform
import re
import subprocess

from randsac_mm.cli.errors import UserError

from . import REPO_ROOT

__all__ = ['COMMIT_VARIABLE', 'code_commit', 'cpu_precision_setting',
           'machine_info', 'write_json']

# Names the commit of a copy of the tree that has no git (an offline GPU
# node's copy): the sender sets it (tools/misc/gpu_window.sh).
COMMIT_VARIABLE = 'RANDSAC_COMMIT'
COMMIT = re.compile(r'[0-9a-f]{7,40}(\+dirty)?')


def machine_info():
    """Python and torch versions, threads, CPU model and count, GPU."""
    import torch
    info = dict(python=platform.python_version(), torch=torch.__version__,
                threads=torch.get_num_threads(), cpu=platform.processor())
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    info['cpu'] = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    info['cpu_count'] = os.cpu_count()
    from randsac_mm.precision import cpu_bf16_instructions
    info['cpu_bf16'] = cpu_bf16_instructions()
    if torch.cuda.is_available():
        info['gpu'] = torch.cuda.get_device_name()
    return info


def cpu_precision_setting():
    """What a CPU run's record adds for its precision: nothing in float32
    (the records made before bf16 on CPUs match), else ``precision``
    (e.g. 'bfloat16'), so that runs of two precisions are never taken for
    one another. The configs' precision='auto' on this CPU, or
    ``RANDSAC_CPU_PRECISION``'s (randsac_mm.precision)."""
    from randsac_mm.precision import resolve_precision
    name = resolve_precision('auto', 'cpu').name
    return {} if name == 'float32' else dict(precision=name)


def code_commit():
    """The commit of the code that runs: git's short hash, '+dirty' when a
    file differs from it or is not in it. In a copy of the tree without
    git, the hash in the environment variable ``RANDSAC_COMMIT``; None when
    neither says.

    Raises:
        UserError: ``RANDSAC_COMMIT`` is no hash, or git names another
            commit (the variable would record the wrong code).
    """
    given = os.environ.get(COMMIT_VARIABLE)
    if given is not None and not COMMIT.fullmatch(given):
        raise UserError(f'{COMMIT_VARIABLE}={given!r}: expected a commit '
                        'hash of 7 to 40 hex digits, optionally followed by '
                        "'+dirty'")

    def git(*args):
        try:
            proc = subprocess.run(['git', *args], cwd=REPO_ROOT, text=True,
                                  capture_output=True)
        except OSError:  # no git program here
            return None
        return proc.stdout.strip() if proc.returncode == 0 else None

    head = git('rev-parse', '--short', 'HEAD')
    if head is None:
        return given
    # Untracked files count: they travel with a copy of the tree.
    found = head + ('+dirty' if git('status', '--porcelain') else '')
    given_hash = given and given.split('+')[0]
    if given is not None and not (given_hash.startswith(head) or
                                  head.startswith(given_hash)):
        raise UserError(f'{COMMIT_VARIABLE}={given}, but git says the code '
                        f'is at {found}: unset {COMMIT_VARIABLE} in a '
                        'checkout with git')
    return found


def write_json(path, result):
    """Writes ``result`` to ``path`` as the tools write JSON (atomically,
    folders made: ``randsac_mm.checkpoint.write_json``) and says so."""
    from randsac_mm.checkpoint import write_json as write_atomically
    write_atomically(path, result)
    print(f'wrote {path}')
