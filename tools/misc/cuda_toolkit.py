"""Find the CUDA toolkit that compiles mmcv's CUDA ops for the installed
torch, and check a built ``mmcv._ext`` for its CUDA kernels.

torch's extension builder compiles with the toolkit under ``CUDA_HOME``,
and refuses one whose major version differs from ``torch.version.cuda``.
Where a toolkit is looked for, in this order:

1. ``CUDA_HOME``, when set: used if its nvcc has torch's major version
   and it holds the CUDA library headers torch's own headers include
   (:data:`LIBRARY_HEADERS`), refused otherwise (it was asked for);
2. the nvcc on ``PATH`` (a system CUDA): used if its major version is
   torch's and it holds those headers, passed over with a note otherwise
   (an install of nvcc alone lacks them);
3. pip's toolkit wheels beside torch's CUDA libraries
   (``site-packages/nvidia/cu<major>``: ``cuda-toolkit[nvcc,cccl,crt]`` of
   the version torch installed). With ``--install`` they are installed when
   missing. pip ships ``lib`` and ``libcudart.so.<major>`` only, so the
   links the build links through (``lib64``, ``libcudart.so``) are made;
   and nvvm is matched to nvcc (``cuda-toolkit`` 13.0.2 leaves it unpinned:
   pip took nvvm 13.5, whose PTX nvcc 13.0's ptxas refuses).

Prints the shell lines that point the build at the toolkit found
(``export CUDA_HOME=...``); what it decided goes to stderr. The Makefile's
``FORCE_CUDA=1 make install-downstream`` runs it (docs/install.md, "GPU
clusters").

Examples:
    python tools/misc/cuda_toolkit.py --install   # exports, or one error
    python tools/misc/cuda_toolkit.py --check-ext \
        --out docs/benchmarks/mmcv_cuda_build.json
"""
import json
import os
import os.path as osp
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from randsac_mm.cli.errors import UserError, add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import INPUT_FILE, OUTPUT_FILE
from randsac_mm.cli.run_tool import run_tool

# The toolkit wheels the build needs: nvcc (with nvvm), the CUDA C++
# library headers (cccl: thrust, cub) and the runtime headers (crt).
TOOLKIT_EXTRAS = 'nvcc,cccl,crt'
# The CUDA library headers torch's own CUDA headers include
# (ATen/cuda/CUDAContextLight.h), so that every CUDA source of mmcv needs
# them: a toolkit of nvcc alone (a minimal install, conda's cuda-nvcc)
# fails on the first. pip's toolkit has them from torch's own CUDA wheels.
LIBRARY_HEADERS = ('cublas_v2.h', 'cublasLt.h', 'cusparse.h', 'cusolverDn.h')
# Launchers of mmcv's CUDA kernels a detection model cannot do without.
REQUIRED_LAUNCHERS = ('ROIAlignForwardCUDAKernelLauncher',
                      'NMSCUDAKernelLauncher')


class ToolkitError(UserError):
    """No usable toolkit: the message is the one line the user reads."""


@dataclass(frozen=True)
class Toolkit:
    """A CUDA toolkit: ``home`` holds ``bin/nvcc``; ``version`` is nvcc's
    release (e.g. '13.0.88'); ``source`` says where it was found."""
    home: str
    version: str
    source: str

    @property
    def major(self):
        return int(self.version.split('.')[0])


def run_nvcc(nvcc, *args):
    """``nvcc args``: its (stdout, stderr), or one line when it cannot run."""
    try:
        done = subprocess.run([nvcc, *args], capture_output=True, text=True,
                              timeout=60)
    except OSError as e:
        raise ToolkitError(f'{nvcc} does not run: {e}') from None
    return done.stdout, done.stderr


def nvcc_version(nvcc):
    """The release of ``nvcc`` ('13.0.88'), read from ``nvcc --version``."""
    out, _ = run_nvcc(nvcc, '--version')
    found = re.search(r'release [\d.]+, V(\d+\.\d+\.\d+)', out)
    if not found:
        raise ToolkitError(f'{nvcc} --version names no release: {out!r}')
    return found.group(1)


