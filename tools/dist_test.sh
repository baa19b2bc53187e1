#!/usr/bin/env bash
# Multi-process evaluation with torchrun, one process per GPU.
#   tools/dist_test.sh CONFIG CHECKPOINT GPUS [tools/test.py arguments]
# Multi-node: set NNODES, NODE_RANK, MASTER_ADDR (and PORT) on every node.
# With --device cpu, GPUS gloo processes; otherwise this machine must have
# GPUS usable CUDA GPUs, checked before torchrun starts anything, as are
# the config, the checkpoint and the arguments (tools/test.py --dry-run,
# once). PYTHON: the python with torch (default: the active venv's, else
# the checkout's .venv, else python).
set -euo pipefail
USAGE="usage: $0 CONFIG CHECKPOINT GPUS [tools/test.py arguments]"
case ${1:-} in -h|--help) echo "$USAGE"; exit 0 ;; esac
if [ $# -lt 3 ]; then
  case $# in
    0) missing="CONFIG, CHECKPOINT and GPUS are" ;;
    1) missing="CHECKPOINT and GPUS are" ;;
    *) missing="GPUS is" ;;
  esac
  echo "$0: error: $missing missing; $USAGE" >&2
  exit 2
fi
CONFIG=$1
CHECKPOINT=$2
GPUS=$3
shift 3
NNODES=${NNODES:-1}
NODE_RANK=${NODE_RANK:-0}
PORT=${PORT:-29500}
MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}
HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}"
# shellcheck source=tools/dist_check.sh
. "$HERE/dist_check.sh"
default_python
check_processes "$GPUS" "$@"
check_port
dry_run "$HERE/test.py" "$CONFIG" "$CHECKPOINT" --launcher pytorch \
    "$@"

# torchrun, ending in one line on Ctrl-C or a stop signal (randsac_mm.run.torchrun)
exec "$PYTHON" -m randsac_mm.run.torchrun "$0" \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$GPUS" \
    --master_port="$PORT" \
    "$HERE/test.py" "$CONFIG" "$CHECKPOINT" --launcher pytorch "$@"
