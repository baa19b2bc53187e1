#!/usr/bin/env bash
# Installs and benchmarks a GPU node without network in one command, inside
# a time limit, from a copy of the checkout that may lack .git
# (docs/performance.md, "An offline GPU node"). On a machine with network,
# `make gpu-window` makes what the node needs and prints this command with
# the commit filled in:
#
#   RANDSAC_COMMIT=<commit> bash tools/misc/gpu_window.sh OUT [MINUTES [PART...]]
#
#   OUT       folder for what comes back (made if missing): window.log and
#             each part's files, none in a subfolder; past 8 files, all but
#             window.log in window_files.tar.gz
#   MINUTES   the time limit (default 9). A part runs under `timeout`
#             with what is left less the least times of the parts after it
#             (so an early part cannot take a later one's time), and is
#             skipped when that is below its own least time
#   PART      in order (default: kernels fit):
#     profile     python -m experiments.benchmarks.step_profile of the main
#                 config at batch 512, eager and then compiled:
#                 step_profile.json and step_profile.md (ms/step, MFU, the
#                 first step's seconds, the top kernels and their share)
#     kernels     the same, compiled, with each attention kernel in turn
#                 (sdpa, explicit, flex): step_profile_kernels.json and .md
#     fit         python -m experiments.benchmarks.paper_scale_speed on both
#                 data paths, compiled, by 1, 2 and then 4 processes at
#                 once on the one GPU: paper_scale_fit.json, written after
#                 each row (each path alone, then how many paper-scale runs
#                 share a GPU, and at what speed each), also put where the
#                 study's plan reads it
#     acceptance  python -m experiments.benchmarks.gpu_acceptance: acceptance.json and
#                 acceptance.md (written after each of its parts, so a run
#                 stopped early keeps what it measured), acceptance_logs.tar.gz
#                 (the tools/train.py logs)
#     speed       python -m experiments.benchmarks.paper_scale_speed --device cuda
#                 --compile --steps 40 --warmup 8: paper_scale_speed.json, also put where the
#                 study's plan reads the measured speed
#     ops         python -m experiments.benchmarks.mmcv_cuda_ops: mmcv's
#                 RoIAlign and NMS on CUDA against the CPU, same inputs:
#                 mmcv_cuda_ops.json (needs mmcv with CUDA ops: below)
#     transfer    python -m experiments.benchmarks.transfer_on_device: a
#                 RandSAC pretraining, then the digit-scene UperNet and
#                 Mask R-CNN from its checkpoint, 50 iterations each and an
#                 evaluation, through tools/train.py on CUDA:
#                 transfer_on_device.json and .md, transfer_logs.tar.gz
#                 (needs mmcv with CUDA ops and make wheelhouse-downstream)
#     study       python -m experiments.paper_scale --whole-runs-only with
#                 the minutes left (no run starts that its estimate says
#                 cannot finish): paper_scale_records.tar.gz
#                 (docs/benchmarks/paper_scale)
#
# Before anything runs it checks what the parts need (torch; scikit-learn
# and OpenCV for the acceptance run's photographs; setuptools >= 64 to
# install; the data files; for ops, mmcv with CUDA ops). It then installs
# from wheelhouse/py<X.Y> (the node's Python) the packages the node lacks,
# never randsac_mm's own wheel, and the copy itself as make install does
# (pip install -e .), so every process runs the copy's code, the code the
# commit names. Where wheelhouse/mmcv-cuda/py<X.Y>-torch<V> holds mmcv with
# its CUDA ops for the node's Python and torch (make node-mmcv), that mmcv
# is installed in mmcv-lite's place; --wheelhouse DIR: another wheelhouse.
# --data-root: Fashion-MNIST's IDX files for speed and study (default
# data/fashion-mnist, what make fashion-mnist writes). --smoke runs each
# part's CPU form (tiny, no GPU) and --no-install uses the environment as it
# is: the test suite runs both (tests/tools/test_gpu_window.py).
set -uo pipefail

fail() { echo "gpu_window.sh: $*" >&2; exit 2; }

