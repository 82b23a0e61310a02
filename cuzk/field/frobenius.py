"""Frobenius coefficients of the tower, derived from the modulus.

With Fq12 = Fq2[w]/(w^6 - xi), (c w^k)^(p^j) = frob_j(c) * gamma_j^k * w^k
where frob_j conjugates c for odd j and gamma_j = xi^((p^j - 1)/6).
"""

from __future__ import annotations

from .fq2_ints import fq2_mul, fq2_pow


def frobenius_gammas(p: int, xi: tuple[int, int], j: int) -> list[tuple[int, int]]:
    """gamma_j^k = xi^(k (p^j - 1) / 6) for k = 0..5 (Fq2 ints)."""
    assert (p**j - 1) % 6 == 0
    g = fq2_pow(xi, (p**j - 1) // 6, p)
    out = [(1, 0)]
    for _ in range(5):
        out.append(fq2_mul(out[-1], g, p))
    return out
