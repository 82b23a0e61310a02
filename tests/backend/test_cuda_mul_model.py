"""The CUDA Montgomery product (backend/cuda/field.cuh, even/odd limb pairs) as
a Python model of its PTX instruction sequence, one 32-bit word and carry flag
at a time, checked against big-integer Montgomery products for all four fields.

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


def mad_pairs(acc, a, bi, off, cc):
    for j in range(0, len(acc), 2):
        acc[j] = mad("lo", a[j + off], bi, acc[j], cc, carry_in=j > 0)
        acc[j + 1] = mad("hi", a[j + off], bi, acc[j + 1], cc, carry_in=True)


def madc_pairs_shift2(acc, a, bi, off, cc):
    n = len(acc)
    for j in range(0, n - 2, 2):
        acc[j] = mad("lo", a[j + off], bi, acc[j + 2], cc, carry_in=True)
        acc[j + 1] = mad("hi", a[j + off], bi, acc[j + 3], cc, carry_in=True)
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


def mont_row_add(ev, od, c, di, cc):
    """field.cuh's mont_row_add: X += c * di (a second product, or the reduction m * p)."""
    mad_pairs(od, c, di, 1, cc)
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
    words = lambda x, k: [(x >> (32 * i)) & M32 for i in range(k)]  # noqa: E731
    av, cv, bv, dv, pv = words(a, n) + [0], words(c, n) + [0], words(b, n), words(d, n), words(p, n) + [0]
    x, y, cc = [0] * n, [0] * n, Carry()
    for i in range(0, n, 2):
        mont_row(x, y, av, bv[i], i == 0, pv, inv, cc, cv, dv[i])
        mont_row(y, x, av, bv[i + 1], False, pv, inv, cc, cv, dv[i + 1])
    return _final(x, y, n, cc)


def mont_mul(a, b, p, n):
    inv = (-pow(p, -1, 1 << 32)) % (1 << 32)
    words = lambda x, k: [(x >> (32 * i)) & M32 for i in range(k)]  # noqa: E731
    av, bv, pv = words(a, n) + [0], words(b, n), words(p, n) + [0]
    x, y, cc = [0] * n, [0] * n, Carry()
    for i in range(0, n, 2):
        mont_row(x, y, av, bv[i], i == 0, pv, inv, cc)
        mont_row(y, x, av, bv[i + 1], False, pv, inv, cc)
    return _final(x, y, n, cc)


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
