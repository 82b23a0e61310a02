"""The FP64-pipe Fq and Fr products (field_f64.cuh) on the device against Python's integers, alone
and beside the integer product in one kernel, and the NTT built with the Fr one (gpu marked)."""

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


@pytest.mark.parametrize("mode", ["integer", "fp64", "mixed"])
def test_fr_chained_products_match_python_integers(mode):
    """Fr in 6 limbs: the FP64 product divides by 2^288, the integer one by 2^256 (mixed: odd warps FP64)."""
    import cupy as cp

    from cuzk.bench import fp64_product as F

    r = CURVE_FIELDS["bls12_381"][0].p
    rng = np.random.default_rng(8)
    edges = [0, 1, 2, r - 1, r - 2, (1 << 256) % r, (1 << 288) % r, (1 << 254) - 1, r >> 1]
    n = 2048
    xs = edges + [int.from_bytes(rng.bytes(32), "little") % r for _ in range(n - len(edges))]
    ys = list(reversed(edges)) + [int.from_bytes(rng.bytes(32), "little") % r for _ in range(n - len(edges))]
    as_words = np.array([[(v >> (32 * i)) & 0xFFFFFFFF for i in range(8)] for v in xs + ys], dtype=np.uint32)
    for iters in (1, 5):
        got = cp.asnumpy(F.chain(cp.asarray(as_words[:n]), cp.asarray(as_words[n:]), iters, mode, field="fr"))
        for i in range(n):
            fp64 = mode == "fp64" or (mode == "mixed" and (i % 256) >> 5 & 1)
            radix = 1 << (288 if fp64 else 256)
            value = int.from_bytes(got[i].astype("<u4").tobytes(), "little")
            want = xs[i] * pow(ys[i] * pow(radix, -1, r), iters, r) % r
            assert value < 2 * r and value % r == want, (mode, iters, i)


@pytest.mark.parametrize("option", ["-DCUZK_NTT_F64=2", "-DCUZK_NTT_F64=3", "-DCUZK_NTT_F64_LANE=2"])
def test_ntt_with_fp64_twiddle_products_matches_cpu(option):
    """ntt.cuh built with part of its twiddle products on the FP64 pipe (k of 4 warps, or two of
    each thread's four; their twiddles times 2^32): forward, coset and inverse NTTs in one pass
    (2^7), two (2^12) and three (2^17), a batch of 3, against the CPU backend's NTT (and the
    default build's)."""
    import cupy as cp

    from cuzk.backend import get_backend
    from cuzk.backend.cuda import ntt as N
    from cuzk.bench.ntt_variants import variant_kernels
    from cuzk.curve import get_curve

    curve = get_curve("bls12_381")
    cpu = get_backend("cpu")
    study = {"kern": variant_kernels(curve.name, option), "f64_twiddles": True}
    g = curve.fr.params.generator
    rng = np.random.default_rng(len(option))
    for log_n, batch in ((7, 1), (12, 3), (17, 1)):
        a = curve.fr.random(batch << log_n, rng).reshape(batch, 1 << log_n, 4)
        d = cp.asarray(a)
        for kwargs in ({}, {"coset": g}, {"inverse": True}, {"inverse": True, "coset": g}):
            got = cp.asnumpy(N.ntt(curve.name, d, **kwargs, **study))
            assert np.array_equal(got, cpu.ntt(curve, a, **kwargs)), (log_n, kwargs)
            assert np.array_equal(got, cp.asnumpy(N.ntt(curve.name, d, **kwargs))), (log_n, kwargs)