def nvcc_home(nvcc):
    """The toolkit an nvcc on PATH belongs to: what nvcc itself names as
    its top (a wrapper script or a link elsewhere is followed), else the
    folder above its bin."""
    _, err = run_nvcc(nvcc, '-dryrun', '-c', 'x.cu')
    top = re.search(r'^#\$ TOP=(.+)$', err, flags=re.M)
    if top:
        return osp.normpath(top.group(1).strip())
    return osp.dirname(osp.dirname(osp.realpath(nvcc)))


def toolkit_at(home, source):
    nvcc = osp.join(home, 'bin', 'nvcc')
    if not os.access(nvcc, os.X_OK):
        raise ToolkitError(f'{source} {home}: no bin/nvcc there')
    return Toolkit(home=home, version=nvcc_version(nvcc), source=source)


def missing_headers(home):
    """Those of :data:`LIBRARY_HEADERS` not in ``home/include``, where
    torch's builder looks."""
    return [name for name in LIBRARY_HEADERS
            if not osp.exists(osp.join(home, 'include', name))]


def pip_toolkit_home(site_packages, major):
    """Where pip's toolkit wheels of CUDA ``major`` live."""
    return osp.join(site_packages, 'nvidia', f'cu{major}')


def say(line):
    """A line for the user: stderr, as stdout is the exports the Makefile
    evaluates."""
    print(line, file=sys.stderr)


def find_toolkit(torch_cuda, site_packages, environ, note=say):
    """The toolkit to build with for torch's CUDA ``torch_cuda`` ('13.0').

    Args:
        torch_cuda (str): ``torch.version.cuda``.
        site_packages (str): the folder torch is installed in.
        environ (dict): the environment (``CUDA_HOME``, ``PATH``).
        note (callable): told, in a line, of a toolkit passed over.

    Returns:
        Toolkit, or None when only pip's wheels would do and they are not
        installed.
    """
    major = int(torch_cuda.split('.')[0])
    if environ.get('CUDA_HOME'):
        found = toolkit_at(environ['CUDA_HOME'], 'CUDA_HOME')
        if found.major != major:
            raise ToolkitError(
                f'CUDA_HOME={found.home} has nvcc {found.version}; torch is '
                f'built with CUDA {torch_cuda}, and torch builds no extension '
                f'with another major version: unset CUDA_HOME to use pip\'s '
                f'toolkit {major}, or install torch for CUDA {found.major}')
        missing = missing_headers(found.home)
        if missing:
            raise ToolkitError(
                f'CUDA_HOME={found.home} lacks {", ".join(missing)} in '
                f'include/, which torch\'s CUDA headers include: install the '
                f'toolkit\'s cuBLAS, cuSPARSE and cuSOLVER headers there, or '
                f'unset CUDA_HOME to use pip\'s toolkit {major}')
        return found
    nvcc = shutil.which('nvcc', path=environ.get('PATH', ''))
    if nvcc:
        home = nvcc_home(nvcc)
        found = toolkit_at(home, 'system nvcc')
        missing = missing_headers(found.home)
        if found.major != major:
            note(f'passing over the system nvcc {found.version} ({nvcc}): '
                 f'torch is built with CUDA {torch_cuda}')
        elif missing:
            note(f'passing over the system nvcc {found.version} ({nvcc}): '
                 f'{found.home}/include lacks {", ".join(missing)}, which '
                 f"torch's CUDA headers include")
        else:
            return found
    home = pip_toolkit_home(site_packages, major)
    if os.access(osp.join(home, 'bin', 'nvcc'), os.X_OK):
        return toolkit_at(home, "pip's toolkit wheels")
    return None


