"""The CUDA Montgomery product and square (backend/cuda/field.cuh, even/odd limb
pairs) as a Python model of their PTX instruction sequences, one 32-bit word and
carry flag at a time, checked against big-integer Montgomery products for all
four fields.

The GPU conformance tests check the kernels' results; this checks, without a
GPU, the bound the kernel relies on: no carry chain whose carry-out the kernel
drops ever carries (the model asserts each one), for edge and random operands.
"""

import random

import pytest

from cuzk.field.fields import CURVE_FIELDS

M32 = (1 << 32) - 1


class Carry:
    flag = 0


def _words(x, k):
    return [(x >> (32 * i)) & M32 for i in range(k)]


def mad(half, a, b, c, cc, carry_in, carry_out=True):
    """mad{c}.{lo,hi}{.cc}.u32: one word of a*b plus c (plus the carry flag)."""
    prod = a * b
    s = (prod & M32 if half == "lo" else prod >> 32) + c + (cc.flag if carry_in else 0)
    if carry_out:
        cc.flag = s >> 32
    else:
        assert s >> 32 == 0, "a chain the kernel ends without carry-out carried"
    return s & M32


def add(x, y, cc, carry_in, carry_out=True):
    s = x + y + (cc.flag if carry_in else 0)
    if carry_out:
        cc.flag = s >> 32
    else:
        assert s >> 32 == 0, "an addition the kernel ends without carry-out carried"
    return s & M32


def mul_pairs(acc, a, bi, off):
    for j in range(0, len(acc), 2):
        p = a[j + off] * bi
        acc[j], acc[j + 1] = p & M32, p >> 32


def mad_pairs(acc, a, bi, off, cc, start=0, carry_in=False):
    """field.cuh's mad_pairs<N, S = start, CI = carry_in>: words below start untouched."""
    for j in range(start, len(acc), 2):
        acc[j] = mad("lo", a[j + off], bi, acc[j], cc, carry_in=carry_in or j > start)
        acc[j + 1] = mad("hi", a[j + off], bi, acc[j + 1], cc, carry_in=True)


def madc_pairs_shift2(acc, a, bi, off, cc, start=0, carry_in=True):
    """field.cuh's madc_pairs_shift2<N, S = start, CI = carry_in>: below start the words only move."""
    n = len(acc)
    for j in range(0, start, 2):
        acc[j], acc[j + 1] = acc[j + 2], acc[j + 3]
    for j in range(start, n - 2, 2):
        acc[j] = mad("lo", a[j + off], bi, acc[j + 2], cc, carry_in=carry_in or j > start)
        acc[j + 1] = mad("hi", a[j + off], bi, acc[j + 3], cc, carry_in=True)
    if start == n - 2 and not carry_in:  # mul.lo / mul.hi
        p = a[n - 2 + off] * bi
        acc[n - 2], acc[n - 1] = p & M32, p >> 32
    else:
        acc[n - 2] = mad("lo", a[n - 2 + off], bi, 0, cc, carry_in=True)
        acc[n - 1] = mad("hi", a[n - 2 + off], bi, 0, cc, carry_in=True, carry_out=False)


def mont_row_product(ev, od, a, bi, first, cc):
    """field.cuh's mont_row_product: X = X / 2^32 + a * bi."""
    if first:
        mul_pairs(od, a, bi, 1)
        mul_pairs(ev, a, bi, 0)
    else:
        ev[0] = add(ev[0], od[1], cc, carry_in=False)
        madc_pairs_shift2(od, a, bi, 1, cc)
        mad_pairs(ev, a, bi, 0, cc)
        od[-1] = add(od[-1], 0, cc, carry_in=True, carry_out=False)


def mont_row_add(ev, od, c, di, cc, carry_in=False):
    """field.cuh's mont_row_add: X += c * di (a second product, or the reduction m * p)."""
    mad_pairs(od, c, di, 1, cc, carry_in=carry_in)
    assert cc.flag == 0, "the odd chain's dropped carry-out was set"
    mad_pairs(ev, c, di, 0, cc)
    od[-1] = add(od[-1], 0, cc, carry_in=True, carry_out=False)


