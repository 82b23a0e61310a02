"""Booleans in circuits (bellman's `Boolean`): a variable, its negation, or a constant.

Negation and constants are free (they only change the linear combination
1*x, 1 - x, or c*ONE). `xor`, `and_`, `or_`, `ch` cost one constraint and one
new bit each; `maj` costs two. Constant operands and repeated variables fold
without constraints. Every new bit is also described on the active
`bit_tape` (if a template is being recorded) so stamped copies can be
witnessed vectorized.
"""

from __future__ import annotations

from array import array

from cuzk.r1cs import LC, ONE

from . import bit_tape
from .bit_tape import OP_AND, OP_CH, OP_XOR


class Boolean:
    __slots__ = ("var", "neg", "value")

    def __init__(self, var: int | None, neg: bool, value: bool | None):
        self.var = var  # None: the constant `value`
        self.neg = neg
        self.value = value

    # ---- construction ----------------------------------------------------
    @staticmethod
    def constant(b: bool) -> "Boolean":
        return Boolean(None, False, bool(b))

    @staticmethod
    def of_var(var: int, value: bool | None = None) -> "Boolean":
        """Wrap a variable already known to be boolean (no constraint)."""
        return Boolean(int(var), False, None if value is None else bool(value))

    @staticmethod
    def alloc(cs, value: bool | None = None, name: str | None = None) -> "Boolean":
        """A new witness bit, constrained boolean (1 constraint)."""
        v = None
        if cs.needs_values:
            if callable(value):
                value = value()
            if value is None:
                raise ValueError("Boolean.alloc: a value is required in witness mode")
            v = bool(value)
        var = cs.alloc(None if v is None else int(v), name=name)
        tape = bit_tape.active_tape(cs)
        if tape is not None:
            tape.external(var)
        cs.enforce(_lc([var], [1]), _lc([ONE, var], [1, -1]), _lc([], []), name=name)
        return Boolean(var, False, v)

    # ---- inspection ------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        return self.var is None

    def lc(self) -> LC:
        return _lc(*self.terms())

    def terms(self) -> tuple[list[int], list[int]]:
        """(variables, coefficients) of this bit's linear combination."""
        if self.var is None:
            return ([ONE], [1]) if self.value else ([], [])
        if self.neg:
            return [ONE, self.var], [1, -1]
        return [self.var], [1]

    def literal(self) -> int:
        return bit_tape.literal(self.var, self.neg, self.value)

    def same_as(self, other: "Boolean") -> bool:
        if self.var is None or other.var is None:
            return self.var is None and other.var is None and self.value == other.value
        return self.var == other.var and self.neg == other.neg

    def __invert__(self) -> "Boolean":
        return Boolean(self.var, not self.neg if self.var is not None else False,
                       None if self.value is None else not self.value)

    def not_(self) -> "Boolean":
        return ~self

    def __repr__(self):
        if self.var is None:
            return f"Boolean({int(self.value)})"
        return f"Boolean({'~' if self.neg else ''}{self.var}={self.value})"


def _lc(vs, cs) -> LC:
    """An LC straight from variable and small-coefficient lists (hot path)."""
    return LC(array("q", vs), array("q", cs))


FALSE = Boolean.constant(False)
TRUE = Boolean.constant(True)


def _new_bit(cs, value, op, a=0, b=0, c=0) -> int:
    var = cs.alloc(None if value is None else int(value))
    tape = bit_tape.active_tape(cs)
    if tape is not None:
        tape.push(var, op, a, b, c)
    return var


def _both(x, y, f):
    return None if x is None or y is None else f(x, y)


def xor(cs, a: Boolean, b: Boolean) -> Boolean:
    """a XOR b: (2a) * b = a + b - c."""
    if a.var is None:
        return ~b if a.value else b
    if b.var is None:
        return ~a if b.value else a
    if a.var == b.var:
        return Boolean.constant(a.neg != b.neg)
    flip = a.neg != b.neg  # x^y computed on the plain variables, negated after
    value = _both(a.value, b.value, lambda x, y: x != y)
    plain = None if value is None else value != flip
    x, y = a.var, b.var
    var = _new_bit(cs, plain, OP_XOR, bit_tape.literal(x, False), bit_tape.literal(y, False))
    cs.enforce(_lc([x], [2]), _lc([y], [1]), _lc([x, y, var], [1, 1, -1]))
    return Boolean(var, flip, value)


