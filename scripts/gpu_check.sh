#!/usr/bin/env bash
# One full GPU check on the device machine: install carried test wheels,
# compile the CUDA module, run the gpu conformance tests, run the GPU
# benchmarks. Everything lands under $OUT (JSON, logs). Usage:
#   scripts/gpu_check.sh [quick|tune|msm|tables|kernels|prove|full|gpus]
#   tests: the GPU tests only; quick: tests + small benchmarks; tune: MSM kernel variants + tests; kernels: tests + the kernel
#   benchmark; prove: the proof benchmark; full: all (may exceed one 600 s device call);
#   partition: kernel, table and Groth16 GPU tests, bench prove 2^24 and a batch of 3 at 2^27 (issue 16); latency: bench latency --resident cuda (issue 19);
#   sector: a 32g sector through daemons, one at a time (PRESET, COUNT, MODES, BATCH, SYNTH), then GPU engine tests
#   (SECTOR_TESTS: others) in the time left (CALL_S), AB_NTT=1: then ntt_ab; CURVES: the curves whose kernels the compile step builds;
#   final: GPU kernel/table/Groth16/pairing tests, bench aggregate (AGG_S=0 skips it), bench latency 2^20 (resident cuda,
#   rapidsnark in .anchors/);
#   prove24: bench prove 2^18 (verified) and 2^24, three proofs each; prove27: bench prove 2^27, batches of BATCH (3);
#   porep: bench prove --kind porep-c2-like (PRESET, default 32g: a sector's 2^27 partition; random key) batch of BATCH,
#   then the GPU kernel/table/Groth16/pairing tests in the time left;
#   sweep: bench aggregate n = 64..8192 (cuda), then bench prove 2^27 batch of 3 (PROVE27=0 skips it);
#   aggregate: pairing-module compile, GPU pairing tests, bench aggregate 1024,8192 on cuda (issue 20);
#   profile: msm_variants at LOGS (VARIANT=name:-DX adds a variant module), then Nsight Compute on one MSM and the NTTs
#   at 2^NCU_LOG (scripts/ncu_kernels.py; the warm-up call's 15 launches skipped);
#   ab: GPU kernel/table/Groth16/NTT tests, msm_variants A/B (VARIANT, MSM_ARGS, LOGS), MSM_AB=1: msm_variants stages of
#   the tree before (.ab/old) and this one (MSM_AB_RUNS), NTT_PLANS=7x256,8x256: ntt_variants, then the NTT benchmark rows
#   of the tree before and this one (KERNELS=1: the whole kernel benchmark instead; NO_NTT=1: neither);
#   gputests: every gpu-marked test (TESTS_S); msm: MSM tests, stages and rows; setup: GPU parameter generation (tests, bench prove with real keys up to SIZES); gpus: --compare-gpus (two-GPU machine; KIND, PRESET, COUNT, SYNTH)
set -u
MODE=${1:-full}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:. CUZK_CACHE_DIR=/tmp/cuzk-cache
# CuPy's compiled kernels and the numba cache travel back as two archives under $OUT/cache (at most 8
# files come back from $OUT, so no folders of many files); copy that folder to .gpu-cache here and
# carry it next time: NVRTC takes 35-80 s cold. Kernels built here before the call
# (`scripts/prebuilt_kernels.py build .gpu-cache/prebuilt.tgz SPEC ...`, no GPU needed) are filed in
# CuPy's cache first, so no module whose source they match is compiled on the device
export CUPY_CACHE_DIR=$PWD/.cupy-cache
[ -f .gpu-cache/cupy-cache.tgz ] && tar -xzf .gpu-cache/cupy-cache.tgz
[ -f .gpu-cache/prebuilt.tgz ] && python3 scripts/prebuilt_kernels.py seed .gpu-cache/prebuilt.tgz > /tmp/seed.txt 2>&1
# the numba cache is CPU-specific (this machine's emeraldrapids): it comes back in 15 MiB parts (16 MiB a file)
ls .gpu-cache/cuzk-cache.tgz.part-* >/dev/null 2>&1 && cat .gpu-cache/cuzk-cache.tgz.part-* | tar -xz -C /
save_cache() {
  mkdir -p "$OUT/cache"
  tar -czf "$OUT/cache/cupy-cache.tgz" .cupy-cache 2>/dev/null
  rm -f "$OUT"/cache/cuzk-cache.tgz.part-*
  # compiled circuits (a 32g .pce is 6.4 GB) stay behind: only kernels travel
  tar -czf - --exclude=circuits /tmp/cuzk-cache 2>/dev/null | split -b 15M - "$OUT/cache/cuzk-cache.tgz.part-"
}
gpu_kernel_tests() {  # the kernel, window-table and Groth16 GPU tests; $1: where their summary goes
  timeout ${TESTS_S:-200} python3 -m pytest -q -p no:cacheprovider -m gpu tests/backend/test_gpu_kernels.py \
    tests/backend/test_gpu_tables.py tests/groth16/test_groth16.py tests/aggregate/test_gpu_pairings.py --durations=8 2>&1 \
    | tail -14 | tee "$1"
}
# issue 19 item 4: a daemon-resident circom circuit (2^20) on the GPU against rapidsnark on the host's cores;
# rapidsnark is not in the repository: copy ../shared/anchors/rapidsnark/prover to .anchors/ (ignored) and carry it
bench_latency() {  # $1: seconds
  timeout "$1" python3 -m cuzk bench latency --sizes ${SIZES:-20} --repeat ${REPEAT:-3} --resident cuda \
    --rapidsnark "${RAPIDSNARK:-.anchors/prover}" --dir /tmp/cuzk-latency --json "$OUT/latency.json" 2>&1 \
    | tee "$OUT/latency.txt"
}
ntt_ab() {  # $1: file to append to. The NTT rows of the kernel benchmark for the tree before (.ab/old: `git archive
  # HEAD~ cuzk`, carried) and this one, each from its own directory (python -c puts the working directory first on sys.path)
  for tree in old new; do
    dir=.; [ $tree = old ] && dir=.ab/old
    [ -d "$dir/cuzk" ] || continue
    echo "== NTT, $tree tree" | tee -a "$1"
    (cd "$dir" && PYTHONPATH=/tmp/site timeout ${NTT_S:-100} python3 -c "from cuzk.bench import kernels; kernels.run('cuda', None, sizes={'ntt': [1 << k for k in (20, 22, 24, 26, 27)]}, curves=('bls12_381',), repeat=7)" \
      2>&1 | head -12 | tee -a "$1")
  done
}
msm_ab() {  # $1: file to append to. msm_variants --quick (stages) for the tree before (.ab/old) and this one; MSM_AB_RUNS:
  # its arguments (options, output JSON, log_n), runs separated by |
  for tree in old new; do
    dir=.; [ $tree = old ] && dir=.ab/old
    [ -d "$dir/cuzk" ] || continue
    echo "== MSM, $tree tree" | tee -a "$1"
    IFS='|' read -ra runs <<< "${MSM_AB_RUNS:---c 16,20 --tables 20 /dev/null 24|--c 20 /dev/null 26}"
    for args in "${runs[@]}"; do
      (cd "$dir" && PYTHONPATH=/tmp/site timeout ${MSM_AB_S:-120} python3 -m cuzk.bench.msm_variants --quick $args \
        2>&1 | grep -v "^compiled" | tee -a "$1")
    done
  done
}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
{
  nvidia-smi -L
  python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
} 2>&1 | tee "$OUT/env.txt"

