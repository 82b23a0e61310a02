"""Fixed-base multiplication on the device (parameter generation) against outside references
(msm_oracle: arkworks for BLS12-381, py_ecc for BN254) and, at scale, against the CPU table."""

import numpy as np
import pytest

from cuzk.backend import get_backend

from msm_oracle import pool_of

pytestmark = pytest.mark.gpu

CURVES = ["bls12_381", "bn254"]


@pytest.mark.parametrize("curve_name", CURVES)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_fixed_base_matches_outside_reference(curve_name, group):
    pool = pool_of(curve_name, group, 4)
    r = pool.r
    rng = np.random.default_rng(7)
    adversarial = [0, 1, 2, 255, 256, r - 1, r - 2, (1 << 254) - 1, 1 << 200, int("ff" * 31, 16),
                   int("01" * 31, 16), sum(0x80 << (8 * i) for i in range(31))]
    ks = adversarial + pool.random_scalars(100, rng)
    table = get_backend("cuda").fixed_base(pool.curve, group, pool.G.from_ints([pool.times_g(1)])[0])
    got = pool.G.to_ints(table.mul(pool.scalars(ks)))
    for k, g in zip(ks, got):
        assert g == pool.times_g(k), hex(k)


@pytest.mark.parametrize("curve_name", CURVES)
def test_fixed_base_at_scale_equals_cpu_table(curve_name):
    """2^17 random scalars over several device calls' worth of threads: every point equal to the
    CPU backend's (an independent kernel, itself checked against outside references)."""
    pool = pool_of(curve_name, "g1", 4)
    rng = np.random.default_rng(3)
    scalars = rng.integers(0, 1 << 63, size=(1 << 17, 4), dtype=np.uint64)
    scalars[:, 3] &= np.uint64((1 << 60) - 1)  # below r for both curves
    base = pool.curve.g1.generator
    got = get_backend("cuda").fixed_base(pool.curve, "g1", base).mul(scalars)
    want = get_backend("cpu").fixed_base(pool.curve, "g1", base).mul(scalars)
    assert np.array_equal(got, want)