def mont_row(ev, od, a, bi, first, p, inv, cc, c=None, di=0):
    """One row; with c, mont_mul_add's row: c * di added before the reduction."""
    mont_row_product(ev, od, a, bi, first, cc)
    if c is not None:
        mont_row_add(ev, od, c, di, cc)
    mont_row_add(ev, od, p, (ev[0] * inv) & M32, cc)
    assert ev[0] == 0


def _final(x, y, n, cc):
    x[0] = add(x[0], y[1], cc, carry_in=False)
    for i in range(1, n - 1):
        x[i] = add(x[i], y[i + 1], cc, carry_in=True)
    x[n - 1] = add(x[n - 1], 0, cc, carry_in=True, carry_out=False)
    return sum(v << (32 * i) for i, v in enumerate(x))


def mont_mul_add(a, b, c, d, p, n):
    inv = (-pow(p, -1, 1 << 32)) % (1 << 32)
    av, cv, bv, dv, pv = _words(a, n) + [0], _words(c, n) + [0], _words(b, n), _words(d, n), _words(p, n) + [0]
    x, y, cc = [0] * n, [0] * n, Carry()
    for i in range(0, n, 2):
        mont_row(x, y, av, bv[i], i == 0, pv, inv, cc, cv, dv[i])
        mont_row(y, x, av, bv[i + 1], False, pv, inv, cc, cv, dv[i + 1])
    return _final(x, y, n, cc)


def mont_mul(a, b, p, n):
    inv = (-pow(p, -1, 1 << 32)) % (1 << 32)
    av, bv, pv = _words(a, n) + [0], _words(b, n), _words(p, n) + [0]
    x, y, cc = [0] * n, [0] * n, Carry()
    for i in range(0, n, 2):
        mont_row(x, y, av, bv[i], i == 0, pv, inv, cc)
        mont_row(y, x, av, bv[i + 1], False, pv, inv, cc)
    return _final(x, y, n, cc)


def sqr_row(ev, od, v, bi, i, p, inv, cc):
    """field.cuh's sqr_row<P, I = i> for i >= 1: the odd and even product chains over V_i's words
    k >= i, then the word-0 sum whose carry the reduction's odd chain takes."""
    n = len(ev)
    o1 = od[1]
    madc_pairs_shift2(od, v, bi, 1, cc, start=i & ~1, carry_in=False)
    if i + 1 < n:
        mad_pairs(ev, v, bi, 0, cc, start=(i + 1) & ~1)
        od[-1] = add(od[-1], 0, cc, carry_in=True, carry_out=False)
    ev[0] = add(ev[0], o1, cc, carry_in=False)
    mont_row_add(ev, od, p, (ev[0] * inv) & M32, cc, carry_in=True)
    assert ev[0] == 0


def mont_sqr(a, p, n):
    """field.cuh's fp_sqr where P::SUM2 (3p < 2^(32 n)): row i multiplies a_i by V_i's words
    a_i, a_{i+1} << 1, d_{i+2}, ..., d_{n-1} (d = 2a, by funnel shifts) at i..n-1."""
    inv = (-pow(p, -1, 1 << 32)) % (1 << 32)
    av, pv = _words(a, n), _words(p, n) + [0]
    assert a < 1 << (32 * n) and av[-1] >> 31 == 0, "d = 2a needs the top bit of a clear"
    d = [(av[0] << 1) & M32] + [((av[i] << 1) | (av[i - 1] >> 31)) & M32 for i in range(1, n)]
    x, y, cc = [0] * n, [0] * n, Carry()
    ev, od = x, y
    for i in range(n):
        v = [av[k] if k == i else (av[k] << 1) & M32 if k == i + 1 else d[k] for k in range(n)] + [0]
        if i == 0:
            mont_row(ev, od, v, av[0], True, pv, inv, cc)
        else:
            sqr_row(ev, od, v, av[i], i, pv, inv, cc)
        ev, od = od, ev
    return _final(x, y, n, cc)


def fp_sqr(a, p, n):
    """fp_sqr's dispatch: fields without the room (BLS12-381's Fr) square with fp_mul."""
    return mont_sqr(a, p, n) if 3 * p < 1 << (32 * n) else mont_mul(a, a, p, n)


