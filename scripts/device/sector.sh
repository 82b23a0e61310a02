#!/usr/bin/env bash
# A 32 GiB sector through daemons on the device machine: `cuzk bench batch --compare` starts private
# daemons (parameters made on the GPU in this run) and proves COUNT sectors one at a time in each of
# MODES, each sector a Curio-shaped POREP_SEAL_COMMIT request (a generated C1 output) of ten partitions of
# Filecoin's real PoRep circuit; then, in the time left, the GPU engine tests the sector run did not exercise.
#
#   scripts/device/sector.sh            the sector run (parameters made first where STATE lacks them)
#   scripts/device/sector.sh params     only the parameters, into STATE: a 32 GiB set (compile, generate on the
#                                       GPU, write 47.5 GB) takes minutes, so one call can make them and the next,
#                                       on the same warm machine, run the sectors (STATE inside the checkout, an
#                                       ignored path, survives between calls on a warm machine)
#
# Environment: KIND (porep, or snap: a SnapDeals update of sixteen partitions), PRESET (32GiB), COUNT (2), MODES (pipelined,pipelined+batched), BATCH (batch size, 2), SYNTH
# (synthesis threads, 2), GPU_WORKERS (prover workers on the card, 2), DEVICE_MEMORY (the card's budget, e.g. 24GiB: auto), STATE (the daemons' state and parameter folder, /tmp/cuzk-bench), SECTOR_S (seconds the sector run may take, 480: past it the daemons' stacks and
# logs are saved and they are stopped), SECTOR_TESTS (the pytest arguments after it: the engine and
# prefetch tests), and common.sh's (OUT, LOG, CURVES, CALL_S).
# Back under $OUT: log.txt (the tables), sector.json, sector_trace.jsonl, daemon_logs.txt (if cut off), cache/.
. "$(dirname "$0")/common.sh" bls12_381
STATE=${STATE:-/tmp/cuzk-bench}
if [ "${1:-}" = params ]; then
  KIND=${KIND:-porep} PRESET=${PRESET:-32GiB} STATE=$STATE /usr/bin/time -f "parameters: %e s, peak RSS %M KiB" python3 -c "
import os; from pathlib import Path
from cuzk.bench import filecoin_params; from cuzk.bench.circuit_inputs import resolve
cid, spec = resolve(os.environ['KIND'], os.environ['PRESET'])
filecoin_params.ensure(Path(os.environ['STATE']) / 'params' / 'filecoin', [spec])" 2>&1 | tee -a "$LOG"
  df -h "$STATE" | tail -1 | tee -a "$LOG"; save_cache; exit 0
fi
smi_start
python3 -m cuzk bench batch --compare --kind "${KIND:-porep}" --preset "${PRESET:-32GiB}" \
  --count "${COUNT:-2}" --rounds 1 --modes "${MODES:-pipelined,pipelined+batched}" --batch-size "${BATCH:-2}" \
  --synthesis-threads "${SYNTH:-2}" --gpu-workers "${GPU_WORKERS:-2}" --device-memory "${DEVICE_MEMORY:-auto}" --state-dir "$STATE" --json "$OUT/sector.json" \
  --trace "$OUT/sector_trace.jsonl" > /tmp/sector_full.txt 2>&1 &
bench=$!
while kill -0 $bench 2>/dev/null && [ $SECONDS -lt "${SECTOR_S:-480}" ]; do sleep 2; done
if kill -0 $bench 2>/dev/null; then  # cut off: the daemons' stacks and logs say where it was
  for pid in $(pgrep -f "cuzk daemon"); do kill -USR1 "$pid"; done; sleep 3
  for f in $(find "$STATE" -name daemon.log); do echo "== $f"; tail -c 12000 "$f"; done > "$OUT/daemon_logs.txt"
  for pid in $(pgrep -f "cuzk daemon"); do kill "$pid"; done; kill $bench
fi
wait $bench
{ grep -v "in flight" /tmp/sector_full.txt | tail -40; grep "in flight" /tmp/sector_full.txt | tail -3
  df -h /tmp | tail -1; } | tee -a "$LOG"
smi_peak; save_cache
if [ "$(left)" -gt 30 ]; then
  timeout "$(left)" python3 -m pytest -q -p no:cacheprovider -m gpu \
    ${SECTOR_TESTS:-tests/engine/test_engine.py tests/groth16/test_prove_batch_prefetch.py} --durations=6 2>&1 \
    | tail -12 | tee -a "$LOG"
fi
save_cache