def link_pip_layout(home, major):
    """The links torch's builder links through: ``lib64`` and the
    unversioned ``libcudart.so``, which pip's wheels do not ship."""
    lib64 = osp.join(home, 'lib64')
    if not osp.lexists(lib64):
        os.symlink('lib', lib64)
    cudart = osp.join(home, 'lib', 'libcudart.so')
    versioned = f'libcudart.so.{major}'
    if not osp.lexists(cudart):
        if not osp.exists(osp.join(home, 'lib', versioned)):
            raise ToolkitError(f'{home}/lib has no {versioned}: reinstall '
                               f'the cuda-toolkit wheels')
        os.symlink(versioned, cudart)


def toolkit_requirement(torch_cuda, installed):
    """The pip requirement for the toolkit wheels: the version torch
    installed (``installed``, e.g. '13.0.3.0'), else torch's CUDA."""
    if installed:
        return f'cuda-toolkit[{TOOLKIT_EXTRAS}]=={installed}'
    return f'cuda-toolkit[{TOOLKIT_EXTRAS}]=={torch_cuda}.*'


# What the build needs to know of the interpreter it builds for, asked of
# that interpreter (it may be another Python with another torch).
TORCH_PROBE = """
import json, os.path as osp, torch
gpus = [torch.cuda.get_device_capability(i)
        for i in range(torch.cuda.device_count())] \\
    if torch.cuda.is_available() else []
print(json.dumps(dict(
    version=torch.__version__, cuda=torch.version.cuda,
    site_packages=osp.dirname(osp.dirname(torch.__file__)), gpus=gpus)))
"""
# The installed mmcv's compiled ops, loaded beside torch (their symbols
# resolved against torch's libraries) without importing the mmcv package,
# which needs mmengine: a node's build venv holds torch and mmcv only.
EXT_PROBE = """
import glob, importlib.util, json, os.path as osp, platform, torch
from importlib import metadata
found = importlib.util.find_spec('mmcv')
assert found, 'no mmcv installed'
library, = glob.glob(osp.join(found.submodule_search_locations[0],
                              '_ext*.so'))
ext = importlib.util.spec_from_file_location('mmcv._ext', library)
importlib.util.module_from_spec(ext)
print(json.dumps(dict(mmcv=metadata.version('mmcv'), torch=torch.__version__,
                      torch_cuda=torch.version.cuda, library=library,
                      python=platform.python_version())))
"""


# The installed versions of the distributions named in its arguments (None:
# not installed), asked of the interpreter they are in.
VERSIONS_PROBE = """
import json, sys
from importlib import metadata
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        found[name] = None
print(json.dumps(found))
"""


def installed_versions(python, *names):
    """``{name: version or None}`` of distributions in ``python``."""
    return ask(python, VERSIONS_PROBE, "reading pip's versions", *names)


def nvvm_requirement(nvcc, nvvm):
    """The pip requirement that gives nvcc ``nvcc`` ('13.0.88') the nvvm
    of its release, when the installed ``nvvm`` ('13.5.37') is another's;
    None when they match or either is not pip's."""
    if not nvcc or not nvvm or \
            nvcc.split('.')[:2] == nvvm.split('.')[:2]:
        return None
    return f'nvidia-nvvm=={nvcc}'


def match_nvvm(python, install):
    """Installs into ``python`` the nvvm of its pip nvcc's release, where
    another was installed (:func:`nvvm_requirement`)."""
    versions = installed_versions(python, 'nvidia-cuda-nvcc', 'nvidia-nvvm')
    nvcc, nvvm = versions['nvidia-cuda-nvcc'], versions['nvidia-nvvm']
    requirement = nvvm_requirement(nvcc, nvvm)
    if requirement is None:
        return
    if not install:
        raise ToolkitError(
            f"pip's nvvm {nvvm} is not nvcc {nvcc}'s: nvcc's ptxas refuses "
            f'its PTX; pip install "{requirement}", or rerun with --install')
    say(f'nvvm {nvvm} beside nvcc {nvcc}: installing {requirement}')
    subprocess.run([python, '-m', 'pip', 'install', '-q', requirement],
                   check=True)


