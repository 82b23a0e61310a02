"""The bellman-style constraint-system interface shared by all three modes.

A circuit is a function `synthesize(cs)` that allocates variables and adds
constraints a*b = c over linear combinations:

    from cuzk.r1cs import LC, ONE
    def cube(cs, x_value):
        x = cs.alloc(x_value)                       # aux variable
        x2 = cs.alloc(lambda: x_value * x_value)    # callable: called only if cs.needs_values
        y = cs.alloc_input(lambda: x_value ** 3)    # public input
        with cs.namespace("square"):
            cs.enforce(x, x, x2)
        cs.enforce(x2, x, y, name="cube")
        cs.enforce(x + (5, ONE), ONE, x + LC.constant(5))  # Variable + ... is an LC
        cs.enforce(2 * x - x2, ONE, LC.of(x, 2) - x2)

Modes (pick by what you need; the circuit code is the same):

* `RecordingCS(curve)`: structure only; value arguments are ignored and
  callables never called. `compile()` -> CompiledCircuit; `template()` ->
  Template for stamping.
* `WitnessCS(curve)`: values only; `enforce` costs nothing.
  `witness()` -> flat Montgomery w = [1, inputs..., aux...].
* `TestCS(curve)`: both, plus `is_satisfied()` / `which_is_unsatisfied()`
  naming the first failing constraint by namespace path.

Values are Python ints (reduced mod the scalar field r) at the scalar API,
or Montgomery `uint64[n, 4]` arrays (or int sequences) for the vectorized
`alloc_many` / `alloc_input_many` / `stamp`. Check `cs.needs_values` to skip
witness work when recording.

Variables are ints (see `variable`): `ONE` = 0 = input 0, allocated by the
constructor; `alloc_input` returns 1, 2, ...; `alloc` returns ~0, ~1, ...
(as `Variable`, an int whose + - * build LCs). enforce's arguments: an LC, a
variable, or a (coeff, var) pair.
"""

from __future__ import annotations

import contextlib

import numpy as np

from cuzk.field import fields_of

from .linear_combination import LinearCombination
from .variable import ONE, Variable

CURVES = ("bls12_381", "bn254")


