"""What every benchmark here records: the machine it ran on, and its
results as a JSON file."""
import json
import os
import os.path as osp
import platform

__all__ = ['machine_info', 'write_json']


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
    if torch.cuda.is_available():
        info['gpu'] = torch.cuda.get_device_name()
    return info


def write_json(result, path):
    """Writes ``result`` to ``path`` (folders made as needed) and says so."""
    os.makedirs(osp.dirname(osp.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(result, f, indent=2)
    print(f'wrote {path}')
