"""32-bit words in circuits, laid out exactly as bellperson's `UInt32`.

32 Booleans, least significant first. Rotations and shifts only re-index
bits (free). `xor` and the SHA-256 word functions (`sha256_ch`,
`sha256_maj`) apply the Boolean gadget to bit 0, 1, ..., 31 in turn, one
whole word before the next operation starts (that order is the aux order).
`addmany` adds 2..10 words modulo 2^32 like bellperson: as many result bits
as `len(operands) * (2^32 - 1)` needs (not the tighter bound of the actual
operands: constants count as full words), each a booleanity constraint, and
the equality of the sums stacked on a `MultiEq`; all-constant operands
fold to a constant.
"""

from __future__ import annotations

from cuzk.r1cs import ONE

from . import bit_tape
from .bit_tape import OP_SUMBIT
from .boolean import FALSE, Boolean, alloc_bit, sha256_ch, sha256_maj, xor
from .multieq import MultiEq

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
        """32 new witness bits, least significant first (32 booleanity constraints)."""
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
        n %= 32
        return UInt32([self.bits[i + n] if i + n < 32 else FALSE for i in range(32)],
                      None if self.value is None else self.value >> n)

    def __invert__(self) -> "UInt32":
        return UInt32([~b for b in self.bits], None if self.value is None else ~self.value & MASK)

    # ---- bitwise ---------------------------------------------------------
    def xor(self, cs, other: "UInt32") -> "UInt32":
        return UInt32.from_bits([xor(cs, a, b) for a, b in zip(self.bits, other.bits)])

    @staticmethod
    def sha256_ch(cs, a: "UInt32", b: "UInt32", c: "UInt32") -> "UInt32":
        """(a and b) xor ((not a) and c), bit by bit."""
        return UInt32.from_bits([sha256_ch(cs, x, y, z) for x, y, z in zip(a.bits, b.bits, c.bits)])

    @staticmethod
    def sha256_maj(cs, a: "UInt32", b: "UInt32", c: "UInt32") -> "UInt32":
        """(a and b) xor (a and c) xor (b and c), bit by bit."""
        return UInt32.from_bits([sha256_maj(cs, x, y, z) for x, y, z in zip(a.bits, b.bits, c.bits)])

    # ---- arithmetic ------------------------------------------------------
    @staticmethod
    def addmany(meq, operands: list["UInt32"]) -> "UInt32":
        """sum(operands) mod 2^32. `meq`: the `MultiEq` the equality goes on (a
        plain constraint system gets its own, emitted at once)."""
        if not isinstance(meq, MultiEq):
            with MultiEq(meq) as own:
                return UInt32.addmany(own, operands)
        if not 2 <= len(operands) <= 10:
            raise ValueError(f"addmany takes 2 to 10 operands, got {len(operands)}")
        cs = meq.cs
        lc_vars, lc_coeffs = [], []
        const = 0  # the ONE coefficient of the sum (constant bits and the 1 of each negated bit)
        tape_const = 0  # the same without negated bits (a tape literal carries its negation)
        lits, weights = [], []
        for word in operands:
            for i, b in enumerate(word.bits):
                w = 1 << i
                if b.var is None:
                    if b.value:
                        const += w
                        tape_const += w
                    continue
                lc_vars.append(b.var)
                if b.neg:  # w * (1 - x)
                    const += w
                    lc_coeffs.append(-w)
                else:
                    lc_coeffs.append(w)
                lits.append(b.literal())
                weights.append(w)
        values = [w.value for w in operands]
        total = None if any(v is None for v in values) else sum(values)
        if not lits:
            return UInt32.constant(total)
        nbits = (len(operands) * MASK).bit_length()
        tape = bit_tape.active_tape(cs)
        sum_id = tape.add_sum(lits, weights, tape_const) if tape is not None else 0
        out_vars, out_coeffs, bits = [], [], []
        for j in range(nbits):
            bv = None if total is None else (total >> j) & 1
            var = alloc_bit(cs, bv, OP_SUMBIT, sum_id, j)
            out_vars.append(var)
            out_coeffs.append(1 << j)
            bits.append(Boolean(var, False, None if bv is None else bool(bv)))
        if const:
            lc_vars.append(ONE)
            lc_coeffs.append(const)
        meq.enforce_equal(nbits, (lc_vars, lc_coeffs), (out_vars, out_coeffs))
        return UInt32(bits[:32], None if total is None else total & MASK)

    def __repr__(self):
        return f"UInt32({'?' if self.value is None else hex(self.value)})"
