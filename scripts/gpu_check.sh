#!/usr/bin/env bash
# One full GPU check on the device machine: install carried test wheels,
# compile the CUDA module, run the gpu conformance tests, run the GPU
# benchmarks. Everything lands under $OUT (JSON, logs). Usage:
#   scripts/gpu_check.sh [quick|full]     (quick: tests + small benchmarks)
set -u
MODE=${1:-full}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:. CUZK_CACHE_DIR=/tmp/cuzk-cache
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
{
  nvidia-smi -L
  python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
} 2>&1 | tee "$OUT/env.txt"

echo "== compile"
python3 - <<'PY' 2>&1 | tee "$OUT/compile.txt"
import time
from cuzk.backend.cuda.module import kernels
for c in ("bls12_381", "bn254"):
    t = time.time(); kernels(c); print(f"nvrtc {c}: {time.time() - t:.1f} s")
PY

echo "== tests"
timeout 420 python3 -m pytest -q -x -p no:cacheprovider tests/backend -k "cuda" -m "not slow" \
  --junitxml="$OUT/gpu_tests.xml" 2>&1 | tail -40 | tee "$OUT/gpu_tests.txt"
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests --junitxml="$OUT/gpu_marked.xml" 2>&1 | tail -30 \
  | tee "$OUT/gpu_marked.txt"

echo "== bench"
if [ "$MODE" = quick ]; then
  timeout 300 python3 - <<'PY' 2>&1 | tee "$OUT/bench_quick.txt"
from cuzk.bench import kernels
kernels.run("cuda", "/dev/null", sizes={"ntt": [1 << 20, 1 << 24], "msm_g1": [1 << 20, 1 << 22], "msm_g2": [1 << 20]},
            curves=("bls12_381",), repeat=5)
PY
else
  timeout 540 python3 -m cuzk bench kernels --backend cuda --curve bls12_381 --json "$OUT/kernels_cuda.json" 2>&1 \
    | tee "$OUT/bench_kernels.txt"
fi
