# Sourced by tools/dist_train.sh and tools/dist_test.sh before torchrun:
#   check_processes GPUS [tool arguments...]
# GPUS must be a positive integer. Unless the arguments hold --device cpu
# (on purpose: tests; GPUS gloo processes then), this machine must give
# GPUS processes a usable CUDA GPU each: otherwise one line names the CUDA
# problem (randsac_mm.apis.device) and the script exits 2, before torchrun
# starts anything. Needs PYTHON and PYTHONPATH set.
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
    "$PYTHON" -m randsac_mm.apis.device --prog "$0" --gpus "$gpus" || exit 2
  fi
}
