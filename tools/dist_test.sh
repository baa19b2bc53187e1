#!/usr/bin/env bash
# Multi-process evaluation with torchrun, one process per GPU.
#   tools/dist_test.sh CONFIG CHECKPOINT GPUS [test.py args...]
# Multi-node: set NNODES, NODE_RANK, MASTER_ADDR (and PORT) on every node.
# With --device cpu, GPUS gloo processes; otherwise this machine must have
# GPUS usable CUDA GPUs, checked before torchrun starts anything.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 CONFIG CHECKPOINT GPUS [tools/test.py arguments]" >&2
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
PYTHON=${PYTHON:-python}
export PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}"
# shellcheck source=tools/dist_check.sh
. "$HERE/dist_check.sh"
check_processes "$GPUS" "$@"

exec "$PYTHON" -m torch.distributed.run \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$GPUS" \
    --master_port="$PORT" \
    "$HERE/test.py" "$CONFIG" "$CHECKPOINT" --launcher pytorch "$@"
