#!/usr/bin/env bash
# Multi-process training with torchrun, one process per GPU.
#   tools/dist_train.sh CONFIG GPUS [tools/train.py arguments]
# Multi-node: set NNODES, NODE_RANK, MASTER_ADDR (and PORT) on every node.
# With --device cpu (on purpose: tests), GPUS is the number of processes
# (gloo backend); otherwise this machine must have GPUS usable CUDA GPUs,
# checked before torchrun starts anything, as are the config and the
# arguments (tools/train.py --dry-run, once). PYTHON: the python with torch
# (default: the active venv's, else the checkout's .venv, else python).
set -euo pipefail
USAGE="usage: $0 CONFIG GPUS [tools/train.py arguments]"
case ${1:-} in -h|--help) echo "$USAGE"; exit 0 ;; esac
if [ $# -lt 2 ]; then
  missing=$([ $# -eq 0 ] && echo "CONFIG and GPUS are" || echo "GPUS is")
  echo "$0: error: $missing missing; $USAGE" >&2
  exit 2
fi
CONFIG=$1
GPUS=$2
shift 2
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
dry_run "$HERE/train.py" "$CONFIG" --launcher pytorch "$@"

# torchrun, ending in one line on Ctrl-C or a stop signal (randsac_mm.run.torchrun)
exec "$PYTHON" -m randsac_mm.run.torchrun "$0" \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$GPUS" \
    --master_port="$PORT" \
    "$HERE/train.py" "$CONFIG" --launcher pytorch "$@"