class ConstraintSystem:
    """Base class: variable bookkeeping and namespaces; modes add the rest."""

    needs_values: bool = True
    ONE = ONE

    def __init__(self, curve: str):
        if curve not in CURVES:
            raise ValueError(f"unknown curve {curve!r}; expected one of {CURVES}")
        self.curve = curve
        self.fr = fields_of(curve)[0]
        self.modulus = self.fr.p
        self.num_inputs = 1  # ONE
        self.num_aux = 0
        self.num_constraints = 0
        self._ns: list[str] = []

    # ---- hooks (overridden by the modes) ---------------------------------
    def _set_aux(self, value) -> None:
        pass

    def _set_input(self, value) -> None:
        pass

    def _set_aux_many(self, count, values) -> None:
        pass

    def _set_input_many(self, count, values) -> None:
        pass

    def _record(self, a: LinearCombination, b: LinearCombination, c: LinearCombination, name) -> None:
        pass

    def _record_stamp(self, template, count, inputs: np.ndarray, aux_base: int) -> None:
        pass

    def _set_stamp_values(self, template, count, aux_values) -> None:
        pass

    # ---- allocation ------------------------------------------------------
    def alloc(self, value=None, name: str | None = None) -> Variable:
        """New aux (private) variable. `value`: int, zero-arg callable, or None."""
        j = self.num_aux
        self.num_aux = j + 1
        self._set_aux(value)
        return Variable(~j)

    def alloc_input(self, value=None, name: str | None = None) -> Variable:
        """New public input variable (index >= 1)."""
        i = self.num_inputs
        self.num_inputs = i + 1
        self._set_input(value)
        return Variable(i)

    def alloc_many(self, count: int, values=None) -> np.ndarray:
        """`count` new aux variables at once -> int64 array of their codes.

        values: Montgomery uint64[count, 4]; small non-negative integers as
        a 1-D integer array (e.g. bits; any dtype, not Montgomery); a
        sequence of ints; a callable returning one of these; or None (recording)."""
        start = self.num_aux
        self.num_aux = start + count
        self._set_aux_many(count, values)
        return ~np.arange(start, start + count, dtype=np.int64)

    def alloc_input_many(self, count: int, values=None) -> np.ndarray:
        start = self.num_inputs
        self.num_inputs = start + count
        self._set_input_many(count, values)
        return np.arange(start, start + count, dtype=np.int64)

    def one(self) -> int:
        return ONE

    # ---- constraints -----------------------------------------------------
    def enforce(self, a, b, c, name: str | None = None) -> None:
        """Add the constraint a * b = c. a, b, c: LC, variable, or (coeff, var)."""
        coerce = LinearCombination.coerce
        self._record(coerce(a), coerce(b), coerce(c), name)
        self.num_constraints += 1

    @contextlib.contextmanager
    def namespace(self, name: str):
        """Group the constraints made inside (names appear in TestCS reports)."""
        self._ns.append(str(name))
        try:
            yield self
        finally:
            self._ns.pop()

    # ---- stamping --------------------------------------------------------
    def stamp(self, template, count: int, inputs=None, aux_values=None) -> np.ndarray:
        """Instantiate `template` (a recorded gadget) `count` times.

        inputs: int64 array (count, template.num_inputs - 1): for instance k,
        the variable of this system that template input i (i >= 1) stands
        for (template input 0, ONE, is always ONE). Template aux j of
        instance k becomes a fresh aux variable; the returned int64 array
        (count, template.num_aux) holds their codes.
        aux_values (witness modes): Montgomery uint64[count, template.num_aux, 4]
        (or [count * num_aux, 4]); or small non-negative integers (e.g. bits)
        as a non-uint64 integer array of count * num_aux entries (any shape,
        e.g. uint8[count, num_aux]); or bit-sliced bits (`bit_slices.SlicedBits`,
        count x num_aux); or a callable returning one of these. The order is
        the template's own aux order.
        """
        count = int(count)
        base = self._stamp_block(template, count, inputs, aux_values)
        return ~(base + np.arange(count * template.num_aux, dtype=np.int64)).reshape(count, template.num_aux)

    def stamp_columns(self, template, count: int, inputs=None, aux_values=None, columns=()) -> np.ndarray:
        """`stamp`, returning only the codes of template aux `columns` (int64[count, len(columns)]):
        the full code array is 8 bytes per stamped aux variable that a caller keeping
        only a template's outputs would write and throw away."""
        base = self._stamp_block(template, int(count), inputs, aux_values)
        cols = np.asarray(columns, dtype=np.int64).reshape(-1)
        k = np.arange(int(count), dtype=np.int64)[:, None] * template.num_aux
        return ~(base + k + cols[None, :])

    def _stamp_block(self, template, count, inputs, aux_values) -> int:
        """Check the interface, account the block, hand it to the mode; returns its aux base."""
        count = int(count)
        t_in = template.num_inputs - 1
        if inputs is None:
            inputs = np.zeros((count, 0), dtype=np.int64)
        inputs = np.asarray(inputs, dtype=np.int64)
        if inputs.ndim == 1 and count == 1:
            inputs = inputs.reshape(1, -1)
        if inputs.shape != (count, t_in):
            raise ValueError(f"stamp: inputs must have shape ({count}, {t_in}), got {inputs.shape}")
        if inputs.size and (inputs.max() >= self.num_inputs or inputs.min() < -self.num_aux):
            raise ValueError("stamp: inputs refer to variables that do not exist")
        base = self.num_aux
        self.num_aux = base + count * template.num_aux
        self._record_stamp(template, count, inputs, base)
        self._set_stamp_values(template, count, aux_values)
        self.num_constraints += count * template.num_constraints
        return base

