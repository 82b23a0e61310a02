"""Booleans in circuits, laid out exactly as bellpepper's `Boolean` / `AllocatedBit`.

A `Boolean` is a variable (bellpepper's `Is`), its negation (`Not`) or a
constant. Negation and constants are free: they only change the linear
combination (x, 1 - x, or c*ONE). Filecoin's Groth16 parameters fix the
R1CS, so every gadget here reproduces bellpepper's allocations, constraint
order, the A/B/C side of each linear combination and its constant folding
(including where bellpepper does *not* fold, e.g. XOR of a variable with
itself, or `sha256_ch` with a constant-true selector):

    alloc           (1 - x) * x = 0
    xor             (2a) * b = a + b - c        (a Not operand: computed on the
                                                 plain variables, result negated)
    and_            a * b = c; and_not a * (1 - b) = c; nor (1 - a) * (1 - b) = c
    sha256_ch       (b - c) * a = ch - c
    sha256_maj      maj allocated, then bc = b AND c, then (2bc - b - c) * a = bc - maj

Every new bit is also described on the active `bit_tape` (if a template is
being recorded), so stamped copies can be witnessed vectorized.
"""

from __future__ import annotations

from array import array

from cuzk.r1cs import LC, ONE

from . import bit_tape
from .bit_tape import OP_AND, OP_CH, OP_EXT, OP_MAJ, OP_XOR


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
        """A new witness bit (`AllocatedBit::alloc`): 1 constraint."""
        v = None
        if cs.needs_values:
            if callable(value):
                value = value()
            if value is None:
                raise ValueError("Boolean.alloc: a value is required in witness mode")
            v = bool(value)
        return Boolean(alloc_bit(cs, v, OP_EXT, name=name), False, v)

    # ---- inspection ------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        return self.var is None

    def lc(self) -> LC:
        return _lc(*self.terms())

    def terms(self, coeff: int = 1) -> tuple[list[int], list[int]]:
        """(variables, coefficients) of coeff * this bit (bellpepper's `Boolean::lc`)."""
        if self.var is None:
            return ([ONE], [coeff]) if self.value else ([], [])
        if self.neg:
            return [ONE, self.var], [coeff, -coeff]
        return [self.var], [coeff]

    def literal(self) -> int:
        return bit_tape.literal(self.var, self.neg, self.value)

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


def alloc_bit(cs, value, op: int, a: int = 0, b: int = 0, c: int = 0, name: str | None = None) -> int:
    """`AllocatedBit::alloc`: a new variable with (1 - x) * x = 0; the tape
    learns how its value follows (op, a, b, c), or that it is external."""
    var = _new_bit(cs, value, op, a, b, c)
    cs.enforce(_lc([ONE, var], [1, -1]), _lc([var], [1]), _lc([], []), name=name)
    return var


def _new_bit(cs, value, op, a=0, b=0, c=0) -> int:
    var = cs.alloc(None if value is None else int(value))
    tape = bit_tape.active_tape(cs)
    if tape is not None:
        if op == OP_EXT:
            tape.external(var)
        else:
            tape.push(var, op, a, b, c)
    return var


def _both(x, y, f):
    return None if x is None or y is None else f(x, y)


def _const(b: Boolean, v: bool) -> bool:
    return b.var is None and b.value == v


def xor(cs, a: Boolean, b: Boolean) -> Boolean:
    """a XOR b (`Boolean::xor`): constants fold, everything else costs 1."""
    if a.var is None:
        return ~b if a.value else b
    if b.var is None:
        return ~a if b.value else a
    flip = a.neg != b.neg
    if flip and a.neg:  # (Not, Is): bellpepper puts the Is operand first
        a, b = b, a
    value = _both(a.value, b.value, lambda x, y: x != y)
    plain = None if value is None else value != flip
    x, y = a.var, b.var
    var = _new_bit(cs, plain, OP_XOR, bit_tape.literal(x, False), bit_tape.literal(y, False))
    cs.enforce(_lc([x], [2]), _lc([y], [1]), _lc([x, y, var], [1, 1, -1]))
    return Boolean(var, flip, value)