def ask(python, probe, what, *args):
    """The JSON ``probe`` prints when ``python`` runs it with ``args``; one
    line naming ``what`` failed otherwise."""
    done = subprocess.run([python, '-c', probe, *args], capture_output=True,
                          text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ['no output'])[-1]
        raise ToolkitError(f'{python}: {what} failed: {last}')
    return json.loads(done.stdout.strip().splitlines()[-1])


def exports(toolkit):
    """The shell lines that point torch's builder at ``toolkit``."""
    return (f'export CUDA_HOME={toolkit.home}\n'
            f'export PATH={toolkit.home}/bin:$PATH\n')


def locate(torch, python, install):
    """The toolkit for ``torch`` (:data:`TORCH_PROBE`'s answer of
    ``python``), pip's installed into ``python`` if none is found and
    ``install``."""
    if torch['cuda'] is None:
        raise ToolkitError(f'FORCE_CUDA=1: torch {torch["version"]} is a '
                           f'CPU build; install torch with CUDA (the pin '
                           f'from PyPI on Linux is one)')
    major = int(torch['cuda'].split('.')[0])
    found = find_toolkit(torch['cuda'], torch['site_packages'], os.environ)
    if found is None:
        requirement = toolkit_requirement(
            torch['cuda'],
            installed_versions(python, 'cuda-toolkit')['cuda-toolkit'])
        if not install:
            raise ToolkitError(f'no CUDA {torch["cuda"]} toolkit: pip '
                               f'install "{requirement}", or rerun with '
                               f'--install')
        say(f'installing {requirement}')
        subprocess.run([python, '-m', 'pip', 'install', '-q', requirement],
                       check=True)
        found = toolkit_at(pip_toolkit_home(torch['site_packages'], major),
                           "pip's toolkit wheels")
    if found.source == "pip's toolkit wheels":
        match_nvvm(python, install)
        link_pip_layout(found.home, major)
        missing = missing_headers(found.home)
        if missing:
            raise ToolkitError(
                f"{found.home}/include lacks {', '.join(missing)}: torch's "
                f'CUDA wheels bring them; reinstall torch {torch["version"]}')
    say(f'CUDA toolkit: nvcc {found.version} from {found.source} '
        f'({found.home}); torch {torch["version"]} is built with CUDA '
        f'{torch["cuda"]}')
    return found


def build_exports(python, install):
    """The toolkit's exports, and the arch list, said and exported, for the
    build of ``python``'s torch."""
    torch = ask(python, TORCH_PROBE, 'import torch')
    arches = arch_list(os.environ, [tuple(g) for g in torch['gpus']])
    toolkit = locate(torch, python, install)
    say(f'building for TORCH_CUDA_ARCH_LIST={arches}')
    return (exports(toolkit) + f"export TORCH_CUDA_ARCH_LIST='{arches}'\n"
            f'export RANDSAC_NVCC_VERSION={toolkit.version}\n'
            f"export RANDSAC_CUDA_TOOLKIT=\"{toolkit.source}\"\n")


def arch_list(environ, visible_gpus):
    """The arches the build compiles for: ``TORCH_CUDA_ARCH_LIST``, else
    those of the visible GPUs (torch's builder's own default). With neither,
    torch's builder has no default (torch 2.13 fails inside it), so none
    is guessed."""
    if environ.get('TORCH_CUDA_ARCH_LIST'):
        return environ['TORCH_CUDA_ARCH_LIST']
    if not visible_gpus:
        raise ToolkitError(
            'TORCH_CUDA_ARCH_LIST is unset and no GPU is visible, so torch '
            'has no arch to build for: set it to the GPUs that will run '
            'the ops, e.g. TORCH_CUDA_ARCH_LIST=9.0 (H100, H200) or '
            '"8.0;9.0" (A100 too)')
    return ';'.join(sorted({f'{major}.{minor}'
                            for major, minor in visible_gpus}))


