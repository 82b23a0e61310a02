"""The hot kernels of a 2^27 partition, once each at 2^24, for Nsight Compute
(lab/device/profile.sh runs this under `ncu`): a plain G1 MSM (digits,
scatter, accumulate, reduce) and the forward / coset NTTs. Random bases from a
pool of 1024 points, random scalars; the warm-up call is not profiled (ncu's
--launch-skip in profile.sh).

    python lab/ncu_kernels.py [log_n]
"""

import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.backend.cuda import msm as M  # noqa: E402
from cuzk.backend.cuda import ntt as T  # noqa: E402
from cuzk.curve import get_curve  # noqa: E402


def main() -> None:
    log_n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    n = 1 << log_n
    curve = get_curve("bls12_381")
    rng = np.random.default_rng(7)
    pool = curve.g1.random(1024, rng)
    bases = M._bases_view(curve, "g1", cp.asarray(np.ascontiguousarray(pool[rng.integers(0, 1024, n)])))
    sc = cp.asarray(curve.fr.from_mont(curve.fr.random(n, rng))).view(cp.uint32)
    vals = cp.asarray(curve.fr.random(n, rng))
    for _ in range(2):  # warm-up, then the profiled call
        M.pippenger(curve, "g1", bases, sc, n, c=20 if log_n > 24 else 16)
        T.ntt(curve.name, vals, inverse=True)
        T.ntt(curve.name, vals, coset=7)
        cp.cuda.Device().synchronize()
    print("done", flush=True)


if __name__ == "__main__":
    main()
