"""The FP64-pipe Fq product (field_f64.cuh) on the device against Python's integers, alone and
beside the integer product in one kernel (gpu marked)."""

import numpy as np
import pytest

from cuzk.field.fields import CURVE_FIELDS

pytestmark = pytest.mark.gpu

P = CURVE_FIELDS["bls12_381"][1].p
R = 1 << 384


def words(values):
    return np.array([[(v >> (32 * i)) & 0xFFFFFFFF for i in range(12)] for v in values], dtype=np.uint32)


@pytest.mark.parametrize("mode", ["integer", "fp64", "mixed"])
def test_chained_products_match_python_integers(mode):
    import cupy as cp

    from cuzk.bench import fp64_product as F

    rng = np.random.default_rng(7)
    edges = [0, 1, 2, P - 1, P - 2, R % P, (R * R) % P, (1 << 380) - 1, P >> 1]
    n = 2048  # 64 warps: the mixed mode's even and odd warps take both paths
    xs = edges + [int.from_bytes(rng.bytes(48), "little") % P for _ in range(n - len(edges))]
    ys = list(reversed(edges)) + [int.from_bytes(rng.bytes(48), "little") % P for _ in range(n - len(edges))]
    rinv = pow(R, -1, P)
    for iters in (1, 7):
        got = cp.asnumpy(F.chain(cp.asarray(words(xs)), cp.asarray(words(ys)), iters, mode))
        for i in range(n):
            value = int.from_bytes(got[i].astype("<u4").tobytes(), "little")
            want = xs[i] * pow(ys[i] * rinv, iters, P) % P
            assert value < 2 * P and value % P == want, (mode, iters, i)