echo "== compile"
{ cat /tmp/seed.txt 2>/dev/null; python3 - <<'PY'; } 2>&1 | tee "$OUT/compile.txt"
import time
from cuzk.backend.cuda.module import kernels
import os
for c in os.environ.get("CURVES", "bls12_381,bn254").split(","):
    t = time.time(); kernels(c); print(f"nvrtc {c}: {time.time() - t:.1f} s")
PY
save_cache  # a call cut off by the 600 s limit still brings the compiled kernels back

if [ "$MODE" = gpus ]; then  # issue 8, on a two-GPU machine: one GPU against all of them
  timeout 560 python3 -m cuzk bench batch --compare-gpus --kind "${KIND:-porep-c2-like}" --preset "${PRESET:-small}" \
    --count "${COUNT:-16}" --rounds 2 --synthesis-threads "${SYNTH:-8}" --json "$OUT/compare_gpus.json" 2>&1 \
    | tail -40 | tee "$OUT/compare_gpus.txt"
  save_cache; exit 0
fi
if [ "$MODE" = sector ]; then  # issue 17: a 32g sector through daemons (parameters made on the GPU in this run)
  python3 -m cuzk bench batch --compare --kind porep-c2-like --preset "${PRESET:-32g}" \
    --count "${COUNT:-2}" --rounds 1 --modes "${MODES:-pipelined,pipelined+batched}" --batch-size "${BATCH:-2}" \
    --synthesis-threads "${SYNTH:-2}" --state-dir /tmp/cuzk-bench --json "$OUT/sector.json" \
    --trace "$OUT/sector_trace.jsonl" > "$OUT/sector_full.txt" 2>&1 &
  bench=$!
  while kill -0 $bench 2>/dev/null && [ $SECONDS -lt ${SECTOR_S:-480} ]; do sleep 2; done
  if kill -0 $bench 2>/dev/null; then  # cut off: the daemons' stacks and logs say where it was
    pkill -USR1 -f "cuzk daemon"; sleep 3
    for f in $(find /tmp/cuzk-bench -name daemon.log); do echo "== $f"; tail -c 12000 "$f"; done > "$OUT/daemon_logs.txt"
    pkill -f "cuzk daemon"; kill $bench
  fi
  wait $bench
  grep -v "in flight" "$OUT/sector_full.txt" | tail -40 > "$OUT/sector.txt"
  grep "in flight" "$OUT/sector_full.txt" | tail -3 >> "$OUT/sector.txt"; rm -f "$OUT/sector_full.txt"
  cat "$OUT/sector.txt"
  df -h /tmp | tail -1 >> "$OUT/sector.txt"
  left=$(( ${CALL_S:-590} - SECONDS ))  # the GPU tests the sector run did not exercise, in what time is left
  # SECTOR_TESTS: other pytest arguments (e.g. the kernel tests after a kernel change)
  [ "$left" -gt 30 ] && timeout "$left" python3 -m pytest -q -p no:cacheprovider -m gpu \
    ${SECTOR_TESTS:-tests/engine/test_engine.py tests/groth16/test_prove_batch_prefetch.py} --durations=6 2>&1 \
    | tail -12 | tee -a "$OUT/sector.txt"
  save_cache
  [ -n "${AB_NTT:-}" ] && ntt_ab "$OUT/sector.txt"
  cat "$OUT/env.txt" "$OUT/compile.txt" >> "$OUT/sector.txt"; rm -f "$OUT/env.txt" "$OUT/compile.txt"  # 8 files come back
  exit 0
