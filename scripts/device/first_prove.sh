#!/usr/bin/env bash
# The first `cuzk prove --backend cuda` on a fresh GPU machine (issue 42: a ~10k-constraint circom circuit
# in <= 20 s): every run starts with every cache empty (cuzk's kernels, numba's, CuPy's, Python's
# bytecode), as on a machine that never ran cuzk; then the same proof again, warm.
#
#   scripts/device/first_prove.sh record [LABEL...]           # write cuzk/cli/kernel_lists/prove-*-cuda.txt
#   scripts/device/first_prove.sh measure TREE INPUTS STEM... # TREE: a checkout (. or an old one, .ab/old)
#
# record runs scripts/kernel_lists.py for the -cuda lists (the CPU kernels a GPU proof compiles) and copies
# them to $OUT. measure proves INPUTS/STEM.{zkey,r1cs,wtns} (bits_mix: examples/bits_mix's .r1cs and
# witness) with TREE's cuzk. Make INPUTS here first: `cuzk setup` of examples/bits_mix and of
# cuzk.bench.circom_like circuits (bn254_10000, bls12_381_10000), carried as .ab/inputs. No caches are
# carried or seeded: that is the point.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
OUT=${OUT:-/tmp/cuzk-out}
LOG=${LOG:-$OUT/log.txt}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
{ nvidia-smi -L; echo "cores: $(nproc)"; } | tee -a "$LOG"

fresh() {  # every cache in a new empty folder
  local d; d=$(mktemp -d /tmp/cold-XXXX)
  export HOME=$d/home CUZK_CACHE_DIR=$d/cuzk NUMBA_CACHE_DIR=$d/numba CUPY_CACHE_DIR=$d/cupy PYTHONPYCACHEPREFIX=$d/pyc
  mkdir -p "$HOME"
}

case "${1:-}" in
record)
  shift
  fresh
  [ $# -gt 0 ] || set -- prove-bn254-cuda prove-bls12_381-cuda
  python3 scripts/kernel_lists.py "$@" 2>&1 | tee -a "$LOG"
  cp cuzk/cli/kernel_lists/prove-*-cuda.txt "$OUT"/
  ;;
measure)
  tree=$2 inputs=$(realpath "$3"); shift 3
  for stem in "$@"; do
    r1cs=$inputs/$stem.r1cs wtns=$inputs/$stem.wtns
    [ "$stem" = bits_mix ] && r1cs=$PWD/examples/bits_mix/bits_mix.r1cs wtns=$PWD/examples/bits_mix/witness.wtns
    fresh
    for run in cold warm; do
      t0=$(date +%s.%N)
      (cd "$tree" && PYTHONPATH=. python3 -m cuzk prove --backend cuda --zkey "$inputs/$stem.zkey" --r1cs "$r1cs" \
        --wtns "$wtns" --proof /tmp/proof.json --public /tmp/public.json) > /tmp/prove.err 2>&1
      rc=$?
      t1=$(date +%s.%N)
      grep -v "compiling CPU kernels: [0-9]" /tmp/prove.err | tail -4 >> "$LOG"
      awk -v a="$t0" -v b="$t1" -v t="$tree" -v s="$stem" -v r="$run" -v rc="$rc" \
        'BEGIN { printf "first-prove %s %s %s: %.1f s (rc %d)\n", t, s, r, b - a, rc }' | tee -a "$LOG"
    done
  done
  ;;
*)
  sed -n 2,13p "$0"
  exit 2
  ;;
esac
