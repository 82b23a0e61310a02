"""Field-element values inside circuits: affine forms of variables plus values.

A `Num` is sum(coeff * var) with ONE carrying the constant, plus its value
(an int mod p, or None while recording). Linear operations are free (no
constraint); `allocate` turns a form into a single variable (1 constraint)
when a caller needs a variable, e.g. a gadget output on a template
interface. Used by the Poseidon and Merkle gadgets on the single-circuit
path; stamped circuits get their witnesses from the vectorized kernels.
"""

from __future__ import annotations

from cuzk.r1cs import LC, ONE


class Num:
    __slots__ = ("terms", "value", "p")

    def __init__(self, terms: dict[int, int], value: int | None, p: int):
        self.terms = terms
        self.value = value
        self.p = p

    # ---- construction ----------------------------------------------------
    @classmethod
    def constant(cls, c: int, p: int) -> "Num":
        c %= p
        return cls({ONE: c} if c else {}, c, p)

    @classmethod
    def of_var(cls, var: int, value: int | None, p: int) -> "Num":
        return cls({int(var): 1}, None if value is None else value % p, p)

    @classmethod
    def alloc(cls, cs, value, name: str | None = None) -> "Num":
        """A new aux variable; `value` an int, a callable, or None when recording."""
        v = _resolve(cs, value)
        var = cs.alloc(v, name=name)
        return cls.of_var(var, v, cs.modulus)

    @classmethod
    def alloc_input(cls, cs, value, name: str | None = None) -> "Num":
        v = _resolve(cs, value)
        var = cs.alloc_input(v, name=name)
        return cls.of_var(var, v, cs.modulus)

    @classmethod
    def linear(cls, coeffs, nums, p: int) -> "Num":
        """sum(c_i * n_i) for int coefficients."""
        terms: dict[int, int] = {}
        value = 0
        for c, n in zip(coeffs, nums):
            c %= p
            if not c:
                continue
            for v, k in n.terms.items():
                terms[v] = (terms.get(v, 0) + c * k) % p
            value = None if value is None or n.value is None else value + c * n.value
        terms = {v: k for v, k in terms.items() if k}
        return cls(terms, None if value is None else value % p, p)

    # ---- inspection ------------------------------------------------------
    def is_constant(self) -> bool:
        return all(v == ONE for v in self.terms)

    def constant_value(self) -> int:
        return self.terms.get(ONE, 0)

    def single_var(self) -> int | None:
        """The variable if this is exactly 1*var (var != ONE), else None."""
        if len(self.terms) == 1:
            (v, k), = self.terms.items()
            if k == 1 and v != ONE:
                return v
        return None

    def lc(self) -> LC:
        return LC.from_terms((k, v) for v, k in self.terms.items()) if self.terms else LC()

    # ---- arithmetic (free) -----------------------------------------------
    def __add__(self, other: "Num") -> "Num":
        return Num.linear((1, 1), (self, other), self.p)

    def __sub__(self, other: "Num") -> "Num":
        return Num.linear((1, -1), (self, other), self.p)

    def scale(self, k: int) -> "Num":
        return Num.linear((k,), (self,), self.p)

    def add_constant(self, c: int) -> "Num":
        return self + Num.constant(c, self.p)

    # ---- constrained -----------------------------------------------------
    def allocate(self, cs, name: str | None = None) -> "Num":
        """This value as a single fresh variable (self if it already is one)."""
        if self.single_var() is not None:
            return self
        out = Num.alloc(cs, self.value, name=name)
        cs.enforce(self.lc(), ONE, out.lc(), name=name)
        return out

    def mul(self, cs, other: "Num", name: str | None = None) -> "Num":
        """self * other as a new variable (constant operands fold)."""
        if self.is_constant():
            return other.scale(self.constant_value())
        if other.is_constant():
            return self.scale(other.constant_value())
        value = None if self.value is None or other.value is None else self.value * other.value % self.p
        out = Num.alloc(cs, value, name=name)
        cs.enforce(self.lc(), other.lc(), out.lc(), name=name)
        return out

    def enforce_equal(self, cs, other: "Num", name: str | None = None) -> None:
        cs.enforce((self - other).lc(), ONE, LC(), name=name)

    def __repr__(self):
        return f"Num({self.terms}, value={self.value})"


def _resolve(cs, value):
    if not cs.needs_values:
        return None
    if callable(value):
        value = value()
    if value is None:
        raise ValueError("a value is required in witness mode")
    return int(value) % cs.modulus
