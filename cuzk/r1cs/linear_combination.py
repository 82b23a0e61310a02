"""Linear combinations: two parallel int64 arrays (variables, coefficient codes).

No per-term objects: `vars` and `coeffs` are `array.array('q')`, so the
recorder appends a whole LC to its buffers with two C-level `extend`s and
numpy can view them without copying. Variables are the int codes of
`cuzk.r1cs.variable`; coefficients are Python ints at the edge, stored as the
int64 codes of `cuzk.r1cs.coefficients`.

Operand rules (an int can't be both a variable and a constant, so):

* `lc + v`, `lc - v`      v an int (or numpy integer) is a *variable*, coeff +-1
* `lc + (c, v)`           the term c*v (bellman's `(var, coeff)` written coeff first)
* `lc + other_lc`         concatenation (equal variables are merged at compile time)
* `lc * c`, `c * lc`      scale by the constant c
* `LC.constant(c)`        c*ONE; `lc + LC.constant(c)` adds a constant

`+`/`-` return a new LC; `+=`/`-=` append in place (like lists).
Because an int is a variable, `0 + lc` adds ONE: write `sum(lcs, LC())`.
Repeated variables are allowed; they are summed when compiled/evaluated.
"""

from __future__ import annotations

from array import array

import numpy as np

from .coefficients import BIG, decode, encode

ONE_CODE = 0  # the variable code of the constant ONE (input 0, see variable.py)


def _is_var(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


class LinearCombination:
    __slots__ = ("vars", "coeffs")

    def __init__(self, vars: array | None = None, coeffs: array | None = None):
        self.vars = vars if vars is not None else array("q")
        self.coeffs = coeffs if coeffs is not None else array("q")

    # ---- construction --------------------------------------------------
    @classmethod
    def zero(cls) -> "LinearCombination":
        return cls()

    @classmethod
    def of(cls, var, coeff: int = 1) -> "LinearCombination":
        """The single term coeff*var."""
        return cls(array("q", (int(var),)), array("q", (encode(coeff),)))

    @classmethod
    def constant(cls, c: int) -> "LinearCombination":
        return cls.of(ONE_CODE, c)

    @classmethod
    def from_terms(cls, terms) -> "LinearCombination":
        """From an iterable of (coeff, var) pairs."""
        lc = cls()
        for c, v in terms:
            lc.vars.append(int(v))
            lc.coeffs.append(encode(c))
        return lc

    @classmethod
    def from_arrays(cls, vars, coeffs=None) -> "LinearCombination":
        """Vectorized: `vars` int64 array; `coeffs` an int64 array (|c| < 2**62),
        a sequence of Python ints of any size, or None for all ones."""
        v = np.ascontiguousarray(vars, dtype=np.int64).ravel()
        if coeffs is None:
            c = np.ones(len(v), dtype=np.int64)
        elif isinstance(coeffs, np.ndarray) and coeffs.dtype.kind in "iu":
            c = np.ascontiguousarray(coeffs, dtype=np.int64).ravel()
            if len(c) and (int(c.max()) >= BIG or int(c.min()) <= -BIG):
                c = np.array([encode(int(x)) for x in c.tolist()], dtype=np.int64)
        else:
            c = np.array([encode(int(x)) for x in coeffs], dtype=np.int64)
        if len(c) != len(v):
            raise ValueError(f"{len(v)} variables but {len(c)} coefficients")
        lc = cls()
        lc.vars.frombytes(v.tobytes())
        lc.coeffs.frombytes(c.tobytes())
        return lc

    @classmethod
    def coerce(cls, x) -> "LinearCombination":
        """LC, variable, or (coeff, var) -> LC (for enforce's arguments)."""
        if isinstance(x, LinearCombination):
            return x
        if _is_var(x):
            return cls.of(x)
        if isinstance(x, tuple) and len(x) == 2:
            return cls.of(x[1], x[0])
        raise TypeError(f"cannot make a linear combination from {type(x).__name__}")

    # ---- inspection ----------------------------------------------------
    def __len__(self) -> int:
        return len(self.vars)

    def terms(self) -> list[tuple[int, int]]:
        """(coeff, var) pairs with Python-int coefficients (edge use only)."""
        return [(decode(c), v) for v, c in zip(self.vars, self.coeffs)]

    def var_array(self) -> np.ndarray:
        return np.frombuffer(self.vars, dtype=np.int64) if len(self.vars) else np.zeros(0, np.int64)

    def evaluate(self, value_of, p: int) -> int:
        """sum(coeff * value_of(var)) mod p with Python ints (tests, checking)."""
        return sum(decode(c) * value_of(v) for v, c in zip(self.vars, self.coeffs)) % p

    def copy(self) -> "LinearCombination":
        return LinearCombination(array("q", self.vars), array("q", self.coeffs))

    def __repr__(self):
        body = " + ".join(f"{c}*{'ONE' if v == 0 else (f'x{v}' if v > 0 else f'a{~v}')}" for c, v in self.terms())
        return f"LC({body or '0'})"

    # ---- in-place building ---------------------------------------------
    def add_term(self, var, coeff: int = 1) -> "LinearCombination":
        self.vars.append(int(var))
        self.coeffs.append(encode(coeff))
        return self

    def _extend(self, other, sign: int) -> "LinearCombination":
        if isinstance(other, LinearCombination):
            self.vars.extend(other.vars)
            if sign > 0:
                self.coeffs.extend(other.coeffs)
            else:
                self.coeffs.extend(_negate_codes(other.coeffs))
        elif _is_var(other):
            self.vars.append(int(other))
            self.coeffs.append(sign)
        elif isinstance(other, tuple) and len(other) == 2:
            self.vars.append(int(other[1]))
            self.coeffs.append(encode(sign * int(other[0])))
        else:
            return NotImplemented
        return self

    def __iadd__(self, other):
        return self._extend(other, 1)

    def __isub__(self, other):
        return self._extend(other, -1)

    # ---- functional operators ------------------------------------------
    def __add__(self, other):
        return self.copy()._extend(other, 1)

    def __sub__(self, other):
        return self.copy()._extend(other, -1)

    def __radd__(self, other):  # v + lc: v is a variable (so write sum(lcs, LC()), not sum(lcs))
        return LinearCombination.coerce(other).copy()._extend(self, 1)

    def __rsub__(self, other):
        return LinearCombination.coerce(other).copy()._extend(self, -1)

    def __neg__(self):
        return LinearCombination(array("q", self.vars), _negate_codes(self.coeffs))

    def __mul__(self, k):
        if not _is_var(k):
            return NotImplemented
        k = int(k)
        if k == 1:
            return self.copy()
        if k == -1:
            return -self
        return LinearCombination(array("q", self.vars), array("q", (encode(decode(c) * k) for c in self.coeffs)))

    __rmul__ = __mul__


def _negate_codes(codes: array) -> array:
    if not len(codes):
        return array("q")
    c = np.frombuffer(codes, dtype=np.int64)
    if int(c.max()) < BIG:
        return array("q", (-c).tobytes())
    return array("q", (encode(-decode(x)) for x in codes))


LC = LinearCombination