fi
if [ "$MODE" = profile ]; then  # issue 16: accumulate with / without prefetch, then Nsight Compute on the hot kernels
  timeout 240 python3 -m cuzk.bench.msm_variants --quick ${VARIANT:+--variant "$VARIANT"} "$OUT/msm_variants.json" \
    ${LOGS:-24 26} 2>&1 | tee "$OUT/msm_variants.txt"
  save_cache
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  echo "ncu: $NCU" | tee "$OUT/ncu.txt"
  timeout $(( ${CALL_S:-585} - SECONDS )) "$NCU" --clock-control none --target-processes all \
    -k 'regex:g1_msm_accumulate|msm_digits|msm_scatter|g1_msm_reduce|fr_ntt_dif_pass|fr_ntt_dif_last|fr_mul_powers' \
    --launch-skip 15 --launch-count 15 --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    python3 scripts/ncu_kernels.py ${NCU_LOG:-24} >> "$OUT/ncu.txt" 2>&1
  tail -5 "$OUT/ncu.txt"; exit 0
fi
if [ "$MODE" = ab ]; then  # a kernel change against the tree before it: .ab/old holds `git archive HEAD~ cuzk` (carried)
  # one text file (ab.txt) beside the caches: at most 8 files come back
  cat "$OUT/env.txt" "$OUT/compile.txt" > "$OUT/ab.txt"; rm -f "$OUT/env.txt" "$OUT/compile.txt"
  timeout ${TESTS_S:-240} python3 -m pytest -q -p no:cacheprovider tests/backend/test_gpu_kernels.py \
    tests/backend/test_gpu_tables.py tests/groth16/test_groth16.py tests/backend/test_ntt.py -k "cuda or gpu" -m "gpu or not slow" \
    --durations=6 2>&1 | tail -12 | tee -a "$OUT/ab.txt"
  save_cache
  # MSM_ARGS: more msm_variants options (further --variant NAME:-DX, --c, --groups)
  [ -n "${VARIANT:-}${MSM_ARGS:-}" ] && timeout ${VARIANT_S:-200} python3 -m cuzk.bench.msm_variants --quick \
    ${VARIANT:+--variant "$VARIANT"} ${MSM_ARGS:-} /dev/null ${LOGS:-24 26} 2>&1 | tee -a "$OUT/ab.txt"
  [ -n "${MSM_AB:-}" ] && msm_ab "$OUT/ab.txt"
  [ -n "${NTT_PLANS:-}" ] && timeout ${NTT_PLANS_S:-150} python3 -m cuzk.bench.ntt_variants --plans "$NTT_PLANS" \
    2>&1 | tee -a "$OUT/ab.txt"
  if [ -n "${NO_NTT:-}" ]; then :
  elif [ -n "${KERNELS:-}" ]; then  # the whole kernel benchmark (sppark ratios) instead of the NTT rows' A/B
    timeout ${KERNELS_S:-280} python3 -m cuzk bench kernels --backend cuda --curve bls12_381 2>&1 | grep -v "^ *|" \
      | tee -a "$OUT/ab.txt"
  else
    ntt_ab "$OUT/ab.txt"
  fi
  save_cache; exit 0
