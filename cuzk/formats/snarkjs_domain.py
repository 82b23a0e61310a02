"""snarkjs's evaluation-domain order, mapped onto cuzk's.

A zkey's rows and H bases are tied to snarkjs's roots of unity: ffjavascript
(and wasmcurves' FFT) take the 2-adic root as nqr^t, nqr being the smallest
quadratic non-residue, t the odd part of r - 1 (nqr = 5 for both curves).
cuzk's NTT uses `fr.params.root_of_unity`: the same root for BN254, but
7^t for BLS12-381 (the root of blst and bellperson). Both are generators of
the same cyclic 2-power group, so w_snarkjs = w_cuzk^k for one odd k, and

    row r (point w_n^r in snarkjs's order)            -> position k r mod n
    H base i (point w_2n w_n^i, snarkjs's odd coset)   -> position j, 2j + 1 = k (2i + 1) mod 2n

puts everything in the order cuzk's (coset) NTT evaluates. For k = 1 both
maps are the identity and nothing is permuted.
"""

from __future__ import annotations

import functools

import numpy as np


def snarkjs_root(fr) -> int:
    """The primitive 2^s-th root of unity ffjavascript uses for this field."""
    p = fr.p
    nqr = 2
    while pow(nqr, (p - 1) // 2, p) != p - 1:
        nqr += 1
    return pow(nqr, (p - 1) >> fr.params.two_adicity, p)


@functools.cache
def _exponent(p: int, s: int, ours: int, theirs: int) -> int:
    """k with ours^k == theirs in the group of order 2^s (Pohlig-Hellman, bit by bit)."""
    k = 0
    inv = pow(ours, -1, p)
    for i in range(s):
        residual = theirs * pow(inv, k, p) % p
        if pow(residual, 1 << (s - 1 - i), p) != 1:
            k |= 1 << i
    if pow(ours, k, p) != theirs:
        raise ArithmeticError("roots of unity of different orders")
    return k


def snarkjs_exponent(fr) -> int:
    """Odd k with snarkjs's root = cuzk's root ^ k (full 2^s order)."""
    return _exponent(fr.p, fr.params.two_adicity, fr.params.root_of_unity, snarkjs_root(fr))


def row_positions(fr, n: int, rows: np.ndarray) -> np.ndarray:
    """Positions in cuzk's domain order of snarkjs rows `rows` (int64)."""
    k = snarkjs_exponent(fr) % n
    return rows if k == 1 else (rows * k) % n


def h_positions(fr, n: int) -> np.ndarray | None:
    """Position of each snarkjs H base in cuzk's odd-coset order, or None when equal."""
    k = snarkjs_exponent(fr) % (2 * n)
    if k == 1:
        return None
    odd = 2 * np.arange(n, dtype=np.int64) + 1
    return ((odd * k) % (2 * n) - 1) // 2
