"""NTT pass planning on the device: forward and coset NTT times for several
(stages per pass, tile) settings in one process, each result checked against
the first setting's. Beside each single-call time (CUDA events around one
call of ntt.ntt): the host's time to launch one call, and
the device time per call of 10 calls queued back to back (the launches
hidden, as in a prover that runs ahead of the GPU). Last, per size, the same
single-call time through CudaBackend.ntt, as `bench kernels` takes it (at
94183f0 that was 0.03-0.09 ms slower at 2^20-2^22). A tuning tool for
cuzk.backend.cuda.ntt (whose MAX_STAGES and TILE it sets), run on the device
machine by lab/device/ab.sh (NTT_PLANS).

    python lab/ntt_variants.py [--plans 7x256,8x256,8x512] [log_n ...]
"""

import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH, as msm_variants
from cuzk.backend import get_backend  # noqa: E402
from cuzk.backend.cuda import ntt as N  # noqa: E402
from cuzk.bench.report import event_median_ms  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402


def host_and_queued_ms(fn, calls: int = 10) -> tuple[float, float]:
    """(host ms to launch one call, device ms per call of `calls` queued back to back)."""
    fn()
    cp.cuda.Device().synchronize()
    host = []
    for _ in range(5):
        t0 = time.perf_counter()
        fn()
        host.append((time.perf_counter() - t0) * 1e3)
        cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return statistics.median(host), cp.cuda.get_elapsed_time(start, end) / calls


def main():
    args = sys.argv[1:]
    if {"-h", "--help"} & set(args):
        print(__doc__)
        return
    plans = [(7, 256), (8, 256), (8, 512)]
    if "--plans" in args:
        k = args.index("--plans")
        plans = [tuple(int(v) for v in p.split("x")) for p in args[k + 1].split(",")]
        del args[k:k + 2]
    logs = [int(x) for x in args] or [20, 22, 24, 26, 27]
    curve = get_curve("bls12_381")
    backend = get_backend("cuda")
    g = curve.fr.params.generator
    rng = np.random.default_rng(1)
    for log_n in logs:
        a = cp.asarray(curve.fr.random(1 << log_n, rng))
        ref = None
        for stages, tile in plans:
            N.MAX_STAGES, N.TILE = stages, tile
            fwd = event_median_ms(lambda: N.ntt(curve.name, a), repeat=7)
            coset = event_median_ms(lambda: N.ntt(curve.name, a, coset=g), repeat=7)
            host, queued = host_and_queued_ms(lambda: N.ntt(curve.name, a))
            got = (N.ntt(curve.name, a), N.ntt(curve.name, a, coset=g))
            same = ref is None or all(bool((x == y).all()) for x, y in zip(got, ref))
            ref = got if ref is None else ref
            print(f"2^{log_n} stages {stages} tile {tile} passes {N.passes(log_n)}: forward {fwd:.3f} ms, "
                  f"coset {coset:.3f} ms; forward: host {host:.3f} ms a call, queued {queued:.3f} ms a call"
                  + ("" if same else "  RESULT DIFFERS"), flush=True)
            del got
        N.MAX_STAGES, N.TILE = plans[0]
        fwd = event_median_ms(lambda: backend.ntt(curve, a), repeat=7)
        direct = event_median_ms(lambda: N.ntt(curve.name, a), repeat=7)
        print(f"2^{log_n} stages {plans[0][0]} tile {plans[0][1]}: forward {fwd:.3f} ms through CudaBackend.ntt "
              f"(bench kernels), {direct:.3f} ms calling ntt.ntt", flush=True)
        del a, ref
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
