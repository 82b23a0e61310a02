#!/usr/bin/env bash
# Issue 44's device-memory budget on the device machine: proofs verified on the GPU under a budget small
# enough to stream every base, chunk every MSM and split H; then one 2^27 partition (a 32 GiB PoRep
# partition's domain: stamped SHA-256, random key) at 16 GiB, 24 GiB and the card's memory, in one
# process (one circuit, witness and key: its synthesis alone takes ~2.5 min), ms per partition and the
# device's peak memory for each.
#
#   scripts/device/bench_memory.sh [check] [prove27] [test]   (default: all three, in this order)
#
# check:   `bench prove --sizes 20 --verify-up-to 20 --device-memory 512MiB,card`: at 512 MiB A, L and H are
#          streamed and H split at 2^20 (the plan line says so); both budgets' proofs verified.
# test:    the gpu-marked test (tests/groth16/test_gpu_memory_budget.py): the pool never above the cap
#          during a proof at 2^16 under a budget that forces every streaming path; the proof equals the
#          unconstrained one and verifies.
# prove27: `bench prove --sizes 27 --repeat 1 --device-memory 16GiB,24GiB,card`: per budget the median
#          ms, the plan, and "device peak" (the driver's used bytes sampled every 20 ms, what nvidia-smi
#          reads); smi_peak after the step is the largest of the three (nvidia-smi itself).
#
# Environment: KIND=porep (the 2^27 step on partition 0 of Filecoin's real PoRep circuit, SIZE 32GiB, from a
# generated C1 output, instead of stamped SHA-256), BUDGETS (16GiB,24GiB,card), CHECK_S (120), PROVE27_S (what is left less TEST_S), TEST_S (90),
# and common.sh's (OUT, LOG, CALL_S: 585 s in all; the 2^27 step gets ~6 min: its synthesis ~2.5, the
# random key ~1, 10 proofs). Back under $OUT: log.txt, check.json, prove27.json,
# cache/ (at most 8 files: keep it so).
cd "$(dirname "$0")/../.." || exit 1
CURVES=${CURVES:-bls12_381}
. scripts/device/common.sh
[ $# -gt 0 ] || set -- check prove27 test
for step in "$@"; do
  echo "== $step" | tee -a "$LOG"; smi_start
  case $step in
    check) timeout "${CHECK_S:-120}" python3 -m cuzk bench prove --backend cuda --sizes 20 --verify-up-to 20 \
             --repeat 1 --device-memory 512MiB,card --json "$OUT/check.json" ;;
    test) timeout "${TEST_S:-$(left)}" python3 -m pytest -q -m gpu tests/groth16/test_gpu_memory_budget.py ;;
    prove27) what=(--sizes 27); [ -n "${KIND:-}" ] && what=(--kind "$KIND" --sector-size "${SIZE:-32GiB}")
             timeout "${PROVE27_S:-$(( $(left) - ${TEST_S:-90} ))}" python3 -m cuzk bench prove --backend cuda "${what[@]}" --repeat 1 \
               --device-memory "${BUDGETS:-16GiB,24GiB,card}" --json "$OUT/prove27.json" ;;
    *) echo "unknown step $step: check, test, prove27"; exit 2 ;;
  esac 2>&1 | tee -a "$LOG"
  smi_peak; save_cache
done
