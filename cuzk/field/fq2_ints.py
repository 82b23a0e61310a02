"""Fq2 = Fq[u]/(u^2 + 1) on Python-int pairs (c0, c1), for constants derived
at generation time (twist coefficients, Frobenius and endomorphism
constants); never on a hot path."""

from __future__ import annotations


def fq2_mul(a: tuple[int, int], b: tuple[int, int], p: int) -> tuple[int, int]:
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def fq2_pow(a: tuple[int, int], e: int, p: int) -> tuple[int, int]:
    r = (1, 0)
    while e:
        if e & 1:
            r = fq2_mul(r, a, p)
        a = fq2_mul(a, a, p)
        e >>= 1
    return r


def fq2_inv(a: tuple[int, int], p: int) -> tuple[int, int]:
    n = pow(a[0] * a[0] + a[1] * a[1], -1, p)
    return (a[0] * n % p, -a[1] * n % p)