def and_(cs, a: Boolean, b: Boolean) -> Boolean:
    """a AND b (`Boolean::and`: and / and_not / nor, one constraint)."""
    if _const(a, False) or _const(b, False):
        return FALSE
    if a.var is None:
        return b
    if b.var is None:
        return a
    if a.neg and not b.neg:  # and_not(is, not): the Is operand is A
        a, b = b, a
    value = _both(a.value, b.value, lambda x, y: x and y)
    var = _new_bit(cs, value, OP_AND, a.literal(), b.literal())
    cs.enforce(a.lc(), b.lc(), _lc([var], [1]))
    return Boolean(var, False, value)


def or_(cs, a: Boolean, b: Boolean) -> Boolean:
    """NOT(NOT a AND NOT b) (a nor, negated)."""
    return ~and_(cs, ~a, ~b)


def sha256_ch(cs, a: Boolean, b: Boolean, c: Boolean) -> Boolean:
    """a ? b : c (`Boolean::sha256_ch`), with bellpepper's folding order."""
    if a.var is None and b.var is None and c.var is None:
        return Boolean.constant(b.value if a.value else c.value)
    if _const(a, False):
        return c
    if _const(b, False):
        return and_(cs, ~a, c)
    if _const(c, False):
        return and_(cs, a, b)
    if _const(c, True):
        return ~and_(cs, a, ~b)
    if _const(b, True):
        return ~and_(cs, ~a, ~c)
    # a constant true is not folded: bellpepper allocates ch = b anyway
    value = None if a.value is None or b.value is None or c.value is None else (b.value if a.value else c.value)
    var = _new_bit(cs, value, OP_CH, a.literal(), b.literal(), c.literal())
    bv, bc = b.terms()
    cv, cc = c.terms(-1)
    cs.enforce(_lc(bv + cv, bc + cc), a.lc(), _lc([var] + cv, [1] + cc))
    return Boolean(var, False, value)


def sha256_maj(cs, a: Boolean, b: Boolean, c: Boolean) -> Boolean:
    """Majority of a, b, c (`Boolean::sha256_maj`): 2 constraints when all vary."""
    if a.var is None and b.var is None and c.var is None:
        return Boolean.constant(a.value + b.value + c.value >= 2)
    if _const(a, False):
        return and_(cs, b, c)
    if _const(b, False):
        return and_(cs, a, c)
    if _const(c, False):
        return and_(cs, a, b)
    if _const(c, True):
        return ~and_(cs, ~a, ~b)
    if _const(b, True):
        return ~and_(cs, ~a, ~c)
    if _const(a, True):
        return ~and_(cs, ~b, ~c)
    vals = (a.value, b.value, c.value)
    value = None if None in vals else sum(vals) >= 2
    var = _new_bit(cs, value, OP_MAJ, a.literal(), b.literal(), c.literal())
    bc = and_(cs, b, c)
    bv, bk = b.terms(-1)
    cv, ck = c.terms(-1)
    cs.enforce(_lc([bc.var] + bv + cv, [2] + bk + ck), a.lc(), _lc([bc.var, var], [1, -1]))
    return Boolean(var, False, value)


def enforce_equal(cs, a: Boolean, b: Boolean) -> None:
    """`Boolean::enforce_equal`: 0 * 0 = a - b (a constant true operand: 1 - x)."""
    if a.var is None and b.var is None:
        if a.value != b.value:
            raise ValueError("enforce_equal: the constants differ (unsatisfiable)")
        return
    if _const(a, True) or _const(b, True):
        x = b if _const(a, True) else a
        c = LC.constant(1) - x.lc()
    elif _const(a, False) or _const(b, False):
        c = (b if _const(a, False) else a).lc()
    else:
        c = a.lc() - b.lc()
    cs.enforce(LC(), LC(), c)


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
