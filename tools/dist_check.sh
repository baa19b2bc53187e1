# Sourced by tools/dist_train.sh, tools/dist_test.sh and
# tools/slurm_train.sh.
#
#   default_python
# Sets PYTHON, unless set: the active virtual environment's python
# (VIRTUAL_ENV), else the checkout's .venv/bin/python when there is one
# (where `make demo` and `make install` put torch), else `python`.
#
#   check_processes GPUS [tool arguments...]
# GPUS must be a positive integer. Unless the arguments hold --device cpu
# (on purpose: tests; GPUS gloo processes then), this machine must give
# GPUS processes a usable CUDA GPU each: otherwise one line names the CUDA
# problem (randsac_mm.cli.device) and the script exits 2, before torchrun
# starts anything. Needs PYTHON and PYTHONPATH set.
#
#   check_port
# On the master node (NODE_RANK 0), PORT (torchrun's --master_port) must be
# free: a second run on one node would otherwise fail deep in torchrun
# with EADDRINUSE. One line naming PORT= and a free port, exit 2. Needs
# PYTHON, PORT and NODE_RANK set.
#
#   dry_run TOOL [tool arguments...]
# Runs TOOL's checks once (its --dry-run: config, checkpoints, dataloaders)
# before torchrun starts GPUS processes that would each refuse the same
# mistake, and torchrun would add its own traceback. Exits 2 on a refusal
# (the tool's one line on stderr).
default_python() {
  local checkout
  checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -z "${PYTHON:-}" ]; then
    if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
      PYTHON=$VIRTUAL_ENV/bin/python
    elif [ -x "$checkout/.venv/bin/python" ]; then
      PYTHON=$checkout/.venv/bin/python
    else
      PYTHON=python
    fi
  fi
  if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "$0: error: PYTHON: no such command '$PYTHON'; set PYTHON to the python that has torch (e.g. .venv/bin/python)" >&2
    exit 2
  fi
}

check_processes() {
  local gpus=$1 device=cuda prev= arg
  shift
  case $gpus in
    ''|*[!0-9]*|0*)
      echo "$0: error: GPUS must be a positive integer (processes on this node), got '$gpus'" >&2
      exit 2 ;;
  esac
  for arg in "$@"; do
    [ "$prev" = --device ] && device=$arg
    case $arg in --device=*) device=${arg#--device=} ;; esac
    prev=$arg
  done
  if [ "$device" = cuda ]; then
    "$PYTHON" -m randsac_mm.cli.device --prog "$0" --gpus "$gpus" || exit 2
  fi
}

check_port() {
  [ "${NODE_RANK:-0}" = 0 ] || return 0
  "$PYTHON" - "$PORT" "$0" <<'PY' || exit 2
import socket, sys
port, prog = int(sys.argv[1]), sys.argv[2]
try:
    with socket.socket() as s:
        s.bind(('', port))
except OSError as e:
    with socket.socket() as s:
        s.bind(('', 0))
        free = s.getsockname()[1]
    print(f'{prog}: error: PORT {port} is in use on this node ({e.strerror}'
          f': another run\'s torchrun?); give a free port, e.g. PORT={free} '
          f'{prog} ...', file=sys.stderr)
    sys.exit(1)
PY
}

dry_run() {
  local status=0
  "$PYTHON" "$@" --dry-run >/dev/null || status=$?
  [ "$status" -eq 0 ] || exit "$status"
}
