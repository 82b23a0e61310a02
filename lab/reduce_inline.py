"""Study (session 28): g1_msm_reduce_segments is the unit NVRTC takes longest on (BLS12-381 9.6 s on the
VM, against 1.9 s for its G2 twin), and the first `--backend cuda` proof waits for it. Its loop inlines
two XYZZ additions. This times, per variant of that loop, the NVRTC compile and the kernel on the
device at the plain MSM's shapes (c = 20: 13 windows of 2^19 buckets; c = 16: 16 of 2^15), and checks
every variant's output equals the first one's, word for word.

    python lab/reduce_inline.py [OUT.json]
"""

import json
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.backend.cuda import msm as M  # noqa: E402
from cuzk.backend.cuda.module import arch_option, unit_source  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402

RUN = "run = xyzz_add_inline(run, load_xyzz<F>(buckets, (u64)w * half + b));"
SUM = "sum = xyzz_add_inline(sum, run);"


def variants(code: str) -> dict[str, str]:
    """The loop with both additions inlined (as before session 28), the second called, both called."""
    called = lambda line: line.replace("xyzz_add_inline", "xyzz_add")  # noqa: E731
    inline = code.replace(called(SUM), SUM).replace(called(RUN), RUN)
    assert RUN in inline and SUM in inline
    sum_call = inline.replace(SUM, called(SUM))
    return {"both_inline": inline, "sum_noinline": sum_call, "both_noinline": sum_call.replace(RUN, called(RUN))}


def timed(kernel, args, grid, reps=5) -> float:
    kernel(grid, (M.THREADS,), args)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        kernel(grid, (M.THREADS,), args)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(times))


def main() -> None:
    rows = []
    for curve_name in ("bls12_381", "bn254"):
        curve = get_curve(curve_name)
        words = M._coord_words("g1", curve) * 4
        name = "g1_msm_reduce_segments"
        mods = {}
        for v, code in variants(unit_source(curve_name, name)).items():
            t = time.time()
            mod = cp.RawModule(code=code, options=("-std=c++17", arch_option()))
            mod.compile()
            mods[v] = (mod.get_function(name), time.time() - t)
        for c, sets in ((20, 13), (16, 16)):
            half = 1 << (c - 1)
            nb = sets * half
            seglen = M.segment_length(nb, half)
            nseg = half // seglen
            rng = np.random.default_rng(c)
            buckets = cp.asarray(rng.integers(0, 2**32, size=nb * words, dtype=np.uint32) & 0x0FFFFFFF)
            ref = None
            for v, (kernel, compile_s) in mods.items():
                out = cp.zeros(sets * nseg * words, dtype=cp.uint32)
                args = (buckets, np.uint32(half), np.uint32(sets), np.uint32(seglen), out)
                ms = timed(kernel, args, ((nb // seglen + M.THREADS - 1) // M.THREADS,))
                same = True if ref is None else bool(cp.array_equal(out, ref))
                ref = out if ref is None else ref
                row = dict(curve=curve_name, variant=v, c=c, sets=sets, seglen=seglen, kernel_ms=round(ms, 3),
                           compile_s=round(compile_s, 1), equal_to_first=same)
                print(row, flush=True)
                rows.append(row)
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
