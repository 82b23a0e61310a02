#!/usr/bin/env bash
# MSM studies on the device machine: the MSM and window-table tests, then lab/msm_variants.py with the
# arguments given: stage times over window widths, block sizes, -D variants and window tables.
#
#   lab/device/msm.sh [msm_variants ARGS ...]     (default: --quick $OUT/msm.json 22 24)
#
# e.g. `lab/device/msm.sh --quick --tables 20,20:2,20:7 --c 20 $OUT/msm.json 26 27` (tables of width 20, a
# row for every window, every 2nd, every 7th) or `lab/device/msm.sh $OUT/msm.json 22 24` (all widths and
# block sizes). Environment: NOTEST=1 (no tests), TESTS_S (150), MSM_S (seconds for msm_variants: what is
# left), and common.sh's. Back under $OUT: log.txt, the JSON named, cache/.
. "$(dirname "$0")/../../scripts/device/common.sh" bls12_381
[ $# -gt 0 ] || set -- --quick "$OUT/msm.json" 22 24
if [ -z "${NOTEST:-}" ]; then
  timeout "${TESTS_S:-150}" python3 -m pytest -q -x -p no:cacheprovider tests/backend/test_msm.py \
    tests/backend/test_gpu_tables.py tests/backend/test_gpu_kernels.py -k "cuda or gpu" -m "gpu or not slow" 2>&1 \
    | tail -8 | tee -a "$LOG"
  save_cache
fi
timeout "${MSM_S:-$(left)}" python3 lab/msm_variants.py "$@" 2>&1 | tee -a "$LOG"
save_cache
