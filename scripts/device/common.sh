# Sourced by every device recipe (scripts/device/*.sh, lab/device/*.sh), from the repository root on the
# device machine: environment, carried wheels and caches, the kernel compile, and save_cache. A one-off
# command gets the same:  . scripts/device/common.sh && python3 -m cuzk bench ...; save_cache
#
# What comes back is limited: at most 8 files from $OUT (16 MiB each, 64 MiB in all, two folders down at
# most). So the caches travel as archives under $OUT/cache (CuPy's kernels one .tgz, the numba cache in
# 15 MiB parts: split -b 15M), never as folders of many files, and a recipe writes one log ($LOG: env,
# compile, tests, tables) beside a few JSON files. Copy $OUT/cache to .gpu-cache here and carry it next
# time: NVRTC takes 35-80 s a module cold. Kernels built here before the call (`scripts/prebuilt_kernels.py
# build .gpu-cache/prebuilt.tgz SPEC ...`, no GPU needed) are filed in CuPy's cache first, so no module
# whose source they match is compiled on the device.
#
# Carried paths it reads: .whl (wheels, installed into /tmp/site), .gpu-cache (prebuilt.tgz,
# cupy-cache.tgz, cuzk-cache.tgz.part-*). Environment: OUT (/tmp/cuzk-out), LOG ($OUT/log.txt),
# CURVES (the curves whose kernels the compile step loads: bls12_381,bn254), CALL_S (the seconds a recipe
# plans for, 585: `left` says what remains).
#
# Sourced as `. "$(dirname "$0")/common.sh" [CURVES]`: it moves to the repository root; the argument is the
# recipe's default for CURVES.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export CURVES=${CURVES:-${1:-bls12_381,bn254}}
OUT=${OUT:-/tmp/cuzk-out}
LOG=${LOG:-$OUT/log.txt}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:. CUZK_CACHE_DIR=/tmp/cuzk-cache CUPY_CACHE_DIR=$PWD/.cupy-cache
[ -f .gpu-cache/cupy-cache.tgz ] && tar -xzf .gpu-cache/cupy-cache.tgz
# the numba cache is CPU-specific (the device's emeraldrapids), so it is carried from the device's own runs
ls .gpu-cache/cuzk-cache.tgz.part-* >/dev/null 2>&1 && cat .gpu-cache/cuzk-cache.tgz.part-* | tar -xz -C /
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi

save_cache() {  # safe to call often: a call cut off by its limit still brings the compiled kernels back
  mkdir -p "$OUT/cache"
  tar -czf "$OUT/cache/cupy-cache.tgz" .cupy-cache 2>/dev/null
  rm -f "$OUT"/cache/cuzk-cache.tgz.part-*
  # compiled circuits (a 32g .pce is 6.4 GB) stay behind: only kernels travel
  tar -czf - --exclude=circuits /tmp/cuzk-cache 2>/dev/null | split -b 15M - "$OUT/cache/cuzk-cache.tgz.part-"
}
# peak device memory as the driver reports it (not our own counters): smi_start before a step, smi_peak after it
smi_start() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > /tmp/smi.txt 2>/dev/null & SMI_PID=$!; }
smi_peak() { kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null
  echo "peak device memory (nvidia-smi, 200 ms samples): $(sort -n /tmp/smi.txt | tail -1) MiB" | tee -a "$LOG"; }
left() { echo $(( ${CALL_S:-585} - SECONDS )); }  # seconds left of the call

{
  nvidia-smi -L
  python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
  [ -f .gpu-cache/prebuilt.tgz ] && python3 scripts/prebuilt_kernels.py seed .gpu-cache/prebuilt.tgz
  python3 - <<'PY'
import os, time
from cuzk.backend.cuda.module import kernels
for c in os.environ.get("CURVES", "bls12_381,bn254").split(","):
    t = time.time(); kernels(c); print(f"nvrtc {c}: {time.time() - t:.1f} s")
PY
} 2>&1 | tee -a "$LOG"
save_cache
