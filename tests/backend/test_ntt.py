"""NTT conformance, parametrized over backends (the CUDA backend reuses it)."""

import random

import numpy as np
import pytest

from cuzk.field import fields_of


def naive_dft(xs, w, p, shift=1):
    n = len(xs)
    return [sum(x * pow(shift, i, p) * pow(w, i * k, p) for i, x in enumerate(xs)) % p for k in range(n)]


@pytest.mark.parametrize("log_n", [0, 1, 2, 5, 7])
def test_ntt_matches_dft(backend, curve_name, log_n):
    fr = fields_of(curve_name)[0]
    p = fr.p
    n = 1 << log_n
    rng = random.Random(log_n)
    xs = [rng.randrange(p) for _ in range(n)]
    w = fr.params.root_of_unity_of_order(log_n)
    g = fr.params.generator
    a = fr.from_ints(xs)
    assert fr.to_ints(backend.ntt(curve_name, a)) == naive_dft(xs, w, p)
    assert fr.to_ints(backend.ntt(curve_name, a, coset=g)) == naive_dft(xs, w, p, g)
    winv = pow(w, -1, p)
    ninv = pow(n, -1, p)
    assert fr.to_ints(backend.ntt(curve_name, a, inverse=True)) == [v * ninv % p for v in naive_dft(xs, winv, p)]


@pytest.mark.parametrize("log_n", [10, 11, 14])
def test_ntt_roundtrip_large(backend, curve_name, log_n):
    """Sizes past the blocked stages; forward/inverse (plain and coset) invert each other."""
    fr = fields_of(curve_name)[0]
    a = fr.random(1 << log_n, np.random.default_rng(log_n))
    g = fr.params.generator
    for coset in (None, g):
        f = backend.ntt(curve_name, a, coset=coset)
        assert not (f == a).all()
        assert (backend.ntt(curve_name, f, inverse=True, coset=coset) == a).all()
    # convolution theorem: NTT(a*b as polynomials) == NTT(a) . NTT(b) (cyclic)
    n = 1 << log_n
    xs = [random.Random(1).randrange(fr.p) for _ in range(4)] + [0] * (n - 4)
    ys = [random.Random(2).randrange(fr.p) for _ in range(4)] + [0] * (n - 4)
    prod = [0] * n
    for i in range(4):
        for j in range(4):
            prod[i + j] = (prod[i + j] + xs[i] * ys[j]) % fr.p
    lhs = backend.ntt(curve_name, fr.from_ints(prod))
    rhs = fr.mul(backend.ntt(curve_name, fr.from_ints(xs)), backend.ntt(curve_name, fr.from_ints(ys)))
    assert (lhs == rhs).all()


@pytest.mark.parametrize("log_n", [12, 15])
def test_ntt_spot_checks_against_the_dft(backend, curve_name, log_n):
    """Sizes whose late stages run as strided columns: a few outputs X_k from the definition."""
    fr = fields_of(curve_name)[0]
    p, n = fr.p, 1 << log_n
    a = fr.random(n, np.random.default_rng(7 + log_n))
    xs = fr.to_ints(a)
    w = fr.params.root_of_unity_of_order(log_n)
    g = fr.params.generator
    out, cos = fr.to_ints(backend.ntt(curve_name, a)), fr.to_ints(backend.ntt(curve_name, a, coset=g))
    for k in (0, 1, 3, n // 2 - 1, n // 2 + 5, n - 1):
        wk = pow(w, k, p)
        assert out[k] == sum(x * pow(wk, i, p) for i, x in enumerate(xs)) % p, k
        assert cos[k] == sum(x * pow(g * wk % p, i, p) for i, x in enumerate(xs)) % p, k


def test_ntt_batched(backend):
    fr = fields_of("bls12_381")[0]
    a = fr.random(3 * 64, np.random.default_rng(0)).reshape(3, 64, 4)
    out = backend.ntt("bls12_381", a)
    for i in range(3):
        assert (out[i] == backend.ntt("bls12_381", a[i])).all()


def test_ntt_rejects_bad_sizes(backend):
    fr = fields_of("bn254")[0]
    with pytest.raises(ValueError, match="power of two"):
        backend.ntt("bn254", fr.random(6))
    with pytest.raises(ValueError):
        backend.ntt("bn254", np.zeros((4, 3), dtype=np.uint64))
