#!/usr/bin/env bash
# A daemon-resident circom circuit on the GPU against rapidsnark on the host's cores (issue 19, item 4):
# `cuzk bench latency --resident cuda`. rapidsnark is not in the repository: copy
# ../shared/anchors/rapidsnark/prover to .anchors/ (ignored) and carry .anchors.
#
#   scripts/device/bench_latency.sh
#
# Environment: SIZES (log2 of the constraint count: 20), REPEAT (3), RAPIDSNARK (.anchors/prover), and
# common.sh's (OUT, LOG, CURVES, CALL_S). Back under $OUT: log.txt, latency.json, cache/.
. "$(dirname "$0")/common.sh" bn254
timeout "$(left)" python3 -m cuzk bench latency --sizes "${SIZES:-20}" --repeat "${REPEAT:-3}" --resident cuda \
  --rapidsnark "${RAPIDSNARK:-.anchors/prover}" --dir /tmp/cuzk-latency --json "$OUT/latency.json" 2>&1 \
  | tee -a "$LOG"
save_cache