def cuda_launchers(library):
    """The names of the CUDA kernel launchers compiled into ``library``
    (an ``_ext`` .so): read from its symbol names, so no GPU is needed."""
    with open(library, 'rb') as f:
        data = f.read()
    # Mangled names carry their length first (_Z35RoIAlign...): left out.
    names = re.findall(rb'(?:_Z\d+)?([A-Za-z][A-Za-z0-9]*CUDAKernelLauncher)',
                       data)
    return sorted({n.decode() for n in names})


def check_ext(python, out, build_seconds=None, wheel=None):
    """Checks ``python``'s mmcv._ext for :data:`REQUIRED_LAUNCHERS`; its
    figures, with the build's seconds and the size of its ``wheel`` where
    given, are printed, and merged into the JSON ``out`` if given."""
    ext = ask(python, EXT_PROBE, 'import mmcv._ext')
    library = ext['library']
    launchers = cuda_launchers(library)
    missing = [n for n in REQUIRED_LAUNCHERS if n not in launchers]
    record = dict(
        mmcv=ext['mmcv'], torch=ext['torch'], torch_cuda=ext['torch_cuda'],
        python=ext['python'],
        nvcc=os.environ.get('RANDSAC_NVCC_VERSION'),
        toolkit=os.environ.get('RANDSAC_CUDA_TOOLKIT'),
        arch_list=os.environ.get('TORCH_CUDA_ARCH_LIST'),
        ext=osp.basename(library), ext_mib=round(
            osp.getsize(library) / 2**20, 1),
        cuda_kernel_launchers=len(launchers), missing=missing,
        build_seconds=build_seconds, cpu_count=os.cpu_count())
    if wheel:
        record.update(wheel=osp.basename(wheel),
                      wheel_bytes=osp.getsize(wheel))
    print(json.dumps(record, indent=1))
    if out:
        existing = {}
        if osp.exists(out):
            with open(out) as f:
                existing = json.load(f)
        with open(out, 'w') as f:
            json.dump({**existing, **record}, f, indent=1)
            f.write('\n')
    if missing:
        raise ToolkitError(f'{library} lacks the CUDA kernels '
                           f'{", ".join(missing)}: it was built without '
                           f'CUDA (FORCE_CUDA=1 and a toolkit are needed)')


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_argument('--install', action='store_true',
                        help="install pip's toolkit wheels when no toolkit "
                        "of torch's CUDA is found")
    parser.add_argument('--check-ext', action='store_true',
                        help="check the installed mmcv._ext for its CUDA "
                        "kernels instead (no GPU needed)")
    parser.add_path('--python', kind=INPUT_FILE, default=sys.executable,
                    help='the interpreter whose torch the build is for, '
                    'and whose mmcv --check-ext checks (another Python '
                    'with another torch: a GPU node\'s)')
    parser.add_path('--out', kind=OUTPUT_FILE, suffixes=('.json',),
                    help='with --check-ext: a JSON to write the figures '
                    'into (its other keys kept). None: printed only')
    parser.add_argument('--build-seconds', type=float,
                        help='with --check-ext: the wall seconds of the '
                        'build, recorded. None: not recorded')
    parser.add_path('--wheel', kind=INPUT_FILE, suffixes=('.whl',),
                    help='with --check-ext: the wheel built, its size '
                    'recorded. None: not recorded')
    add_debug_arg(parser)
    args = parser.parse_args(argv)
    for flag, value in (('--out', args.out),
                        ('--build-seconds', args.build_seconds),
                        ('--wheel', args.wheel)):
        if value is not None and not args.check_ext:
            parser.error(f'{flag} applies with --check-ext only')
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.check_ext:
        check_ext(args.python, args.out, args.build_seconds, args.wheel)
    else:
        print(build_exports(args.python, args.install), end='')


if __name__ == '__main__':
    run_tool(main)
