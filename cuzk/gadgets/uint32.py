"""32-bit words in circuits (bellman's `UInt32`): 32 Booleans, least significant first.

Rotations and shifts only re-index bits (free). Bitwise operations cost one
constraint per non-constant bit (`xor3` two). `addmany` adds several words
and a constant modulo 2^32 with one packing constraint plus one booleanity
constraint per result bit (32 + carry bits), the bellman construction.
"""

from __future__ import annotations

from cuzk.r1cs import ONE

from . import bit_tape
from .bit_tape import OP_SUMBIT
from .boolean import FALSE, Boolean, _lc, and_, ch, maj, xor, xor3

MASK = 0xFFFFFFFF


class UInt32:
    __slots__ = ("bits", "value")

    def __init__(self, bits: list[Boolean], value: int | None):
        assert len(bits) == 32
        self.bits = bits
        self.value = value

    @staticmethod
    def constant(v: int) -> "UInt32":
        v &= MASK
        return UInt32([Boolean.constant((v >> i) & 1) for i in range(32)], v)

    @staticmethod
    def alloc(cs, value: int | None = None) -> "UInt32":
        """32 new witness bits (32 booleanity constraints)."""
        v = None if value is None or not cs.needs_values else int(value) & MASK
        if cs.needs_values and v is None:
            raise ValueError("UInt32.alloc: a value is required in witness mode")
        return UInt32([Boolean.alloc(cs, None if v is None else (v >> i) & 1) for i in range(32)], v)

    @staticmethod
    def from_bits(bits: list[Boolean]) -> "UInt32":
        """From little-endian bits."""
        bits = list(bits)
        value = None if any(b.value is None for b in bits) else sum(int(b.value) << i for i, b in enumerate(bits))
        return UInt32(bits, value)

    @staticmethod
    def from_bits_be(bits: list[Boolean]) -> "UInt32":
        """From 32 big-endian bits (SHA-256 message order)."""
        return UInt32.from_bits(list(bits)[::-1])

    def bits_be(self) -> list[Boolean]:
        return self.bits[::-1]

    @property
    def is_constant(self) -> bool:
        return all(b.var is None for b in self.bits)

    # ---- free re-indexing ------------------------------------------------
    def rotr(self, n: int) -> "UInt32":
        n %= 32
        return UInt32([self.bits[(i + n) % 32] for i in range(32)],
                      None if self.value is None else ((self.value >> n) | (self.value << (32 - n))) & MASK)

    def shr(self, n: int) -> "UInt32":
        return UInt32([self.bits[i + n] if i + n < 32 else FALSE for i in range(32)],
                      None if self.value is None else self.value >> n)

    def __invert__(self) -> "UInt32":
        return UInt32([~b for b in self.bits], None if self.value is None else ~self.value & MASK)

    # ---- bitwise ---------------------------------------------------------
    def xor(self, cs, other: "UInt32") -> "UInt32":
        return UInt32.from_bits([xor(cs, a, b) for a, b in zip(self.bits, other.bits)])

    def and_(self, cs, other: "UInt32") -> "UInt32":
        return UInt32.from_bits([and_(cs, a, b) for a, b in zip(self.bits, other.bits)])

    @staticmethod
    def xor3(cs, a: "UInt32", b: "UInt32", c: "UInt32") -> "UInt32":
        return UInt32.from_bits([xor3(cs, x, y, z) for x, y, z in zip(a.bits, b.bits, c.bits)])

    @staticmethod
    def ch(cs, a: "UInt32", b: "UInt32", c: "UInt32") -> "UInt32":
        return UInt32.from_bits([ch(cs, x, y, z) for x, y, z in zip(a.bits, b.bits, c.bits)])

    @staticmethod
    def maj(cs, a: "UInt32", b: "UInt32", c: "UInt32") -> "UInt32":
        return UInt32.from_bits([maj(cs, x, y, z) for x, y, z in zip(a.bits, b.bits, c.bits)])

    # ---- arithmetic ------------------------------------------------------
    @staticmethod
    def addmany(cs, operands: list["UInt32"], constant: int = 0) -> "UInt32":
        """(sum(operands) + constant) mod 2^32."""
        lc_vars, lc_coeffs = [], []
        const = int(constant)  # constant term of the sum's linear combination
        tape_const = const  # the same without negated bits' w (a tape literal carries its negation)
        lits, weights = [], []
        max_value = const
        for word in operands:
            for i, b in enumerate(word.bits):
                w = 1 << i
                if b.var is None:
                    if b.value:
                        const += w
                        tape_const += w
                        max_value += w
                    continue
                lc_vars.append(b.var)
                if b.neg:  # w * (1 - x)
                    const += w
                    lc_coeffs.append(-w)
                else:
                    lc_coeffs.append(w)
                lits.append(b.literal())
                weights.append(w)
                max_value += w
        if not lits:
            return UInt32.constant(const)
        values = [w.value for w in operands]
        total = None if any(v is None for v in values) else sum(values) + int(constant)
        nbits = max_value.bit_length()
        tape = bit_tape.active_tape(cs)
        sum_id = tape.add_sum(lits, weights, tape_const) if tape is not None else 0
        out_vars, out_coeffs = [], []
        bits = []
        for j in range(nbits):
            bv = None if total is None else (total >> j) & 1
            var = cs.alloc(bv)
            if tape is not None:
                tape.push(var, OP_SUMBIT, sum_id, j)
            cs.enforce(_lc([var], [1]), _lc([ONE, var], [1, -1]), _lc([], []))
            out_vars.append(var)
            out_coeffs.append(1 << j)
            bits.append(Boolean(var, False, None if bv is None else bool(bv)))
        if const:
            lc_vars.append(ONE)
            lc_coeffs.append(const)
        cs.enforce(_lc(lc_vars, lc_coeffs), _lc([ONE], [1]), _lc(out_vars, out_coeffs))
        return UInt32(bits[:32], None if total is None else total & MASK)

    def __repr__(self):
        return f"UInt32({'?' if self.value is None else hex(self.value)})"