fi
if [ "$MODE" = partition ]; then  # issue 16: GPU kernel tests, one proof at 2^24, a batch of 3 at 2^27
  gpu_kernel_tests "$OUT/partition_tests.txt"
  timeout 120 python3 -m cuzk bench prove --backend cuda --sizes 24 --repeat 3 --json "$OUT/prove24.json" 2>&1 \
    | tee "$OUT/bench_prove24.txt"
  save_cache
  timeout $(( ${CALL_S:-580} - SECONDS )) python3 -m cuzk bench prove --backend cuda --sizes 27 --batch 3 --repeat 1 \
    --json "$OUT/prove27_batch3.json" 2>&1 | tee "$OUT/bench_prove27.txt"
  exit 0
fi
if [ "$MODE" = gputests ]; then  # every gpu-marked test of the suite (engine, prefetch, fixed base, pairings, kernels)
  timeout ${TESTS_S:-480} python3 -m pytest -q -p no:cacheprovider -m gpu tests --durations=10 2>&1 | tail -24 \
    | tee "$OUT/gputests.txt"
  save_cache; exit 0
fi
if [ "$MODE" = prove27 ]; then  # issue 16's partition figure: batches of BATCH (3; 3,10: both on one circuit) at 2^27 (stamped SHA-256, random key), ~130 s;
  # TRANSFER=pinned: each batch also with every witness already in pinned memory, where the engine's synthesis writes it
  timeout ${PROVE_S:-420} python3 -m cuzk bench prove --backend cuda --sizes 27 --batch "${BATCH:-3}" --repeat 1 ${TRANSFER:+--transfer $TRANSFER} \
    --json "$OUT/prove27.json" 2>&1 | tee "$OUT/bench_prove27.txt"
  save_cache; exit 0
fi
if [ "$MODE" = prove24 ]; then  # issue 16's proof rows at 2^18 (real setup, verified) and 2^24 (random key), nothing else
  timeout ${PROVE_S:-240} python3 -m cuzk bench prove --backend cuda --sizes 18,24 --verify-up-to 18 --repeat 3 \
    --json "$OUT/prove24.json" 2>&1 | tee "$OUT/bench_prove24.txt"
  save_cache; exit 0
fi
if [ "$MODE" = porep ]; then  # issues 16/17: the daemon's workload partition per phase, then the GPU tests
  timeout ${POREP_S:-330} python3 -m cuzk bench prove --backend cuda --kind porep-c2-like --preset "${PRESET:-32g}" \
    --batch "${BATCH:-3}" --repeat 1 --json "$OUT/porep.json" 2>&1 | tee "$OUT/bench_porep.txt"
  save_cache
  TESTS_S=$(( ${CALL_S:-585} - SECONDS - 20 )) gpu_kernel_tests "$OUT/porep_tests.txt"
  save_cache; exit 0
