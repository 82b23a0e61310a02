#!/usr/bin/env bash
# Filecoin's proofs with deadlines, WinningPoSt and WindowPoSt, at 32 GiB on the device machine
# (`cuzk bench deadline`: one private daemon, every proof verified, submit -> proof per job).
#
#   scripts/device/post.sh params   TEST parameters of KINDS (and of porep with BACKGROUND=porep) into STATE:
#                                   WindowPoSt's and PoRep's are ~45 GB each, minutes each; a later call on
#                                   the same warm machine reads them (the 64 GiB disk holds one of the two)
#   scripts/device/post.sh alone    each of KINDS alone, warm: INJECT jobs of each, one at a time (WindowPoSt:
#                                   a full partition of 2349 sectors, as a deadline sends it)
#   scripts/device/post.sh mixed    SECTORS PoRep sectors alone, then again with INJECT jobs of each of KINDS
#                                   arriving at random moments
#   scripts/device/post.sh synth    `cuzk bench synth` of KINDS: request check and witness on the host's cores
#
# Carry `.whl` (scripts/fetch_gpu_wheels.sh: the device's grpcio 1.84 is older than the stubs need) and
# `.gpu-cache` (common.sh). WindowPoSt's 32 GiB TEST parameters do not fit the device's disk: its setup
# (230 s on an H100's host, peak RSS 84 GB) failed writing past the 56 GB free; ~74 GB by the circuit's
# counts (H 12.9, L 12.2, A 12.2, B G1 12.2, B G2 24.4 GB). Its partition's GPU time without a parameter
# file (a random key of the right shape, timing only): KIND=window-post scripts/device/bench_partition.sh prove27.
# Environment: KINDS (winning-post,window-post), PRESET (32GiB), INJECT (3), SECTORS (3), SYNTH (synthesis
# workers, 2), KT (kernel threads of each, 1 as the daemon's default and sector.sh; 0 = all cores), STATE (/tmp/cuzk-bench), and common.sh's.
# Back under $OUT: log.txt, deadline.json, deadline-trace.jsonl, cache/.
. "$(dirname "$0")/common.sh" bls12_381
STATE=${STATE:-/tmp/cuzk-bench}
KINDS=${KINDS:-winning-post,window-post}
PRESET=${PRESET:-32GiB}
deadline() {
  smi_start
  timeout "$(left)" python3 -m cuzk bench deadline --preset "$PRESET" --deadline "$KINDS" --inject "${INJECT:-3}" \
    --synthesis-threads "${SYNTH:-2}" --kernel-threads "${KT:-1}" --state-dir "$STATE" \
    --json "$OUT/deadline.json" --trace "$OUT/deadline-trace.jsonl" "$@" > /tmp/deadline.txt 2>&1
  echo "== bench deadline $*: exit $?" | tee -a "$LOG"
  tail -25 /tmp/deadline.txt | tee -a "$LOG"
  smi_peak
}
case "${1:-alone}" in
params)  # sector.sh's parameter step, a kind at a time
  for kind in ${KINDS//,/ } ${BACKGROUND:-}; do
    KIND=$kind PRESET=$PRESET STATE=$STATE bash scripts/device/sector.sh params  # common.sh moved to the root
  done
  ls -la "$STATE/params/filecoin" | tee -a "$LOG" ;;
alone) deadline --background none ;;
mixed) deadline --background porep --sectors "${SECTORS:-3}" ;;
synth)
  for kind in ${KINDS//,/ }; do
    timeout "$(left)" python3 -m cuzk bench synth --kind "$kind" --sector-size "$PRESET" --repeat 2 2>&1 | tail -20 \
      | tee -a "$LOG"
  done ;;
*) echo "usage: scripts/device/post.sh params|alone|mixed|synth" >&2; exit 2 ;;
esac
save_cache
