#!/usr/bin/env bash
# A kernel change against the tree before it, on the device machine: .ab/old holds that tree's cuzk
# (`mkdir -p .ab/old && git archive HEAD~ cuzk | tar -x -C .ab/old`, carried). The kernel, table, Groth16
# and NTT tests of this tree; then, each where asked, msm_variants' variants of this tree (VARIANT, MSM_ARGS),
# msm_variants' stages of both trees (MSM_AB=1), NTT pass plans (NTT_PLANS), and last the NTT rows of
# `bench kernels` of both trees (KERNELS=1: this tree's whole kernel benchmark instead; NO_NTT=1: neither).
#
#   lab/device/ab.sh
#
# Environment: VARIANT (NAME:-DOPTION, a module built with that option beside the default), MSM_ARGS (more
# msm_variants options: --variant NAME:-DX, --c C,...), LOGS (log2 sizes: "24 26"), MSM_AB_RUNS (msm_variants
# arguments per run, runs separated by |: "--c 16,20 --tables 20 /dev/null 24|--c 20 /dev/null 26"),
# NTT_PLANS (e.g. 7x256,8x256), TESTS_S (240), VARIANT_S (200), MSM_AB_S (120), NTT_PLANS_S (150), NTT_S (100),
# KERNELS_S (280), and common.sh's. Build the variants' kernels beforehand (scripts/prebuilt_kernels.py
# msm:CURVE:-DOPTION, --tree .ab/old module:CURVE). Back under $OUT: log.txt, cache/.
. "$(dirname "$0")/../../scripts/device/common.sh" bls12_381
ROOT=$PWD
timeout "${TESTS_S:-240}" python3 -m pytest -q -p no:cacheprovider tests/backend/test_gpu_kernels.py \
  tests/backend/test_gpu_tables.py tests/groth16/test_groth16.py tests/backend/test_ntt.py -k "cuda or gpu" \
  -m "gpu or not slow" --durations=6 2>&1 | tail -12 | tee -a "$LOG"
save_cache
trees() { for tree in old new; do dir=$ROOT; [ $tree = old ] && dir=$ROOT/.ab/old; [ -d "$dir/cuzk" ] && echo "$tree $dir"; done; }
if [ -n "${VARIANT:-}${MSM_ARGS:-}" ]; then
  timeout "${VARIANT_S:-200}" python3 lab/msm_variants.py --quick ${VARIANT:+--variant "$VARIANT"} ${MSM_ARGS:-} \
    /dev/null ${LOGS:-24 26} 2>&1 | tee -a "$LOG"
fi
if [ -n "${MSM_AB:-}" ]; then  # each tree's cuzk first on sys.path (lab/msm_variants.py appends this one's last)
  IFS='|' read -ra runs <<< "${MSM_AB_RUNS:---c 16,20 --tables 20 /dev/null 24|--c 20 /dev/null 26}"
  trees | while read -r tree dir; do
    echo "== MSM, $tree tree" | tee -a "$LOG"
    for args in "${runs[@]}"; do
      (cd "$dir" && PYTHONPATH=/tmp/site:. timeout "${MSM_AB_S:-120}" python3 "$ROOT/lab/msm_variants.py" --quick $args </dev/null \
        2>&1 | grep -v "^compiled" | tee -a "$LOG")
    done
  done
fi
[ -n "${NTT_PLANS:-}" ] && timeout "${NTT_PLANS_S:-150}" python3 lab/ntt_variants.py --plans "$NTT_PLANS" 2>&1 | tee -a "$LOG"
if [ -n "${NO_NTT:-}" ]; then :
elif [ -n "${KERNELS:-}" ]; then  # the whole kernel benchmark (sppark ratios) instead of the NTT rows' A/B
  timeout "${KERNELS_S:-280}" python3 -m cuzk bench kernels --backend cuda --curve bls12_381 2>&1 | grep -v "^ *|" \
    | tee -a "$LOG"
else
  trees | while read -r tree dir; do
    echo "== NTT, $tree tree" | tee -a "$LOG"
    (cd "$dir" && PYTHONPATH=/tmp/site:. timeout "${NTT_S:-100}" python3 -c "from cuzk.bench import kernels; kernels.run('cuda', None, sizes={'ntt': [1 << k for k in (20, 22, 24, 26, 27)]}, curves=('bls12_381',), repeat=7)" </dev/null \
      2>&1 | head -12 | tee -a "$LOG")
  done
fi
save_cache
