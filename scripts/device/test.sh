#!/usr/bin/env bash
# The GPU tests on the device machine: load (or compile) the kernels, then every gpu-marked test, then the
# backend conformance tests on cuda (parametrized over backends, so not gpu-marked at collection).
#
#   scripts/device/test.sh [PYTEST_ARGS ...]      (default: -m gpu tests)
#
# e.g. `scripts/device/test.sh -m gpu tests/backend tests/groth16` for the kernel, table and Groth16 tests
# alone. Environment: TESTS_S (seconds for the first run, 420), CONFORMANCE_S (120; 0 skips the second),
# and common.sh's (OUT, LOG, CURVES). Back under $OUT: log.txt, cache/.
. "$(dirname "$0")/common.sh" bls12_381,bn254
[ $# -gt 0 ] || set -- -m gpu tests
echo "== pytest $*" | tee -a "$LOG"
timeout "${TESTS_S:-420}" python3 -m pytest -q -p no:cacheprovider "$@" --durations=10 2>&1 | tail -30 | tee -a "$LOG"
save_cache
if [ "${CONFORMANCE_S:-120}" -gt 0 ]; then
  echo "== conformance on cuda" | tee -a "$LOG"
  timeout "${CONFORMANCE_S:-120}" python3 -m pytest -q -p no:cacheprovider tests/backend tests/groth16 -k cuda \
    -m "not slow and not gpu" 2>&1 | tail -12 | tee -a "$LOG"
fi
save_cache
