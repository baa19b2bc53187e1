#!/usr/bin/env bash
# Multi-process training with torchrun, one process per GPU.
#   tools/dist_train.sh CONFIG GPUS [train.py args...]
# Multi-node: set NNODES, NODE_RANK, MASTER_ADDR (and PORT) on every node.
# With --device cpu (on purpose: tests), GPUS is the number of processes
# (gloo backend); otherwise this machine must have GPUS usable CUDA GPUs,
# checked before torchrun starts anything.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 CONFIG GPUS [tools/train.py arguments]" >&2
  exit 2
fi
CONFIG=$1
GPUS=$2
shift 2
case $GPUS in
  ''|*[!0-9]*|0*)
    echo "$0: error: GPUS must be a positive integer (processes on this node), got '$GPUS'" >&2
    exit 2 ;;
esac
DEVICE=cuda
prev=
for arg in "$@"; do
  [ "$prev" = --device ] && DEVICE=$arg
  case $arg in --device=*) DEVICE=${arg#--device=} ;; esac
  prev=$arg
done
NNODES=${NNODES:-1}
NODE_RANK=${NODE_RANK:-0}
PORT=${PORT:-29500}
MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python}
export PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}"

if [ "$DEVICE" = cuda ]; then
  # One line naming the CUDA problem, not a failure report per process.
  "$PYTHON" -m randsac_mm.apis.device --gpus "$GPUS" || exit 2
fi

exec "$PYTHON" -m torch.distributed.run \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$GPUS" \
    --master_port="$PORT" \
    "$HERE/train.py" "$CONFIG" --launcher pytorch "$@"
