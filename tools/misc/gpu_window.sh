#!/usr/bin/env bash
# One GPU window: what a lent GPU node without network runs, in one command,
# inside a time budget, from a copy of the checkout that may lack .git
# (docs/performance.md, "A GPU window"). On a machine with network,
# `make gpu-window` makes what the node needs and prints this command with
# the commit filled in:
#
#   RANDSAC_COMMIT=<commit> bash tools/misc/gpu_window.sh OUT [MINUTES [PART...]]
#
#   OUT       folder for what comes back (made if missing): window.log and
#             each part's files, at most 6 files, none in a subfolder
#   MINUTES   the window's budget (default 9); a part starts only while
#             more than its least useful time is left, and runs under
#             `timeout` with what is left, so the command ends in time
#   PART      in order (default: acceptance speed):
#     acceptance  python -m experiments.gpu_acceptance: acceptance.json,
#                 acceptance.md, acceptance_logs.tar.gz (tools/train.py logs)
#     speed       python -m experiments.paper_scale_speed --device cuda
#                 --compile: paper_scale_speed.json
#     study       python -m experiments.paper_scale with the minutes left:
#                 paper_scale_records.tar.gz (docs/benchmarks/paper_scale)
#
# It first installs from wheelhouse/py<X.Y> (the node's Python) the packages
# the node lacks, never randsac_mm's own wheel, then the copy itself as make
# install does (pip install -e .), so every process runs the copy's code, the
# code the commit names.
# --data-root: Fashion-MNIST's IDX files for speed and study (default
# data/fashion-mnist, what make fashion-mnist writes). --smoke runs each
# part's CPU form (tiny, no GPU) and --no-install uses the environment as it
# is: the test suite runs both (tests/tools/test_gpu_window.py).
set -uo pipefail

smoke=0 install=1 data=
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
        --smoke) smoke=1 ;;
        --no-install) install=0 ;;
        --data-root) data=$(realpath -m -- "${2:?--data-root needs a folder}"); shift ;;
        *) echo "gpu_window.sh: unknown option $1 (allowed: --smoke, --no-install, --data-root DIR)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $# -lt 1 ]]; then
    echo 'usage: RANDSAC_COMMIT=<commit> bash tools/misc/gpu_window.sh [--smoke] [--no-install] [--data-root DIR] OUT [MINUTES [PART...]]' >&2
    exit 2
fi
out=$1 minutes=${2:-9}
shift $(( $# >= 2 ? 2 : 1 ))
parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(acceptance speed)
if ! [[ $minutes =~ ^[0-9]+$ ]] || (( minutes < 1 )); then
    echo "gpu_window.sh: MINUTES must be a whole number of minutes >= 1, got '$minutes'" >&2
    exit 2
fi
for part in "${parts[@]}"; do
    case $part in
        acceptance|speed|study) ;;
        *) echo "gpu_window.sh: PART '$part' unknown; choose from acceptance, speed, study" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
# The commit goes into every record; a copy without git must be told it.
if ! git -C "$root" rev-parse --short HEAD >/dev/null 2>&1 && [[ -z ${RANDSAC_COMMIT:-} ]]; then
    echo 'gpu_window.sh: this copy has no git, so RANDSAC_COMMIT must name its commit (make gpu-window prints the command with it)' >&2
    exit 2
fi

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$root" || exit 2
data=${data:-$root/data/fashion-mnist}
python=${PYTHON:-python3}
start=$(date +%s)
deadline=$(( start + minutes * 60 ))
reserve=20   # seconds kept at the end for packing what comes back
work=$(mktemp -d -t gpu_window.XXXXXX) || exit 2   # the parts' scratch
trap 'rm -rf "$work"' EXIT
exec > >(tee -a "$out/window.log") 2>&1

say() { echo "[window $(( $(date +%s) - start ))s] $*"; }
left() { echo $(( deadline - reserve - $(date +%s) )); }

