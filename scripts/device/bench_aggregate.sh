#!/usr/bin/env bash
# SnarkPack on the device machine (issue 20): the GPU pairing tests, then `cuzk bench aggregate` on cuda
# (pairing products on the GPU, final exponentiations and verification on the host's cores).
#
#   scripts/device/bench_aggregate.sh
#
# Environment: AGG_SIZES (proofs aggregated: 1024,8192; "" for the benchmark's own n = 64..8192),
# TESTS_S (the pairing tests, 240; 0 skips them), and common.sh's (OUT, LOG, CURVES, CALL_S).
# Back under $OUT: log.txt, aggregate.json, cache/.
. "$(dirname "$0")/common.sh" bls12_381,bn254
python3 - <<'PY' 2>&1 | tee -a "$LOG"
import time
from cuzk.backend.cuda.pairing import _module
for c in ("bls12_381", "bn254"):
    t = time.time(); _module(c); print(f"nvrtc pairing {c}: {time.time() - t:.1f} s")
PY
save_cache
if [ "${TESTS_S:-240}" -gt 0 ]; then
  timeout "${TESTS_S:-240}" python3 -m pytest -q -p no:cacheprovider -m gpu tests/aggregate/test_gpu_pairings.py \
    --durations=6 2>&1 | tail -12 | tee -a "$LOG"
fi
AGG_SIZES=${AGG_SIZES-1024,8192}
timeout "$(left)" python3 -m cuzk bench aggregate ${AGG_SIZES:+--sizes $AGG_SIZES} --backend cuda --repeat 3 \
  --json "$OUT/aggregate.json" 2>&1 | tee -a "$LOG"
nproc | tee -a "$LOG"
save_cache
