#!/usr/bin/env bash
# Training on a Slurm cluster, one task per GPU.
#   tools/slurm_train.sh PARTITION JOB_NAME CONFIG WORK_DIR [train.py args...]
# Each task checks its own GPU before building anything (tools/train.py: a
# node whose CUDA does not start stops the job with a message naming CUDA).
# Environment: GPUS (total, default 8), GPUS_PER_NODE (default 8),
# CPUS_PER_TASK (default 16: the main config's 14 dataloader workers, the
# main process and the pinning thread; docs/performance.md, "Data loading",
# says how many workers a GPU needs), SRUN_ARGS (extra srun flags), PYTHON
# (the python with torch; default: the active venv's, else the checkout's
# .venv, else python).
set -euo pipefail
USAGE="usage: $0 PARTITION JOB_NAME CONFIG WORK_DIR [tools/train.py arguments]"
case ${1:-} in -h|--help) echo "$USAGE"; exit 0 ;; esac
if [ $# -lt 4 ]; then
  names=(PARTITION JOB_NAME CONFIG WORK_DIR)
  echo "$0: error: missing ${names[*]:$#}; $USAGE" >&2
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
SIGNAL_SECONDS=${SIGNAL_SECONDS:-90}
REQUEUE=${REQUEUE:-0}
case $REQUEUE in
  0|1) ;;
  *) echo "$0: error: REQUEUE must be 0 or 1, got '$REQUEUE'" >&2; exit 2 ;;
esac
for name in GPUS GPUS_PER_NODE CPUS_PER_TASK SIGNAL_SECONDS; do
  case ${!name} in
    ''|*[!0-9]*|0*)
      echo "$0: error: $name must be a positive integer, got '${!name}'" >&2
      exit 2 ;;
  esac
done
if [ "$GPUS" -lt "$GPUS_PER_NODE" ]; then
  echo "$0: error: GPUS_PER_NODE ($GPUS_PER_NODE) is more than GPUS ($GPUS); set GPUS_PER_NODE=$GPUS for a job on part of a node" >&2
  exit 2
fi
SRUN_ARGS=${SRUN_ARGS:-""}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/dist_check.sh
. "$HERE/dist_check.sh"
default_python
if ! command -v srun >/dev/null 2>&1; then
  echo "$0: error: srun not found: this script submits to a Slurm cluster; on one machine use tools/dist_train.sh CONFIG GPUS" >&2
  exit 2
fi
if [ ! -f "$CONFIG" ]; then
  echo "$0: error: CONFIG: no such file '$CONFIG'; give a config file (configs/...)" >&2
  exit 2
fi

RESUME=()
if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [[ " $* " != *" --resume"* ]]; then
  # This job was requeued: continue the run, or start it again if it was
  # stopped before its first checkpoint.
  RESUME=(--resume-if-saved)
fi

status=0
# shellcheck disable=SC2086
PYTHONPATH="$HERE/..${PYTHONPATH:+:$PYTHONPATH}" \
srun -p "$PARTITION" \
    --job-name="$JOB_NAME" \
    --gres=gpu:"$GPUS_PER_NODE" \
    --ntasks="$GPUS" \
    --ntasks-per-node="$GPUS_PER_NODE" \
    --cpus-per-task="$CPUS_PER_TASK" \
    --kill-on-bad-exit=1 \
    --signal=USR1@"$SIGNAL_SECONDS" \
    ${SRUN_ARGS} \
    "$PYTHON" -u "$HERE/train.py" "$CONFIG" --work-dir="$WORK_DIR" --launcher slurm "${RESUME[@]}" "$@" \
  || status=$?

# 138, 143: stopped by SIGUSR1 or SIGTERM (randsac_mm.signals), the
# checkpoint to resume from named in the run's log.
if [ "$REQUEUE" = 1 ] && { [ "$status" -eq 138 ] || [ "$status" -eq 143 ]; }; then
  if [ -z "${SLURM_JOB_ID:-}" ]; then
    echo "$0: stopped by a signal; REQUEUE=1 requeues a batch job (sbatch), and this is none: run it again with --resume" >&2
  else
    scontrol requeue "$SLURM_JOB_ID"
    echo "$0: stopped by a signal; job $SLURM_JOB_ID requeued, it resumes from $WORK_DIR" >&2
  fi
fi
exit "$status"
