#!/usr/bin/env bash
# The partition benchmark on the device machine (issue 43's figures): the kernel benchmark with sppark's
# ratios, one proof at 2^24 (three repeats), then a batch of proofs at 2^27, a 32 GiB PoRep partition's
# domain (stamped SHA-256 and a random key; KIND=porep or snap: partition 0 of Filecoin's real circuit of
# SIZE sectors), each with its GPU phases.
#
#   scripts/device/bench_partition.sh [kernels] [prove24] [prove27] [porep]   (default: the first three, in order)
#
# porep: partition 0 of Filecoin's real PoRep circuit (`bench prove --kind porep --sector-size SIZE`, from a
# generated C1 output decoded as the daemon decodes Curio's; random key), batches of PBATCH (1).
#
# Environment: BATCH (batch size at 2^27: 3; "3,10": both on one circuit), TRANSFER=pinned (each batch
# also with its witnesses already in pinned memory, as the engine's synthesis writes them), KIND (the 2^27
# step as `bench prove --kind KIND --sector-size SIZE`: porep or snap), SIZE (32GiB), PBATCH, POREP_S (what is left), KERNELS_S (280),
# PROVE24_S (150), and common.sh's (OUT, LOG, CURVES, CALL_S: the 2^27 step gets what is left).
# Back under $OUT: log.txt, kernels.json, prove24.json, prove27.json, cache/ (at most 8 files: keep it so).
cd "$(dirname "$0")/../.." || exit 1
CURVES=${CURVES:-bls12_381}
. scripts/device/common.sh
[ $# -gt 0 ] || set -- kernels prove24 prove27
for step in "$@"; do
  echo "== $step" | tee -a "$LOG"; smi_start
  case $step in
    kernels) timeout "${KERNELS_S:-280}" python3 -m cuzk bench kernels --backend cuda --curve bls12_381 \
               --json "$OUT/kernels.json" ;;
    prove24) timeout "${PROVE24_S:-150}" python3 -m cuzk bench prove --backend cuda --sizes 24 --repeat 3 \
               --json "$OUT/prove24.json" ;;
    prove27) if [ -n "${KIND:-}" ]; then what=(--kind "$KIND" --sector-size "${SIZE:-32GiB}"); else what=(--sizes 27); fi
             timeout "$(left)" python3 -m cuzk bench prove --backend cuda "${what[@]}" --batch "${BATCH:-3}" \
               --repeat 1 ${TRANSFER:+--transfer "$TRANSFER"} --json "$OUT/prove27.json" ;;
    porep) timeout "${POREP_S:-$(left)}" python3 -m cuzk bench prove --backend cuda --kind porep --sector-size "${SIZE:-32GiB}" \
             --batch "${PBATCH:-1}" --repeat 1 --json "$OUT/porep.json" ;;
    *) echo "unknown step $step: kernels, prove24, prove27, porep"; exit 2 ;;
  esac 2>&1 | tee -a "$LOG"
  smi_peak; save_cache
done