smoke=0 install=1 data= wheelhouse=
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --smoke) smoke=1 ;;
        --no-install) install=0 ;;
        --data-root) data=$(realpath -m -- "${2:?--data-root needs a folder}"); shift ;;
        --wheelhouse) wheelhouse=$(realpath -m -- "${2:?--wheelhouse needs a folder}"); shift ;;
        *) fail "unknown option $1 (allowed: --smoke, --no-install, --data-root DIR, --wheelhouse DIR)" ;;
    esac
    shift
done
[[ $# -ge 1 ]] || fail 'usage: RANDSAC_COMMIT=<commit> bash tools/misc/gpu_window.sh [--smoke] [--no-install] [--data-root DIR] [--wheelhouse DIR] OUT [MINUTES [PART...]]'
out=$1 minutes=${2:-9}
shift $(( $# >= 2 ? 2 : 1 ))
parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(kernels fit)
[[ $minutes =~ ^[0-9]+$ ]] && minutes=$(( 10#$minutes )) && (( minutes >= 1 )) ||
    fail "MINUTES must be a whole number of minutes >= 1, got '$minutes'"
for part in "${parts[@]}"; do
    case $part in
        profile|kernels|acceptance|speed|fit|ops|transfer|study) ;;
        *) fail "PART '$part' unknown; choose from profile, kernels, acceptance, speed, fit, ops, transfer, study" ;;
    esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
data=${data:-$root/data/fashion-mnist}
wheelhouse=${wheelhouse:-$root/wheelhouse}
python=${PYTHON:-python3}
# The node's Python (X.Y) and torch (its release, none without one), and
# where make node-mmcv puts mmcv with CUDA ops for the two.
read -r version torch_version < <("$python" -c '
import sys
from importlib import metadata
try:
    torch = metadata.version("torch").split("+")[0]
except metadata.PackageNotFoundError:
    torch = "none"
print("%d.%d" % sys.version_info[:2], torch)') || exit 2
cuda_dir=$wheelhouse/mmcv-cuda/py$version-torch$torch_version
# The commit goes into every record; a copy without git must be told it.
if ! git -C "$root" rev-parse --short HEAD >/dev/null 2>&1 && [[ -z ${RANDSAC_COMMIT:-} ]]; then
    fail 'this copy has no git, so RANDSAC_COMMIT must name its commit (make gpu-window prints the command with it)'
fi
# What the parts need, checked before the window's minutes go to anything.
"$python" - "$install" "$data" "$cuda_dir" "$version" "$torch_version" "${parts[@]}" <<'PY' || exit 2
import glob
import importlib.util
import os.path as osp
import sys

install, data, cuda_dir, python, torch = sys.argv[1] == '1', *sys.argv[2:6]
parts = sys.argv[6:]
need = {'torch': 'the node brings its own'}
if 'acceptance' in parts:
    need.update(sklearn="scikit-learn: the acceptance run's photographs",
                cv2="OpenCV: the acceptance run's pipeline")
if install:
    need['setuptools'] = 'pip install -e . of the copy'
missing = [f'{name} ({why})' for name, why in need.items()
           if importlib.util.find_spec(name) is None]
if install and not missing:
    import setuptools
    if int(setuptools.__version__.split('.')[0]) < 64:
        missing.append(f'setuptools >= 64 (found {setuptools.__version__}): '
                       'pip install -e . of the copy')
if {'speed', 'fit', 'study'} & set(parts):
    for split in ('train', 't10k'):
        for kind in ('images-idx3', 'labels-idx1'):
            name = f'{split}-{kind}-ubyte'
            if not any(osp.isfile(osp.join(data, name + s))
                       for s in ('', '.gz')):
                missing.append(f'{osp.join(data, name)}[.gz] (Fashion-MNIST '
                               'for speed and study: make fashion-mnist, or '
                               '--data-root)')
if 'transfer' in parts:
    downstream = osp.join(osp.dirname(osp.dirname(cuda_dir)),
                          f'py{python}-downstream')
    if install and not glob.glob(osp.join(downstream, '*.whl')):
        missing.append(f'the wheels of mmseg, mmdet and mlxtend in '
                       f'{downstream} (for transfer: make '
                       f'wheelhouse-downstream NODE_PYTHON=python{python})')
    elif not install:
        missing += [f'{name} (transfer)' for name in ('mmseg', 'mmdet',
                                                     'mlxtend')
                    if importlib.util.find_spec(name) is None]
if ({'ops', 'transfer'} & set(parts)
        and importlib.util.find_spec('torch') is not None):
    spec = importlib.util.find_spec('mmcv')
    if install and not glob.glob(osp.join(cuda_dir, 'mmcv-2.1.0-*.whl')):
        made = sorted(osp.basename(f) for f in glob.glob(
            osp.join(osp.dirname(cuda_dir), '*')))
        missing.append(
            f'mmcv 2.1.0 with CUDA ops for Python {python} and torch {torch} '
            f'in {cuda_dir} (for ops and transfer: make node-mmcv '
            f'NODE_PYTHON=python{python} NODE_TORCH={torch}; made: '
            f'{", ".join(made) or "none"})')
    elif not install and not (spec and glob.glob(osp.join(
            osp.dirname(spec.origin), '_ext*.so'))):
        missing.append('mmcv with its compiled ops (mmcv._ext) for ops and '
                       'transfer')
if missing:
    sys.exit(f'gpu_window.sh: {sys.executable} lacks: ' + '; '.join(missing))
PY

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$root" || exit 2
start=$(date +%s)
deadline=$(( start + minutes * 60 ))
reserve=20   # seconds kept at the end for packing what comes back
work=$(mktemp -d -t gpu_window.XXXXXX) || exit 2   # the parts' scratch
exec > >(tee -a "$out/window.log") 2>&1
tee_pid=$!
finish() { rm -rf "$work"; exec >&- 2>&-; wait "$tee_pid" 2>/dev/null; }
trap finish EXIT

say() { echo "[window $(( $(date +%s) - start ))s] $*"; }
left() { echo $(( deadline - reserve - $(date +%s) )); }

# Each part's least useful time (seconds): below it the part is skipped.
# Measured on the first H100 window (2026-11-28): the acceptance run's
# check and eager run 190 s; on the H200 window (2026-11-30): profile 98 s
# (eager, then compiled: its first step 47 s), speed 99 s, the whole
# acceptance run 326 s. kernels compiles three times; fit's rows come in
# order (both paths alone first), so a fit stopped at its least time keeps
# those.
# transfer: three tools/train.py starts and two evaluations, estimated
# (not yet run on a GPU).
declare -A least=([profile]=120 [kernels]=240 [acceptance]=240 [speed]=120 [fit]=180 [ops]=60 [transfer]=150 [study]=120)
if (( smoke )); then least=([profile]=20 [kernels]=20 [acceptance]=20 [speed]=10 [fit]=20 [ops]=10 [transfer]=20 [study]=20); fi

if (( install )); then
    wheels=$wheelhouse/py$version
    ls "$wheels"/*.whl >/dev/null 2>&1 ||
        fail "no wheels in $wheels for this node's Python $version: run make gpu-window and carry wheelhouse"
    # mmcv with its CUDA ops built for this Python and torch, if carried.
    cuda_wheel=$(ls "$cuda_dir"/mmcv-2.1.0-*.whl 2>/dev/null | head -n 1)
    if [[ -n $cuda_wheel ]]; then
        say "mmcv with CUDA ops: ${cuda_wheel#$root/}, in mmcv-lite's place"
    else
        say "mmcv-lite (no compiled ops): no mmcv with CUDA ops in $cuda_dir (make node-mmcv)"
    fi
    # mmseg's and mmdet's wheels for the transfers, if carried (make
    # wheelhouse-downstream).
    downstream=$(ls "$wheelhouse/py$version-downstream"/*.whl 2>/dev/null)
    [[ -n $downstream ]] && say "mmseg and mmdet: $(echo "$downstream" | grep -c .) wheels of ${wheelhouse#$root/}/py$version-downstream"
    # The wheels of packages the node lacks, randsac_mm's aside (and
    # mmcv-lite's where mmcv with CUDA ops replaces it): the node's own
    # packages (packaging, rich, ...) stay as its other software has them.
    # shellcheck disable=SC2086  # one wheel path a line
    missing=$("$python" - "${cuda_wheel:+mmcv_lite}" "$wheels"/*.whl $downstream <<'PY'
import sys
from importlib import metadata
left_out = {'randsac_mm', sys.argv[1]}
for wheel in sys.argv[2:]:
    name = wheel.rsplit('/', 1)[-1].split('-')[0]
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        if name not in left_out:
            print(wheel)
PY
) || exit 2
    carried=$(( $(ls "$wheels"/*.whl | grep -vc /randsac_mm-) + $(grep -c . <<< "$downstream") ))
    say "installing $(echo "$missing" | grep -c .) of the $carried carried wheels (the others' packages are here), then this copy (pip install -e .)"
    if [[ -n $missing ]]; then
        echo "$missing" | xargs -d '\n' "$python" -m pip install -q --no-index --no-deps --no-compile \
            --disable-pip-version-check || exit 2
    fi
    # Over any mmcv the node has: a CPU build of the same version would
    # otherwise satisfy pip.
    if [[ -n $cuda_wheel ]]; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --force-reinstall \
            --disable-pip-version-check "$cuda_wheel" || exit 2
    fi
    "$python" -m pip install -q --no-index --no-deps --no-build-isolation --use-pep517 \
        --disable-pip-version-check -e . || exit 2
fi
if [[ -n ${downstream:-} && -n ${cuda_wheel:-} ]]; then
    # The transfers' stack as their configs import it (a failure is said,
    # and the parts that do not need it run).
    "$python" -W ignore -c 'import mmdet, mmseg, randsac_mm.downstream; print(f"downstream: mmseg {mmseg.__version__}, mmdet {mmdet.__version__} and mmcv'"'"'s ops import")' ||
        say "downstream: the transfers' packages do not import (above)"
fi
"$python" -c 'import randsac_mm.registration; from experiments.benchmark_io import code_commit; print("code", code_commit())' || exit 2

# for_the_plan FILE: a part's figures also where the paper-scale study's
# plan reads the measured speed (experiments/paper_scale/plan.py,
# SPEED_FILES); never the smoke's.
for_the_plan() {
    if (( ! smoke )) && [[ -f $1 ]]; then
        mkdir -p docs/benchmarks/gpu && cp "$1" docs/benchmarks/gpu/
    fi
}

status=0
ran=
run_part() {  # run_part INDEX NAME COMMAND...: under timeout, its share of the time left
    local index=$1 name=$2 later=0 budget code p
    shift 2
    for p in "${parts[@]:index+1}"; do later=$(( later + ${least[$p]} )); done
    budget=$(( $(left) - later ))
    ran=0
    if (( budget < ${least[$name]} )); then
        say "$name skipped: ${budget}s for it (the parts after it keep ${later}s), it needs at least ${least[$name]}s"
        status=1
        return 1
    fi
    say "$name: $* (at most ${budget}s)"
    PYTHONUNBUFFERED=1 timeout --kill-after=10 "$budget" "$@"
    code=$?
    ran=1
    case $code in
        0) ;;
        124) say "$name stopped at the end of its ${budget}s" ;;
        137) say "$name killed (at the end of its time, or for memory)" ;;
        *) say "$name exited $code" ;;
    esac
    (( code )) && status=1
    return $code
}

for i in "${!parts[@]}"; do
    case ${parts[i]} in
    profile)
        if (( smoke )); then
            # Eager only: the smoke's compiled step is the acceptance part's
            # (tools/train.py --compile), one cold compile of the suite's
            # fewer.
            extra=(--device cpu --setting vit-t-cifar --batch-size 4 --steps 2 --warmup 1 --profile-steps 1
                   --modes eager)
        else
            # Eager first, written before compiling: its figures come back
            # even if compiling outlasts the part.
            extra=(--device cuda --setting vit-b-in1k --batch-size 512 --modes eager compiled)
        fi
        run_part "$i" profile "$python" -m experiments.benchmarks.step_profile "${extra[@]}" \
            --out "$out"
        ;;
    kernels)
        if (( smoke )); then
            extra=(--device cpu --setting vit-t-cifar --batch-size 4 --steps 1 --warmup 1 --profile-steps 1
                   --modes eager --attention explicit sdpa)
        else
            extra=(--device cuda --setting vit-b-in1k --batch-size 512 --modes compiled
                   --attention sdpa explicit flex)
        fi
        # Each kernel's figures are written as it ends: a kernel that
        # outlasts the part leaves the ones before it.
        run_part "$i" kernels "$python" -m experiments.benchmarks.step_profile "${extra[@]}" \
            --out "$work/kernels"
        for f in "$work"/kernels/step_profile.{json,md}; do
            [[ -f $f ]] && cp "$f" "$out/step_profile_kernels.${f##*.}"
        done
        ;;
    fit)
        if (( smoke )); then
            extra=(--device cpu --batch-size 4 --steps 2 --warmup 1 --workers 0 --paths on_device --processes 2)
        else
            extra=(--device cuda --compile --steps 40 --warmup 8 --paths on_device per_sample --processes 1 2 4)
        fi
        # Both paths alone first (the host work of both cut since window
        # 2), then how many runs of each share the GPU.
        run_part "$i" fit "$python" -m experiments.benchmarks.paper_scale_speed "${extra[@]}" --data-root "$data" \
            --out "$out/paper_scale_fit.json"
        for_the_plan "$out/paper_scale_fit.json"  # its latest lone row counts
        ;;
    acceptance)
        if (( smoke )); then extra=(--smoke); else extra=(); fi
        run_part "$i" acceptance "$python" -m experiments.benchmarks.gpu_acceptance --out "$work/acceptance" "${extra[@]}"
        cp "$work"/acceptance/acceptance.{json,md} "$out"/ 2>/dev/null
        (cd "$work/acceptance" 2>/dev/null && ls train_*.log >/dev/null 2>&1 &&
            tar czf "$out/acceptance_logs.tar.gz" train_*.log)
        ;;
    speed)
        if (( smoke )); then
            extra=(--device cpu --batch-size 4 --steps 2 --warmup 1 --workers 0)
        else
            extra=(--device cuda --compile --steps 40 --warmup 8)
        fi
        run_part "$i" speed "$python" -m experiments.benchmarks.paper_scale_speed "${extra[@]}" --data-root "$data" \
            --out "$out/paper_scale_speed.json"
        for_the_plan "$out/paper_scale_speed.json"
        ;;
    ops)
        if (( smoke )); then extra=(--device cpu); else extra=(); fi
        run_part "$i" ops "$python" -m experiments.benchmarks.mmcv_cuda_ops "${extra[@]}" --out "$out"
        ;;
    transfer)
        if (( smoke )); then extra=(--device cpu --smoke); else extra=(); fi
        run_part "$i" transfer "$python" -m experiments.benchmarks.transfer_on_device "${extra[@]}" \
            --out "$work/transfer" --work-dir "$work/transfer_runs"
        cp "$work"/transfer/transfer_on_device.{json,md} "$out"/ 2>/dev/null
        (cd "$work/transfer" 2>/dev/null && ls ./*.log >/dev/null 2>&1 &&
            tar czf "$out/transfer_logs.tar.gz" ./*.log)
        ;;
    study)
        if (( smoke )); then
            records=$work/paper_scale_records
            extra=(--quick --data-root "$data" --records "$records")
        else
            records=docs/benchmarks/paper_scale
            spare=$(( ( $(left) - 30 ) / 60 ))  # paper_scale's own budget, a margin kept
            extra=(--data-root "$data" --whole-runs-only --budget-minutes "$(( spare > 1 ? spare : 1 ))")
        fi
        run_part "$i" study "$python" -m experiments.paper_scale "${extra[@]}"
        if (( ran )) && [[ -d $records/runs ]]; then
            tar czf "$out/paper_scale_records.tar.gz" -C "$(dirname "$records")" "$(basename "$records")"
        fi
        ;;
    esac
done
# A lent machine brings back at most 8 files: past that, all but the log
# go back in one archive.
if (( $(ls "$out" | wc -l) > 8 )); then
    if (cd "$out" && tar czf window_files.tar.gz --exclude window.log --exclude window_files.tar.gz -- * &&
        find . -maxdepth 1 -type f ! -name window.log ! -name window_files.tar.gz -delete); then
        say "more than 8 files: all but window.log packed in window_files.tar.gz"
    else
        say "more than 8 files, and packing them failed: only 8 come back"
        status=1
    fi
fi
say "done; in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit $status
