"""Groth16's H computation one vector at a time (memory_plan's `split_h`), for any backend.

Backend.quotient holds a, b, c, two domain-sized coset tables and several transforms' buffers
at once: ~38 GiB at 2^27. Here a single vector is on the device at a time; the results a
later step needs (C's coefficients, A's evaluations) are parked in host memory and come back
a chunk at a time, and every pointwise step (coset shifts, products, the final scaling and
subtraction) runs in chunks of `elementwise` elements with a chunk-sized table of powers
(k * base^j for the chunk's j, k = factor * base^lo), never a domain-sized one.

The arithmetic is Backend.quotient's, step for step (its docstring says why C needs no coset
evaluation); a backend supplies the primitives (`SplitOps`): the CUDA one moves chunks over
the bus, the CPU one slices numpy arrays, so CPU tests check this orchestration against the
unsplit computation.
"""

from __future__ import annotations

from typing import Protocol

from .memory_plan import chunks


class SplitOps(Protocol):
    def load(self, v, n: int):
        """Vector v (host, device, or deferred rows), zero-padded to n rows, where the backend computes."""

    def ntt(self, x, inverse: bool):
        """Backend.ntt's transform of x (the inverse includes 1/n); x may be overwritten."""

    def park(self, x):
        """x moved off the device (pinned host memory); the device copy goes."""

    def mul_powers(self, x, lo: int, hi: int, base: int, k: int, canonical: bool, sub=None) -> None:
        """x[lo + j] = x[lo + j] * k * base^j (in canonical form with `canonical`), minus
        sub[lo + j] (a parked vector, in the same form) where given; j < hi - lo."""

    def mul_parked(self, x, lo: int, hi: int, p) -> None:
        """x[lo:hi] *= p[lo:hi] for a parked vector p (Montgomery)."""

    def head(self, x, count: int):
        """The first `count` rows of x (already canonical)."""


def quotient(ops: SplitOps, fr, a, b, c, n: int, shift: int, scale: int | None, to_coefficients: bool,
             count: int, elementwise: int):
    """Backend.quotient's canonical H scalars, one vector at a time (see the module docstring)."""
    p = fr.p
    s = (1 if scale is None else scale) % p
    parts = list(chunks(n, elementwise))

    def pointwise(x, base, factor, canonical, sub=None):
        for lo, hi in parts:
            ops.mul_powers(x, lo, hi, base, factor * pow(base, lo, p) % p, canonical, sub)

    def on_coset(v):  # evaluations on shift * <w>: coefficients (inverse NTT), times shift^i, forward NTT
        x = ops.ntt(ops.load(v, n), inverse=True)
        pointwise(x, shift % p, 1, False)
        return ops.ntt(x, inverse=False)

    def product_on_coset():  # A' B': A's evaluations parked while B's are computed, then multiplied in
        ae = ops.park(on_coset(a))
        x = on_coset(b)
        for lo, hi in parts:
            ops.mul_parked(x, lo, hi, ae)
        return x

    if to_coefficients:  # t = (icoset(A' B') - C) s: C's coefficients times s, parked first
        x = ops.ntt(ops.load(c, n), inverse=True)
        pointwise(x, 1, s, True)
        cs = ops.park(x)
        del x  # parked: the device copy must go before A's and B's vectors come (4 GiB at 2^27)
        x = ops.ntt(product_on_coset(), inverse=True)
        pointwise(x, pow(shift, -1, p), s, True, cs)
        return ops.head(x, count)
    ce = on_coset(c)  # t = (A' B' - C') s, evaluations on the coset
    pointwise(ce, 1, s, True)
    ce = ops.park(ce)
    x = product_on_coset()
    pointwise(x, 1, s, True, ce)
    return ops.head(x, count)
