"""Field arithmetic against Python-int arithmetic, both curves, Fr/Fq/Fq2."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzk.field import fields_of
from cuzk.field.params import BLS12_381_FQ, BLS12_381_FR, BN254_FQ, BN254_FR

CURVES = ["bls12_381", "bn254"]


def edge_values(p):
    return [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**64 - 1, 2**64, 2**128 + 7]


@pytest.mark.parametrize("curve", CURVES)
@pytest.mark.parametrize("which", ["fr", "fq"])
def test_prime_field_ops(curve, which):
    fr, fq, _ = fields_of(curve)
    F = fr if which == "fr" else fq
    p = F.p
    rng = random.Random(1)
    xs = edge_values(p) + [rng.randrange(p) for _ in range(200)]
    ys = list(reversed(edge_values(p))) + [rng.randrange(p) for _ in range(200)]
    a, b = F.from_ints(xs), F.from_ints(ys)
    assert F.to_ints(a) == [x % p for x in xs]
    assert F.to_ints(F.add(a, b)) == [(x + y) % p for x, y in zip(xs, ys)]
    assert F.to_ints(F.sub(a, b)) == [(x - y) % p for x, y in zip(xs, ys)]
    assert F.to_ints(F.mul(a, b)) == [x * y % p for x, y in zip(xs, ys)]
    assert F.to_ints(F.sqr(a)) == [x * x % p for x in xs]
    assert F.to_ints(F.neg(a)) == [-x % p for x in xs]
    assert F.to_ints(F.inv(a)) == [pow(x, -1, p) if x % p else 0 for x in xs]
    e = rng.getrandbits(300)
    assert F.to_ints(F.pow(a[:20], e)) == [pow(x, e, p) for x in xs[:20]]
    # Montgomery layout: limbs are x * 2^(64 L) mod p, little-endian
    R = pow(2, 64 * F.limbs, p)
    assert F.canonical_to_ints(a[:5]) == [x * R % p for x in xs[:5]]


@pytest.mark.parametrize("curve", CURVES)
def test_batch_inverse_chunking(curve):
    fr = fields_of(curve)[0]
    for n in (0, 1, 2, 3, 17, 1000):
        a = fr.random(n, np.random.default_rng(n))
        if n > 2:
            a[n // 2] = 0
        inv = fr.inv(a)
        prod = fr.to_ints(fr.mul(a, inv))
        assert prod == [0 if not x.any() else 1 for x in a]


@pytest.mark.parametrize("curve", CURVES)
def test_sqrt_fq(curve):
    _, fq, _ = fields_of(curve)
    rng = random.Random(2)
    xs = [rng.randrange(fq.p) for _ in range(50)]
    sq = fq.sqr(fq.from_ints(xs))
    ok, root = fq.sqrt(sq)
    assert ok.all()
    assert [r * r % fq.p for r in fq.to_ints(root)] == [x * x % fq.p for x in xs]
    # a non-residue has no root: -1 for p = 3 mod 4
    ok, _ = fq.sqrt(fq.from_ints([fq.p - 1]))
    assert not ok[0]


def _fq2_mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


@pytest.mark.parametrize("curve", CURVES)
def test_fq2_ops(curve):
    _, fq, fq2 = fields_of(curve)
    p = fq.p
    rng = random.Random(3)
    xs = [(rng.randrange(p), rng.randrange(p)) for _ in range(100)] + [(0, 0), (1, 0), (0, 1)]
    ys = [(rng.randrange(p), rng.randrange(p)) for _ in range(100)] + [(5, 0), (0, 0), (p - 1, 3)]
    a, b = fq2.from_ints(xs), fq2.from_ints(ys)
    assert fq2.to_ints(fq2.mul(a, b)) == [_fq2_mul(x, y, p) for x, y in zip(xs, ys)]
    assert fq2.to_ints(fq2.sqr(a)) == [_fq2_mul(x, x, p) for x in xs]
    assert fq2.to_ints(fq2.add(a, b)) == [((x[0] + y[0]) % p, (x[1] + y[1]) % p) for x, y in zip(xs, ys)]
    assert fq2.to_ints(fq2.sub(a, b)) == [((x[0] - y[0]) % p, (x[1] - y[1]) % p) for x, y in zip(xs, ys)]
    inv = fq2.to_ints(fq2.inv(a))
    for x, i in zip(xs, inv):
        assert _fq2_mul(x, i, p) == ((1, 0) if x != (0, 0) else (0, 0))
    ok, root = fq2.sqrt(fq2.sqr(a))
    assert ok.all()
    assert [_fq2_mul(r, r, p) for r in fq2.to_ints(root)] == [_fq2_mul(x, x, p) for x in xs]


@pytest.mark.parametrize("params", [BLS12_381_FR, BLS12_381_FQ, BN254_FR, BN254_FQ])
def test_params(params):
    p = params.p
    assert pow(params.root_of_unity, 1 << params.two_adicity, p) == 1
    assert pow(params.root_of_unity, 1 << (params.two_adicity - 1), p) == p - 1
    assert params.R2 == pow(2, 128 * params.limbs, p)
    assert (params.inv * p) % 2**64 == 2**64 - 1


def test_two_adicities():
    assert BLS12_381_FR.two_adicity == 32
    assert BN254_FR.two_adicity == 28


@pytest.mark.parametrize("curve", CURVES)
def test_bytes_roundtrip_and_rejection(curve):
    fr, fq, _ = fields_of(curve)
    for F in (fr, fq):
        xs = [0, 1, F.p - 1, 12345678901234567890]
        a = F.from_ints(xs)
        for order in ("big", "little"):
            raw = F.to_bytes(a, order)
            assert raw == b"".join(x.to_bytes(F.nbytes, order) for x in xs)
            assert (F.from_bytes(raw, order) == a).all()
        with pytest.raises(ValueError, match="not canonical"):
            F.from_bytes(F.p.to_bytes(F.nbytes, "big"), "big")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0), st.integers(min_value=0))
def test_mul_property_bls_fq(x, y):
    fq = fields_of("bls12_381")[1]
    p = fq.p
    x, y = x % p, y % p
    assert fq.to_ints(fq.mul(fq.from_ints([x]), fq.from_ints([y]))) == [x * y % p]


def test_sqrt_refused_where_not_implemented():
    fr = fields_of("bls12_381")[0]
    with pytest.raises(NotImplementedError):
        fr.sqrt(fr.from_ints([4]))
