"""Fq2 = Fq[u]/(u^2 + 1) on Python-int pairs (c0, c1), for constants derived
at generation time (twist coefficients, Frobenius and endomorphism
constants); never on a hot path."""

from __future__ import annotations


def fq2_mul(a: tuple[int, int], b: tuple[int, int], p: int) -> tuple[int, int]:
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def power(a, e: int, one, mul):
    """a^e (e >= 0) by square and multiply, for any associative `mul` with identity `one`
    (Fq2 pairs here; gadgets.poseidon.fp_linalg's matrices too)."""
    r = one
    while e:
        if e & 1:
            r = mul(r, a)
        a = mul(a, a)
        e >>= 1
    return r


def fq2_pow(a: tuple[int, int], e: int, p: int) -> tuple[int, int]:
    return power(a, e, (1, 0), lambda x, y: fq2_mul(x, y, p))


def fq2_inv(a: tuple[int, int], p: int) -> tuple[int, int]:
    n = pow(a[0] * a[0] + a[1] * a[1], -1, p)
    return (a[0] * n % p, -a[1] * n % p)