def and_(cs, a: Boolean, b: Boolean) -> Boolean:
    """a AND b: a * b = c."""
    if a.var is None:
        return b if a.value else FALSE
    if b.var is None:
        return a if b.value else FALSE
    if a.var == b.var:
        return a if a.neg == b.neg else FALSE
    value = _both(a.value, b.value, lambda x, y: x and y)
    var = _new_bit(cs, value, OP_AND, a.literal(), b.literal())
    cs.enforce(a.lc(), b.lc(), _lc([var], [1]))
    return Boolean(var, False, value)


def or_(cs, a: Boolean, b: Boolean) -> Boolean:
    return ~and_(cs, ~a, ~b)


def ch(cs, a: Boolean, b: Boolean, c: Boolean) -> Boolean:
    """a ? b : c (SHA-256's Ch): a * (b - c) = out - c."""
    if a.var is None:
        return b if a.value else c
    if b.same_as(c):
        return b
    if b.var is None and c.var is None:
        return a if b.value else ~a  # (1, 0) -> a ; (0, 1) -> not a
    if b.var is None:
        return or_(cs, a, c) if b.value else and_(cs, ~a, c)
    if c.var is None:
        return or_(cs, ~a, b) if c.value else and_(cs, a, b)
    if b.var == c.var:  # c = not b
        return ~xor(cs, a, b)
    if a.var == b.var:
        return or_(cs, a, c) if a.neg == b.neg else and_(cs, ~a, c)
    if a.var == c.var:
        return and_(cs, a, b) if a.neg == c.neg else or_(cs, ~a, b)
    value = None if a.value is None else (b.value if a.value else c.value)
    var = _new_bit(cs, value, OP_CH, a.literal(), b.literal(), c.literal())
    bv, bc = b.terms()
    cv, cc = c.terms()
    neg_c = [-k for k in cc]
    cs.enforce(a.lc(), _lc(bv + cv, bc + neg_c), _lc([var] + cv, [1] + neg_c))
    return Boolean(var, False, value)


def maj(cs, a: Boolean, b: Boolean, c: Boolean) -> Boolean:
    """Majority (SHA-256's Maj) = (b xor c) ? a : b; two constraints."""
    return ch(cs, xor(cs, b, c), a, b)


def xor3(cs, a: Boolean, b: Boolean, c: Boolean) -> Boolean:
    return xor(cs, xor(cs, a, b), c)


def enforce_equal(cs, a: Boolean, b: Boolean) -> None:
    cs.enforce(a.lc() - b.lc(), ONE, LC())


def pack_lc(bits) -> LC:
    """sum 2^i * bits[i] (bits little-endian) as a linear combination."""
    lc = LC()
    const = 0
    for i, b in enumerate(bits):
        w = 1 << i
        if b.var is None:
            const += w if b.value else 0
        elif b.neg:
            const += w
            lc.add_term(b.var, -w)
        else:
            lc.add_term(b.var, w)
    if const:
        lc += LC.constant(const)
    return lc


def pack_value(bits) -> int | None:
    if any(b.value is None for b in bits):
        return None
    return sum(int(b.value) << i for i, b in enumerate(bits))


def pack_to_input(cs, bits, name: str | None = None) -> int:
    """A new public input equal to the packed bits (little-endian); 1 constraint.
    len(bits) must stay below the field size (e.g. 254 bits for both curves)."""
    if len(bits) >= cs.modulus.bit_length():
        raise ValueError(f"cannot pack {len(bits)} bits into one field element")
    value = pack_value(bits) if cs.needs_values else None
    var = cs.alloc_input(value, name=name)
    cs.enforce(pack_lc(bits), ONE, LC.of(var), name=name)
    return var


def pack_to_inputs(cs, bits, chunk: int | None = None) -> list[int]:
    """bellman's multipack: public inputs for consecutive little-endian chunks
    of `chunk` bits (default: the field's capacity, bit_length(p) - 1)."""
    chunk = chunk or cs.modulus.bit_length() - 1
    return [pack_to_input(cs, bits[i : i + chunk]) for i in range(0, len(bits), chunk)]
