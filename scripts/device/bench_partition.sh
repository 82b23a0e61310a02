#!/usr/bin/env bash
# The partition benchmark on the device machine (issues 43 and 44): the kernel benchmark with sppark's
# ratios, one proof at 2^24 (three repeats), then proofs at 2^27, a 32 GiB PoRep partition's domain
# (stamped SHA-256 and a random key; KIND=porep or snap: partition 0 of Filecoin's real circuit of SIZE
# sectors), in a batch or under device-memory budgets, each with its GPU phases.
#
#   scripts/device/bench_partition.sh [kernels] [prove24] [prove27] [check] [memtest]   (default: the first three)
#
# prove27: a batch of BATCH proofs; with BUDGETS (e.g. 16GiB,24GiB,card) one proof per budget in one process
#          (one circuit, witness and key), each with its plan and "device peak" (the driver's used bytes
#          sampled every 20 ms); smi_peak after the step is the largest (nvidia-smi itself).
# check:   `bench prove --sizes 20 --verify-up-to 20 --device-memory 512MiB,card`: at 512 MiB A, L and H are
#          streamed and H split at 2^20; both budgets' proofs verified.
# memtest: the gpu-marked test tests/groth16/test_gpu_memory_budget.py (the pool never above its cap under
#          a budget that forces every streaming path; the proof equals the unconstrained one).
#
# Environment: KIND (porep or snap), SIZE (32GiB), BATCH (batch size at 2^27: 3; "3,10": both on one
# circuit), BUDGETS, TRANSFER=pinned (each batch also with its witnesses already in pinned memory, as the
# engine's synthesis writes them), KERNELS_S (280), PROVE24_S (150), CHECK_S (120), MEMTEST_S (90),
# PROVE27_S (what is left, less MEMTEST_S where memtest follows), and common.sh's (OUT, LOG, CURVES,
# CALL_S). The real 32 GiB PoRep circuit's synthesis takes ~2.5 min of the call, its random key ~1 min.
# Back under $OUT: log.txt, kernels.json, prove24.json, prove27.json, check.json, cache/ (at most 8 files).
. "$(dirname "$0")/common.sh" bls12_381
[ $# -gt 0 ] || set -- kernels prove24 prove27
case " $* " in *" memtest "*) reserve=${MEMTEST_S:-90} ;; *) reserve=0 ;; esac
for step in "$@"; do
  echo "== $step" | tee -a "$LOG"; smi_start
  case $step in
    kernels) timeout "${KERNELS_S:-280}" python3 -m cuzk bench kernels --backend cuda --curve bls12_381 \
               --json "$OUT/kernels.json" ;;
    prove24) timeout "${PROVE24_S:-150}" python3 -m cuzk bench prove --backend cuda --sizes 24 --repeat 3 \
               --json "$OUT/prove24.json" ;;
    prove27) if [ -n "${KIND:-}" ]; then what=(--kind "$KIND" --sector-size "${SIZE:-32GiB}"); else what=(--sizes 27); fi
             if [ -n "${BUDGETS:-}" ]; then what+=(--device-memory "$BUDGETS"); else what+=(--batch "${BATCH:-3}"); fi
             timeout "${PROVE27_S:-$(( $(left) - reserve ))}" python3 -m cuzk bench prove --backend cuda "${what[@]}" \
               --repeat 1 ${TRANSFER:+--transfer "$TRANSFER"} --json "$OUT/prove27.json" ;;
    check) timeout "${CHECK_S:-120}" python3 -m cuzk bench prove --backend cuda --sizes 20 --verify-up-to 20 \
             --repeat 1 --device-memory 512MiB,card --json "$OUT/check.json" ;;
    memtest) timeout "${MEMTEST_S:-$(left)}" python3 -m pytest -q -m gpu tests/groth16/test_gpu_memory_budget.py ;;
    *) echo "unknown step $step: kernels, prove24, prove27, check, memtest"; exit 2 ;;
  esac 2>&1 | tee -a "$LOG"
  smi_peak; save_cache
done