fi
if [ "$MODE" = latency ]; then  # issue 19 item 4: a daemon-resident circom circuit of 2^20 against rapidsnark
  bench_latency ${CALL_LEFT_S:-500}
  save_cache; exit 0
fi
if [ "$MODE" = final ]; then  # GPU tests, then issue 19's H200 latency and issue 20's aggregation on this host
  gpu_kernel_tests "$OUT/final_tests.txt"
  save_cache
  if [ "${AGG_S:-220}" -gt 0 ]; then
    timeout ${AGG_S:-220} python3 -m cuzk bench aggregate --sizes ${AGG_SIZES:-1024,8192} --backend cuda --repeat 3 \
      --json "$OUT/aggregate.json" 2>&1 | tee "$OUT/aggregate.txt"
  fi
  bench_latency $(( ${CALL_S:-580} - SECONDS ))
  exit 0
fi
if [ "$MODE" = aggregate ]; then  # issue 20: pairing products on the GPU (tests), then bench aggregate on this host
  python3 - <<'PY' 2>&1 | tee -a "$OUT/compile.txt"
import time
from cuzk.backend.cuda.pairing import _module
for c in ("bls12_381", "bn254"):
    t = time.time(); _module(c); print(f"nvrtc pairing {c}: {time.time() - t:.1f} s")