# Each part's least useful time (seconds): below it the part is skipped.
declare -A least=([acceptance]=240 [speed]=60 [study]=120)
if (( smoke )); then least=([acceptance]=20 [speed]=10 [study]=20); fi

if (( install )); then
    version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    wheels=$root/wheelhouse/py$version
    if ! ls "$wheels"/*.whl >/dev/null 2>&1; then
        echo "gpu_window.sh: no wheels in $wheels for this node's Python $version: run make gpu-window and carry wheelhouse/py$version" >&2
        exit 2
    fi
    # The wheels of packages the node lacks, randsac_mm's aside: the node's
    # own packages (packaging, rich, ...) stay as its other software has them.
    missing=$("$python" - "$wheels"/*.whl <<'PY'
import sys
from importlib import metadata
for wheel in sys.argv[1:]:
    name = wheel.rsplit('/', 1)[-1].split('-')[0]
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        if name != 'randsac_mm':
            print(wheel)
PY
)
    say "installing $(echo "$missing" | grep -c .) of the $(ls "$wheels"/*.whl | grep -vc /randsac_mm-) wheels of $wheels (the others' packages are here), then this copy (pip install -e .)"
    if [[ -n $missing ]]; then
        echo "$missing" | xargs "$python" -m pip install -q --no-index --no-deps --no-compile \
            --disable-pip-version-check || exit 2
    fi
    "$python" -m pip install -q --no-index --no-deps --no-build-isolation --use-pep517 \
        --disable-pip-version-check -e . || exit 2
fi
"$python" -c 'import randsac_mm.registration; from experiments.benchmark_io import code_commit; print("code", code_commit())' || exit 2

status=0
run_part() {  # run_part NAME COMMAND...: under timeout with the time left
    local name=$1 budget
    shift
    budget=$(left)
    if (( budget < least[$name] )); then
        say "$name skipped: ${budget}s left, it needs at least ${least[$name]}s"
        status=1
        return 1
    fi
    say "$name: $* (at most ${budget}s)"
    PYTHONUNBUFFERED=1 timeout --kill-after=10 "$budget" "$@"
    local code=$?
    (( code == 124 || code == 137 )) && say "$name stopped at the window's end"
    (( code )) && { say "$name exited $code"; status=1; }
    return $code
}

for part in "${parts[@]}"; do
    case $part in
    acceptance)
        if (( smoke )); then extra=(--smoke); else extra=(); fi
        rm -rf "$work/acceptance"
        run_part acceptance "$python" -m experiments.gpu_acceptance --out "$work/acceptance" "${extra[@]}"
        cp "$work"/acceptance/acceptance.{json,md} "$out"/ 2>/dev/null
        (cd "$work/acceptance" && ls train_*.log >/dev/null 2>&1 &&
            tar czf "$out/acceptance_logs.tar.gz" train_*.log)
        ;;
    speed)
        if (( smoke )); then
            extra=(--device cpu --batch-size 4 --steps 2 --warmup 1 --workers 0)
        else
            extra=(--device cuda --compile)
        fi
        run_part speed "$python" -m experiments.paper_scale_speed "${extra[@]}" --data-root "$data" --out "$out/paper_scale_speed.json"
        ;;
    study)
        if (( smoke )); then
            extra=(--quick --data-root "$data" --records "$work/paper_scale_records")
            records=$work/paper_scale_records
        else
            spare=$(( ( $(left) - 30 ) / 60 ))  # paper_scale's own budget, a margin kept
            extra=(--data-root "$data" --budget-minutes "$(( spare > 1 ? spare : 1 ))")
            records=docs/benchmarks/paper_scale
        fi
        run_part study "$python" -m experiments.paper_scale "${extra[@]}"
        [[ -n $(ls -A "$records" 2>/dev/null) ]] && tar czf "$out/paper_scale_records.tar.gz" -C "$(dirname "$records")" "$(basename "$records")"
        ;;
    esac
done
say "done; in $out: $(cd "$out" && ls | tr '\n' ' ')"
exit $status
