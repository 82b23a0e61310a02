#!/usr/bin/env bash
# Device profiling run: stage timings for MSM and NTT variants, then the MSM conformance tests.
set -u
OUT=${OUT:-/tmp/cuzk-out}
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:. CUZK_CACHE_DIR=/tmp/cuzk-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
timeout 300 python3 scripts/gpu_profile.py 2>&1 | tee "$OUT/profile.txt"
timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/backend/test_msm.py tests/backend/test_gpu_kernels.py -k "cuda or gpu_kernels" 2>&1 | tail -15 | tee "$OUT/msm_tests.txt"
