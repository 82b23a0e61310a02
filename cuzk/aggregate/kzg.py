"""KZG openings that tie the final GIPA commitment keys to the SRS.

After GIPA with challenges x_0..x_{l-1}, the folded keys are single points
whose exponents are polynomials in a (and b) fixed by the challenges:

  v = h^(f_v(a)),  f_v(X) = prod_j (1 + x_{l-1-j}^-1 X^(2^j))
  w = g^(f_w(a)),  f_w(X) = X^n prod_j (1 + x_{l-1-j} (X / r)^(2^j))

The prover opens both at a challenge z with g^((f(a) - f(z)) / (a - z)) (and
the same for b); the verifier checks e.g. e(v / h^y, g) = e(pi, h^a / h^z)
for y = f_v(z), computed in O(log n) from the product form.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import field_kernels
from cuzk.field.codegen import build_module

HORNER_SOURCE = """
@njit(cache=True)
def fr_horner(coeffs, z, out):
    \"\"\"out[k] = sum_j coeffs[j, k] z^j (Montgomery Fr; z: uint64[1, 4]). One
    sequential pass: n products are ~0.2 ms, and a parallel region of tiny
    kernels stalls whenever the machine is busy (cuzk.field.threads).\"\"\"
    x = fr_load(z, 0)
    c = coeffs.reshape(coeffs.shape[0] * coeffs.shape[1], 4)
    for k in range(coeffs.shape[1]):
        acc = FR_ZERO
        for j in range(coeffs.shape[0] - 1, -1, -1):
            acc = fr_add(fr_mul(acc, x), fr_load(c, j * coeffs.shape[1] + k))
        fr_store(out, k, acc)
"""


@functools.cache
def kzg_kernels(curve: str):
    return build_module(f"{curve}_aggregate_kzg", f"from {field_kernels(curve).__name__} import *\n" + HORNER_SOURCE)


def evaluate(fr, coeffs: np.ndarray, z: int) -> np.ndarray:
    """Montgomery Fr uint64[k, 4]: sum_j coeffs[j, k] z^j for Montgomery coeffs uint64[n, k, 4]."""
    coeffs = np.ascontiguousarray(coeffs, dtype=np.uint64)
    out = np.empty((coeffs.shape[1], 4), dtype=np.uint64)
    kzg_kernels(fr.curve).fr_horner(coeffs, np.ascontiguousarray(fr.from_int(z % fr.p)[None]), out)
    return out


def product_form_eval(fr_p: int, xs_rev: list[int], z: int, shift: int) -> int:
    """prod_j (1 + xs_rev[j] (shift z)^(2^j)) mod r."""
    t = z * shift % fr_p
    acc = 1
    for x in xs_rev:
        acc = acc * (1 + x * t) % fr_p
        t = t * t % fr_p
    return acc


def product_form_coeffs(fr, xs_rev: list[int], shift: int) -> np.ndarray:
    """Montgomery Fr coefficients (2^l of them) of prod_j (1 + xs_rev[j] (shift X)^(2^j))."""
    coeffs = fr.ones(1)
    s = shift % fr.p
    for j, x in enumerate(xs_rev):
        if j:
            s = s * s % fr.p
        k = fr.from_int(x * s % fr.p)[None]
        coeffs = np.concatenate([coeffs, fr.mul(coeffs, np.broadcast_to(k, coeffs.shape))])
    return coeffs


def _powers_mont(fr, s: int, count: int) -> np.ndarray:
    out = fr.ones(1)
    step = fr.from_int(s % fr.p)[None]
    while out.shape[0] < count:
        out = np.concatenate([out, fr.mul(out, np.broadcast_to(step, out.shape))])
        step = fr.mul(step, step)
    return out[:count]


def quotient(fr, coeffs: np.ndarray, z: int) -> np.ndarray:
    """Coefficients of (f(X) - f(z)) / (X - z) (length len(f) - 1), vectorized:
    q_j = z^-(j+1) * sum_{i > j} f_i z^i, the sums by a log-step suffix scan."""
    m = coeffs.shape[0]
    g = fr.mul(coeffs, _powers_mont(fr, z, m))
    s = 1
    while s < m:
        g = np.concatenate([fr.add(g[:-s], g[s:]), g[-s:]])
        s *= 2
    zinv = pow(z, -1, fr.p)
    return fr.mul(g[1:], _powers_mont(fr, zinv, m)[1:])


def open_at(backend, curve, group: str, bases_a, bases_b, coeffs: np.ndarray, z: int) -> np.ndarray:
    """(g^(q(a)), g^(q(b))) for q = (f - f(z)) / (X - z), as affine points uint64[2, ...]."""
    q = curve.fr.from_mont(quotient(curve.fr, coeffs, z))
    k = q.shape[0]
    return np.stack([backend.msm(curve, group, bases_a[:k], q), backend.msm(curve, group, bases_b[:k], q)])
