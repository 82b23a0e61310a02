"""The R1CS-to-QAP seam: how the H scalars are computed for a given key.

Both reductions start from the evaluations a, b, c of the constraint rows
(including the per-input rows) padded to the domain size n.

- bellperson (libsnark): H bases are tau^i t(tau)/delta for i < n-1, so
  h = (A(x)B(x) - C(x)) / t(x) in coefficient form: iNTT, coset NTT with the
  field's multiplicative generator g, pointwise (a*b - c) / (g^n - 1),
  inverse coset NTT, first n-1 coefficients (the backends subtract C's
  coefficients after that inverse instead of evaluating C on the coset:
  Backend.quotient).
- snarkjs (circom): H bases are already divided by t and tied to the odd
  coset of the 2n-th roots of unity, so h_i = a'_i b'_i - c'_i where x' is
  the evaluation of the interpolated polynomial on w_2n * <w_n>.
"""

from __future__ import annotations

import numpy as np

from .keys import H_BELLPERSON, H_SNARKJS


def h_scalars(convention: str, backend, curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int):
    """Canonical Fr scalars for the H MSM (n-1 for bellperson, n for snarkjs)."""
    fr = curve.fr
    if convention == H_BELLPERSON:
        g = fr.params.generator
        z_inv = pow((pow(g, n, fr.p) - 1) % fr.p, -1, fr.p)
        return backend.quotient(curve, a, b, c, n, shift=g, scale=z_inv, to_coefficients=True, count=n - 1)
    if convention == H_SNARKJS:
        w2n = fr.params.root_of_unity_of_order(n.bit_length())
        return backend.quotient(curve, a, b, c, n, shift=w2n, scale=None, to_coefficients=False, count=n)
    raise ValueError(f"unknown H convention {convention!r}")
