"""Exponents as digit strings for square-and-multiply chains (most
significant digit first): binary, non-adjacent form, and whichever of the
two has fewer non-zero digits (fewer multiplications)."""

from __future__ import annotations


def binary_digits(e: int) -> tuple[int, ...]:
    return tuple(int(b) for b in bin(e)[2:])


def naf(e: int) -> tuple[int, ...]:
    """Non-adjacent form of e >= 0."""
    digits = []
    while e:
        d = (2 - (e & 3)) if e & 1 else 0
        e -= d
        digits.append(d)
        e >>= 1
    return tuple(reversed(digits))


def sparsest_digits(e: int) -> tuple[int, ...]:
    """Binary or NAF digits of |e| (whichever has fewer non-zeros), sign applied."""
    b, n = binary_digits(abs(e)), naf(abs(e))
    d = b if sum(map(abs, b)) <= sum(map(abs, n)) else n
    return tuple(-x for x in d) if e < 0 else d