PY
  save_cache
  timeout ${TESTS_S:-300} python3 -m pytest -q -p no:cacheprovider -m gpu tests/aggregate/test_gpu_pairings.py \
    --durations=6 2>&1 | tail -12 | tee "$OUT/aggregate_tests.txt"
  save_cache
  timeout $(( ${CALL_S:-585} - SECONDS )) python3 -m cuzk bench aggregate --sizes ${AGG_SIZES:-1024,8192} \
    --backend cuda --repeat 3 --json "$OUT/aggregate.json" 2>&1 | tee "$OUT/aggregate.txt"
  nproc >> "$OUT/aggregate.txt"
  save_cache; du -sh "$OUT"/cache/* >> "$OUT/aggregate.txt"; exit 0
fi
if [ "$MODE" = sweep ]; then  # issue 20's n = 64..8192 on this host, then issue 16's 2^27 batch of 3 (host laps, device phases)
  [ -n "${PAIRING_TESTS:-}" ] && timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu \
    tests/aggregate/test_gpu_pairings.py --durations=4 2>&1 | tail -8 | tee "$OUT/pairing_tests.txt"
  timeout ${AGG_S:-240} python3 -m cuzk bench aggregate --backend cuda --repeat 3 --json "$OUT/aggregate.json" 2>&1 \
    | tee "$OUT/aggregate.txt"
  save_cache  # numba kernels the bench compiled (a changed module costs ~130 s cold here)
  [ "${PROVE27:-1}" = 1 ] && timeout $(( ${CALL_S:-585} - SECONDS )) python3 -m cuzk bench prove --backend cuda --sizes 27 \
    --batch 3 --repeat 1 --json "$OUT/prove27_batch3.json" 2>&1 | tee "$OUT/bench_prove27.txt"
  exit 0
fi
if [ "$MODE" = setup ]; then  # issue 17: parameters made on the GPU (fixed-base kernel), engine's device rows
  [ -n "${NOTEST:-}" ] || timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/backend/test_gpu_fixed_base.py \
    tests/groth16/test_groth16.py tests/engine/test_engine.py --durations=8 2>&1 | tail -20 | tee "$OUT/setup_tests.txt"
  timeout ${SETUP_BENCH_S:-300} python3 -m cuzk bench prove --backend cuda --sizes ${SIZES:-20,24} --verify-up-to 27 \
    --repeat 2 --json "$OUT/prove_setup.json" 2>&1 | tee "$OUT/bench_setup.txt"
  save_cache; exit 0
fi
if [ "$MODE" = tables ]; then  # MSM window tables: conformance, then widths x sizes against the plain MSM
  [ -n "${NOTEST:-}" ] || timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/backend/test_gpu_tables.py tests/backend/test_gpu_kernels.py \
    -k "table or msm" 2>&1 | tail -8 | tee "$OUT/table_tests.txt"
  # TABLES: widths, C:S for a row every S windows (20:7 at 2^27: 2 rows); MSM_C: the plain rows' widths
  timeout ${TABLES_S:-240} python3 -m cuzk.bench.msm_variants --quick --tables ${TABLES:-8,16,20} ${MSM_C:+--c $MSM_C} \
    "$OUT/msm_tables.json" ${LOGS:-20 22 24} 2>&1 | tee "$OUT/msm_tables.txt"
  save_cache; exit 0
fi
if [ "$MODE" = msm ]; then  # MSM only: conformance, stage breakdown, the kernel benchmark's MSM G1 rows
  timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/backend/test_msm.py tests/backend/test_gpu_kernels.py \
    -k "cuda or gpu" 2>&1 | tail -8 | tee "$OUT/msm_tests.txt"
  timeout 120 python3 -m cuzk.bench.msm_variants --quick "$OUT/msm_stages.json" 22 24 2>&1 | tee "$OUT/msm_stages.txt"
  timeout 200 python3 - <<'PY' 2>&1 | tee "$OUT/bench_msm.txt"
from cuzk.bench import kernels
kernels.run("cuda", None, sizes={"msm_g1": [1 << 20, 1 << 22, 1 << 24, 1 << 26], "msm_g2": [1 << 20, 1 << 22]},
            curves=("bls12_381",), repeat=5)
PY
  save_cache; exit 0
fi
if [ "$MODE" = tune ]; then  # variants first: the 600 s call limit
  echo "== msm variants"
  timeout 240 python3 -m cuzk.bench.msm_variants "$OUT/msm_variants.json" 22 24 2>&1 | tee "$OUT/msm_variants.txt"
  timeout 240 python3 -m pytest -q -x -p no:cacheprovider tests/backend -k "cuda" -m "not slow" 2>&1 | tail -30 \
    | tee "$OUT/gpu_tests.txt"
  save_cache; exit 0
fi

if [ "$MODE" != prove ]; then
  echo "== tests"
  timeout ${GPU_MARKED_S:-300} python3 -m pytest -q -p no:cacheprovider -m gpu tests/backend tests/groth16 \
    --durations=15 --junitxml="$OUT/gpu_marked.xml" 2>&1 | tail -40 | tee "$OUT/gpu_marked.txt"
  timeout ${GPU_OTHER_S:-200} python3 -m pytest -q -p no:cacheprovider tests/backend -k "cuda" -m "not slow and not gpu" \
    --junitxml="$OUT/gpu_tests.xml" 2>&1 | tail -20 | tee "$OUT/gpu_tests.txt"
fi

echo "== bench"
if [ "$MODE" = quick ]; then
  timeout 200 python3 - <<'PY' 2>&1 | tee "$OUT/bench_quick.txt"
from cuzk.bench import kernels
kernels.run("cuda", "/dev/null", sizes={"ntt": [1 << 20, 1 << 24], "msm_g1": [1 << 20, 1 << 22, 1 << 24], "msm_g2": [1 << 20]},
            curves=("bls12_381",), repeat=5)
PY
fi
if [ "$MODE" = full ] || [ "$MODE" = kernels ]; then
  timeout 280 python3 -m cuzk bench kernels --backend cuda --curve bls12_381 --json "$OUT/kernels_cuda.json" 2>&1 \
    | tee "$OUT/bench_kernels.txt"
fi
if [ "$MODE" = full ] || [ "$MODE" = prove ]; then
  timeout 300 python3 -m cuzk bench prove --backend cuda --sizes 18,20,22,24 --verify-up-to 18 \
    --json "$OUT/prove_cuda.json" 2>&1 | tee "$OUT/bench_prove.txt"
  timeout 200 python3 -m cuzk bench prove --backend cuda --sizes 24 --batch 4 --transfer pinned \
    --json "$OUT/prove_batch.json" 2>&1 | tee "$OUT/bench_prove_batch.txt"
fi
save_cache
