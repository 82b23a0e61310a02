"""The R1CS-to-QAP seam: how the H scalars are computed for a given key.

Both reductions start from the evaluations a, b, c of the constraint rows
(including the per-input rows) padded to the domain size n.

- bellperson (libsnark): H bases are tau^i t(tau)/delta for i < n-1, so
  h = (A(x)B(x) - C(x)) / t(x) in coefficient form: iNTT, coset NTT with the
  field's multiplicative generator g, pointwise (a*b - c) / (g^n - 1),
  inverse coset NTT, first n-1 coefficients.
- snarkjs (circom): H bases are already divided by t and tied to the odd
  coset of the 2n-th roots of unity, so h_i = a'_i b'_i - c'_i where x' is
  the evaluation of the interpolated polynomial on w_2n * <w_n>.
"""

from __future__ import annotations

import numpy as np

from .keys import H_BELLPERSON, H_SNARKJS


def pad(values: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n, 4), dtype=np.uint64)
    out[: values.shape[0]] = values
    return out


def h_scalars(convention: str, backend, curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """Montgomery Fr scalars for the H MSM (n-1 for bellperson, n for snarkjs)."""
    fr = curve.fr
    abc = np.stack([pad(a, n), pad(b, n), pad(c, n)])
    coeffs = backend.ntt(curve, abc, inverse=True)
    if convention == H_BELLPERSON:
        g = fr.params.generator
        ev = backend.ntt(curve, coeffs, coset=g)
        t = fr.sub(fr.mul(ev[0], ev[1]), ev[2])
        z_inv = pow((pow(g, n, fr.p) - 1) % fr.p, -1, fr.p)
        t = fr.mul(t, np.broadcast_to(fr.from_int(z_inv), t.shape))
        return backend.ntt(curve, t, inverse=True, coset=g)[: n - 1]
    if convention == H_SNARKJS:
        shift = fr.params.root_of_unity_of_order(n.bit_length())  # w_2n
        ev = backend.ntt(curve, coeffs, coset=shift)
        return fr.sub(fr.mul(ev[0], ev[1]), ev[2])
    raise ValueError(f"unknown H convention {convention!r}")
