#!/usr/bin/env bash
# The hot kernels under Nsight Compute on the device machine: lab/msm_variants.py's stages first, then
# `ncu` on one MSM and the NTTs at 2^NCU_LOG (lab/ncu_kernels.py; the warm-up call's 15 launches skipped).
#
#   lab/device/profile.sh
#
# Environment: VARIANT (NAME:-DOPTION for msm_variants), LOGS ("24 26"), NCU_LOG (24), and common.sh's.
# Back under $OUT: log.txt, msm_variants.json, ncu.txt, cache/.
. "$(dirname "$0")/../../scripts/device/common.sh" bls12_381
timeout 240 python3 lab/msm_variants.py --quick ${VARIANT:+--variant "$VARIANT"} "$OUT/msm_variants.json" \
  ${LOGS:-24 26} 2>&1 | tee -a "$LOG"
save_cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" | tee "$OUT/ncu.txt"
timeout "$(left)" "$NCU" --clock-control none --target-processes all \
  -k 'regex:g1_msm_accumulate|msm_digits|msm_scatter|g1_msm_reduce|fr_ntt_dif_pass|fr_ntt_dif_last|fr_mul_powers' \
  --launch-skip 15 --launch-count 15 --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  python3 lab/ncu_kernels.py "${NCU_LOG:-24}" >> "$OUT/ncu.txt" 2>&1
tail -5 "$OUT/ncu.txt"