FIELDS = sorted({(fp.p, 2 * fp.limbs) for fr, fq, _ in CURVE_FIELDS.values() for fp in (fr, fq)})


@pytest.mark.parametrize("p,n", FIELDS)
def test_even_odd_montgomery_model(p, n):
    rng = random.Random(p)
    r_inv = pow(1 << (32 * n), -1, p)
    cases = [(p - 1, p - 1), (0, 0), (1, p - 1), (p - 1, 1), (p - 2, p - 1)]
    cases += [(rng.randrange(p), rng.randrange(p)) for _ in range(1500)]
    for a, b in cases:
        r = mont_mul(a, b, p, n)
        assert r < 2 * p
        assert r % p == a * b * r_inv % p


@pytest.mark.parametrize("p,n", [(p, n) for p, n in FIELDS if 3 * p < 1 << (32 * n)])
def test_sum_of_two_products_model(p, n):
    """fp_mul_add is compiled where 3p < 2^(32 n) (consts.py's SUM2); there every dropped carry stays
    zero and (a b + c d) / R < 2p."""
    rng = random.Random(p + 1)
    r_inv = pow(1 << (32 * n), -1, p)
    top = p - 1
    cases = [(top, top, top, top), (0, 0, 0, 0), (top, 1, 1, top), (top, top, 0, 0), (0, 0, top, top)]
    cases += [tuple(rng.randrange(p) for _ in range(4)) for _ in range(1500)]
    for a, b, c, d in cases:
        r = mont_mul_add(a, b, c, d, p, n)
        assert r < 2 * p
        assert r % p == (a * b + c * d) * r_inv % p


def test_the_sum_of_two_products_needs_room():
    import importlib.util
    from pathlib import Path

    import cuzk

    path = Path(cuzk.__file__).parent / "backend" / "cuda" / "consts.py"  # without the package (it needs CuPy)
    spec = importlib.util.spec_from_file_location("cuda_consts", path)
    consts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(consts)
    curve_header = consts.curve_header
    sums = {curve: curve_header(curve).count("SUM2 = true") for curve in ("bls12_381", "bn254")}
    assert sums == {"bls12_381": 1, "bn254": 2}  # BLS12-381's Fr (3r > 2^256) is the one field without


def _square_operands(p, n, rng, count):
    top = p >> (32 * (n - 1))
    below = (1 << (32 * (n - 1))) - 1  # all limbs 0xffffffff below the top one
    cases = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2]
    cases += [top << (32 * (n - 1)), ((top - 1) << (32 * (n - 1))) | below]  # the largest top limb below p
    cases += [p - 1 - (rng.getrandbits(32) << (32 * k)) % p for k in range(n)]  # large, one limb varied
    cases += [sum(M32 << (32 * k) for k in range(0, n - 1, 2)), sum(M32 << (32 * k) for k in range(1, n - 1, 2))]
    cases += [(top - 1) << (32 * (n - 1)) | rng.getrandbits(32 * (n - 1)) for _ in range(100)]  # high top limb
    cases += [rng.randrange(p) for _ in range(count)]
    assert all(0 <= a < p for a in cases)
    return cases


@pytest.mark.parametrize("p,n", FIELDS)
def test_montgomery_square_model(p, n):
    """fp_sqr (each cross product once, doubled) gives a^2 / R mod p, below 2p, and every carry the
    kernel drops stays zero, for edge and random operands in all four fields."""
    rng = random.Random(p + 2)
    r_inv = pow(1 << (32 * n), -1, p)
    for a in _square_operands(p, n, rng, 1500):
        r = fp_sqr(a, p, n)
        assert r < 2 * p
        assert r % p == a * a * r_inv % p


def test_the_square_needs_room():
    """The scheme's window bound 2^32 (2a + p) needs 3p <= 2^(32 n): in BLS12-381's Fr (3r > 2^256) a
    dropped carry is set for some operand, which is why fp_sqr squares there with fp_mul."""
    (p, n), = [(p, n) for p, n in FIELDS if 3 * p > 1 << (32 * n)]
    rng = random.Random(5)
    failures = 0
    for a in _square_operands(p, n, rng, 1500):
        try:
            mont_sqr(a, p, n)
        except AssertionError:
            failures += 1
    assert failures > 0
