"""The pairing tower as arrays: Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v).

Array layout (Montgomery limbs, like Fq2's `uint64[..., 2, L]`):
  Fq6:  `uint64[..., 3, 2, L]`     a[..., i, k]    = part k of c_i (times v^i)
  Fq12: `uint64[..., 2, 3, 2, L]`  a[..., j, i, k] = part k of c_j.c_i,
                                   the coefficient of w^(2i+j).
The "poly" basis 1, w, ..., w^11 over Fq with w^6 = xi (py_ecc's FQ12)
maps to the tower by u = w^6 - xi0. The kernels are in `tower_source`.
"""

from __future__ import annotations

import functools

import numpy as np

from .fields import _as2d, fields_of
from .signed_digits import naf
from .tower_source import tower_kernels


class _Ext:
    """Shared code of the Fq6 / Fq12 array APIs (element shape `self.shape`)."""

    degree: int  # over Fq2
    shape_tail: tuple[int, ...]

    def __init__(self, curve: str):
        self.curve = curve
        _, self.fq, self.fq2 = fields_of(curve)
        self.limbs = self.fq.limbs
        self.p = self.fq.p
        self.xi = self.fq2.xi
        self.shape = self.shape_tail + (2, self.limbs)

    def __repr__(self):
        return f"{type(self).__name__}({self.curve})"

    @property
    def k(self):
        return tower_kernels(self.curve)

    # ---- conversions (edges only) --------------------------------------
    def from_ints(self, elems) -> np.ndarray:
        """Elements as flat int sequences in layout order (2*degree Fq ints each)."""
        flat = []
        for e in elems:
            e = tuple(e)
            if len(e) != 2 * self.degree:
                raise ValueError(f"expected {2 * self.degree} ints per element, got {len(e)}")
            flat.extend(int(c) for c in e)
        return self.fq.from_ints(flat).reshape((-1,) + self.shape)

    def to_ints(self, arr) -> list[tuple[int, ...]]:
        flat = self.fq.to_ints(np.asarray(arr).reshape(-1, self.limbs))
        n = 2 * self.degree
        return [tuple(flat[i : i + n]) for i in range(0, len(flat), n)]

    def zeros(self, n: int) -> np.ndarray:
        return np.zeros((n,) + self.shape, dtype=np.uint64)

    def ones(self, n: int) -> np.ndarray:
        out = self.zeros(n).reshape(n, -1, self.limbs)
        out[:, 0] = self.fq.ones(n)
        return out.reshape((n,) + self.shape)

    def random(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        return self.fq.random(2 * self.degree * n, rng).reshape((n,) + self.shape)

    def equal(self, a, b) -> np.ndarray:
        a2, shape = _as2d(a, self.shape)
        b2, _ = _as2d(b, self.shape)
        return (a2 == b2).reshape(a2.shape[0], -1).all(axis=1).reshape(shape[: -len(self.shape)])

    def is_one(self, a) -> np.ndarray:
        a2, shape = _as2d(a, self.shape)
        return self.equal(a2, self.ones(a2.shape[0])).reshape(shape[: -len(self.shape)])

    # ---- arithmetic -----------------------------------------------------
    def _op(self, op, a, b=None, k=0, **extra):
        a2, shape = _as2d(a, self.shape)
        if b is None:
            b2 = a2
        else:
            b2, bshape = _as2d(b, self.shape)
            if bshape != shape:
                raise ValueError(f"shape mismatch {shape} vs {bshape}")
        out = np.empty_like(a2)
        self._call(op, a2, b2, int(k), out, **extra)
        return out.reshape(shape)

    def add(self, a, b):
        return self._op(0, a, b)

    def sub(self, a, b):
        return self._op(1, a, b)

    def mul(self, a, b):
        return self._op(2, a, b)

    def neg(self, a):
        return self._op(3, a)

    def sqr(self, a):
        return self._op(4, a)

    def inv(self, a):
        """Inverse; zero maps to zero."""
        return self._op(5, a)

    def frobenius(self, a, k: int = 1):
        """a^(p^k), k >= 0."""
        if k < 0:
            raise ValueError("k must be >= 0")
        return self._op(6, a, k=k)


class Fq6Field(_Ext):
    """Fq6 = Fq2[v]/(v^3 - xi); elements `uint64[..., 3, 2, L]`.

    from_ints/to_ints order: (c0.0, c0.1, c1.0, c1.1, c2.0, c2.1)."""

    degree = 3
    shape_tail = (3,)

    def _call(self, op, a, b, k, out):
        self.k.fq6_vop(op, a, b, k, out)

    def mul_by_v(self, a):
        return self._op(7, a)


class Fq12Field(_Ext):
    """Fq12 = Fq6[w]/(w^2 - v); elements `uint64[..., 2, 3, 2, L]`.

    from_ints/to_ints order is the layout order: the Fq6 c0 (as in Fq6Field)
    then c1; component (j, i, k) is part k of the coefficient of w^(2i+j)."""

    degree = 6
    shape_tail = (2, 3)

    _NO_E = np.zeros(1, dtype=np.uint64)
    _NO_DIGITS = np.zeros(1, dtype=np.int64)

    def _call(self, op, a, b, k, out, e=_NO_E, digits=_NO_DIGITS):
        self.k.fq12_vop(op, a, b, k, e, digits, out)

    def conj(self, a):
        """a^(p^6)."""
        return self._op(7, a)

    def cyclotomic_sqr(self, a):
        """a^2 for a in the cyclotomic subgroup (wrong elsewhere)."""
        return self._op(8, a)

    def pow(self, a, e: int):
        """a^e for any element (plain square-and-multiply); e < 0 inverts first."""
        if e < 0:
            return self.pow(self.inv(a), -e)
        nl = max(1, (e.bit_length() + 63) // 64)
        limbs = np.array([(e >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(nl)], dtype=np.uint64)
        return self._op(9, a, e=limbs)

    def cyclotomic_pow(self, a, e: int):
        """a^e (e may be negative) for a in the cyclotomic subgroup."""
        digits = naf(abs(e)) or (0,)
        if e < 0:
            digits = tuple(-d for d in digits)
        return self._op(10, a, digits=np.array(digits, dtype=np.int64))

    # ---- the polynomial basis 1, w, ..., w^11 over Fq (py_ecc's FQ12) ----
    def to_poly_ints(self, arr) -> list[tuple[int, ...]]:
        """Coefficients of 1, w, ..., w^11 (w^6 = xi, u = w^6 - xi0)."""
        p, x0 = self.p, self.xi[0]
        out = []
        for e in self.to_ints(arr):
            co = [0] * 12
            for j in range(2):
                for i in range(3):
                    a, b = e[6 * j + 2 * i], e[6 * j + 2 * i + 1]
                    co[2 * i + j] = (a - x0 * b) % p
                    co[2 * i + j + 6] = b
            out.append(tuple(co))
        return out

    def from_poly_ints(self, polys) -> np.ndarray:
        """Inverse of to_poly_ints."""
        p, x0 = self.p, self.xi[0]
        elems = []
        for co in polys:
            co = [int(c) % p for c in co]
            if len(co) != 12:
                raise ValueError("expected 12 coefficients")
            e = [0] * 12
            for j in range(2):
                for i in range(3):
                    b = co[2 * i + j + 6]
                    e[6 * j + 2 * i] = (co[2 * i + j] + x0 * b) % p
                    e[6 * j + 2 * i + 1] = b
            elems.append(e)
        return self.from_ints(elems)


@functools.cache
def towers_of(curve: str) -> tuple[Fq6Field, Fq12Field]:
    return Fq6Field(curve), Fq12Field(curve)
