"""NTT pass planning on the device: forward and coset NTT times for several
(stages per pass, tile) settings in one process, each result checked against
the first setting's. A tuning tool for cuzk.backend.cuda.ntt (whose
MAX_STAGES and TILE it sets), run on the device machine by
scripts/gpu_check.sh.

    python -m cuzk.bench.ntt_variants [--plans 7x256,8x256,8x512] [log_n ...]
"""

import sys

import cupy as cp
import numpy as np

from cuzk.backend.cuda import ntt as N
from cuzk.bench.report import event_median_ms
from cuzk.curve import get_curve


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
    g = curve.fr.params.generator
    rng = np.random.default_rng(1)
    for log_n in logs:
        a = cp.asarray(curve.fr.random(1 << log_n, rng))
        ref = None
        for stages, tile in plans:
            N.MAX_STAGES, N.TILE = stages, tile
            fwd = event_median_ms(lambda: N.ntt(curve.name, a), repeat=7)
            coset = event_median_ms(lambda: N.ntt(curve.name, a, coset=g), repeat=7)
            got = (N.ntt(curve.name, a), N.ntt(curve.name, a, coset=g))
            same = ref is None or all(bool((x == y).all()) for x, y in zip(got, ref))
            ref = got if ref is None else ref
            print(f"2^{log_n} stages {stages} tile {tile} passes {N.passes(log_n)}: forward {fwd:.3f} ms, "
                  f"coset {coset:.3f} ms" + ("" if same else "  RESULT DIFFERS"), flush=True)
            del got
        del a, ref
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
