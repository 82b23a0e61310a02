#!/usr/bin/env bash
# Filecoin's proofs with deadlines, WinningPoSt and WindowPoSt, at 32 GiB on the device machine.
#
#   scripts/device/post.sh params   TEST parameters of KINDS into STATE (WindowPoSt's are ~45 GB: minutes;
#                                   a later call on the same warm machine reads them)
#   scripts/device/post.sh alone    each of KINDS alone through a private daemon: a warm-up job, then ROUNDS
#                                   jobs one at a time, each a Curio-shaped request (WindowPoSt: a full
#                                   partition of 2349 sectors), submit -> proof per job, every proof verified
#
# Environment: KINDS (winning-post,window-post), PRESET (32GiB), ROUNDS (3), SYNTH (synthesis workers, 2),
# KT (kernel threads of each synthesis worker, 0 = all cores), STATE (/tmp/cuzk-bench), and common.sh's.
# Back under $OUT: log.txt, KIND.json and KIND-trace.jsonl per kind, cache/.
. "$(dirname "$0")/common.sh" bls12_381
STATE=${STATE:-/tmp/cuzk-bench}
KINDS=${KINDS:-winning-post,window-post}
PRESET=${PRESET:-32GiB}
case "${1:-alone}" in
params)
  for kind in ${KINDS//,/ }; do
    KIND=$kind PRESET=$PRESET STATE=$STATE /usr/bin/time -f "$kind parameters: %e s, peak RSS %M KiB" python3 -c "
import os; from pathlib import Path
from cuzk.bench import filecoin_params; from cuzk.bench.circuit_inputs import resolve
cid, spec = resolve(os.environ['KIND'], os.environ['PRESET'])
filecoin_params.ensure(Path(os.environ['STATE']) / 'params' / 'filecoin', [spec])" 2>&1 | tee -a "$LOG"
  done
  ls -la "$STATE/params/filecoin" | tee -a "$LOG"; df -h "$STATE" | tail -1 | tee -a "$LOG" ;;
alone)
  for kind in ${KINDS//,/ }; do
    smi_start
    timeout "$(left)" python3 -m cuzk bench batch --compare --modes pipelined --kind "$kind" --preset "$PRESET" \
      --count 1 --rounds "${ROUNDS:-3}" --synthesis-threads "${SYNTH:-2}" --kernel-threads "${KT:-0}" \
      --state-dir "$STATE" --json "$OUT/$kind.json" --trace "$OUT/$kind-trace.jsonl" > "/tmp/$kind.txt" 2>&1
    echo "== $kind alone: exit $?" | tee -a "$LOG"
    tail -30 "/tmp/$kind.txt" | tee -a "$LOG"
    smi_peak
  done ;;
*) echo "usage: scripts/device/post.sh params|alone" >&2; exit 2 ;;
esac
save_cache
