#!/usr/bin/env bash
# Training on a Slurm cluster, one task per GPU.
#   tools/slurm_train.sh PARTITION JOB_NAME CONFIG WORK_DIR [train.py args...]
# Each task checks its own GPU before building anything (tools/train.py: a
# node whose CUDA does not start stops the job with a message naming CUDA).
# Environment: GPUS (total, default 8), GPUS_PER_NODE (default 8),
# CPUS_PER_TASK (default 16: the main config's 14 dataloader workers, the
# main process and the pinning thread; docs/performance.md, "Data loading",
# says how many workers a GPU needs), SRUN_ARGS (extra srun flags).
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 PARTITION JOB_NAME CONFIG WORK_DIR [tools/train.py arguments]" >&2
  exit 2
fi
PARTITION=$1
JOB_NAME=$2
CONFIG=$3
WORK_DIR=$4
shift 4
GPUS=${GPUS:-8}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
CPUS_PER_TASK=${CPUS_PER_TASK:-16}
for name in GPUS GPUS_PER_NODE CPUS_PER_TASK; do
  case ${!name} in
    ''|*[!0-9]*|0*)
      echo "$0: error: $name must be a positive integer, got '${!name}'" >&2
      exit 2 ;;
  esac
done
SRUN_ARGS=${SRUN_ARGS:-""}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python}

# shellcheck disable=SC2086
PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}" \
srun -p "$PARTITION" \
    --job-name="$JOB_NAME" \
    --gres=gpu:"$GPUS_PER_NODE" \
    --ntasks="$GPUS" \
    --ntasks-per-node="$GPUS_PER_NODE" \
    --cpus-per-task="$CPUS_PER_TASK" \
    --kill-on-bad-exit=1 \
    ${SRUN_ARGS} \
    "$PYTHON" -u "$HERE/train.py" "$CONFIG" --work-dir="$WORK_DIR" --launcher slurm "$@"
