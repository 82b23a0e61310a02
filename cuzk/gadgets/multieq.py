"""bellperson's `MultiEq`: many small equalities packed into one constraint.

`UInt32.addmany` needs `sum of operands == sum of result bits`, an equality
of numbers below 2^num_bits. Such equalities are stacked at increasing bit
offsets (2^bits_used * lhs, 2^bits_used * rhs) until the next one would
reach the field's capacity (bit_length(r) - 1 bits); then the stack is
emitted as one constraint lhs * ONE = rhs. A SHA-256 compression shares one
MultiEq, so its additions cost a few dozen packed constraints instead of
one each. The constraint appears when the stack is full (in the middle of
the next addition's allocations) or at `flush` (bellperson: on drop), and
that position is part of the layout Filecoin's parameters fix.
"""

from __future__ import annotations

from array import array

from cuzk.r1cs import LC, ONE
from cuzk.r1cs.coefficients import encode


class MultiEq:
    __slots__ = ("cs", "capacity", "bits_used", "_lhs", "_rhs")

    def __init__(self, cs):
        self.cs = cs
        self.capacity = cs.modulus.bit_length() - 1  # ff's PrimeField::CAPACITY
        self.bits_used = 0
        self._lhs = _Terms()
        self._rhs = _Terms()

    def enforce_equal(self, num_bits: int, lhs: tuple[list[int], list[int]], rhs: tuple[list[int], list[int]]) -> None:
        """Stack lhs == rhs, both below 2^num_bits; (variables, int coefficients) each."""
        if self.capacity <= self.bits_used + num_bits:
            self._accumulate()
        if self.capacity <= self.bits_used + num_bits:
            raise ValueError(f"an equality of {num_bits} bits does not fit the field")
        self._lhs.add(lhs, self.bits_used)
        self._rhs.add(rhs, self.bits_used)
        self.bits_used += num_bits

    def flush(self) -> None:
        """Emit what is stacked (bellperson does this when the MultiEq is dropped)."""
        if self.bits_used > 0:
            self._accumulate()

    def _accumulate(self) -> None:
        self.cs.enforce(self._lhs.lc(), LC.of(ONE), self._rhs.lc())
        self._lhs, self._rhs = _Terms(), _Terms()
        self.bits_used = 0

    def __enter__(self) -> "MultiEq":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.flush()


class _Terms:
    """One side of the stacked equality, equal variables merged (as bellpepper's
    LinearCombination does), so a template's term count is the compiled one."""

    __slots__ = ("coeffs",)

    def __init__(self):
        self.coeffs: dict[int, int] = {}

    def add(self, terms, shift: int) -> None:
        d = self.coeffs
        for v, c in zip(*terms):
            d[v] = d.get(v, 0) + (c << shift)

    def lc(self) -> LC:
        items = [(v, c) for v, c in self.coeffs.items() if c]
        return LC(array("q", (v for v, _ in items)), array("q", (encode(c) for _, c in items)))
