"""Variables are ints (or numpy int64 arrays of them): `Variable` is an int.

Encoding (chosen so a variable needs no object and arrays of variables can
be remapped with numpy):

* input i  -> i        (i >= 0; input 0 is the constant ONE)
* aux j    -> ~j = -j-1 (always negative)

The final column of a variable in the flat witness w = [1, inputs..., aux...]
is `i` for input i and `num_inputs + j` for aux j; it is fixed only when the
circuit is compiled, because inputs may be allocated after aux variables
(bellperson circuits interleave them).

`alloc`/`alloc_input` return `Variable`, an int subclass whose arithmetic
builds linear combinations instead of adding codes: `x + y`, `x - y`, `-x`,
`3 * x` are LCs. (Elements of the int64 arrays from `alloc_many` are plain
numpy ints: wrap them with `LC.of(v)` / `LC.from_arrays(...)` or `Variable(v)`.)
"""

from __future__ import annotations

import numpy as np

from .linear_combination import ONE_CODE, LinearCombination


class Variable(int):
    """A variable code (see module doc) whose + - * build linear combinations."""

    __slots__ = ()

    def lc(self):
        return LinearCombination.of(self)

    def __add__(self, other):
        return self.lc() + other

    def __radd__(self, other):
        return LinearCombination.coerce(other) + self

    def __sub__(self, other):
        return self.lc() - other

    def __rsub__(self, other):
        return LinearCombination.coerce(other) - self

    def __neg__(self):
        return LinearCombination.of(self, -1)

    def __mul__(self, k):
        if isinstance(k, Variable) or not isinstance(k, (int, np.integer)):
            return NotImplemented  # a product of variables is not linear
        return LinearCombination.of(self, int(k))

    __rmul__ = __mul__

    def __repr__(self):
        return f"Variable({describe(self)})"


ONE = Variable(ONE_CODE)  # input 0, the constant 1


def input_var(i: int) -> Variable:
    return Variable(i)


def aux_var(j: int) -> Variable:
    return Variable(~j)


def is_aux(var) -> bool | np.ndarray:
    return var < 0


def is_input(var) -> bool | np.ndarray:
    return var >= 0


def index_of(var):
    """Index within its kind (input index or aux index); works on arrays."""
    if isinstance(var, np.ndarray):
        return np.where(var < 0, ~var, var)
    return ~var if var < 0 else var


def columns(var, num_inputs: int):
    """Column in w = [1, inputs..., aux...] for variable code(s)."""
    if isinstance(var, np.ndarray):
        return np.where(var < 0, num_inputs + ~var, var)
    return num_inputs + ~var if var < 0 else var


def describe(var: int) -> str:
    var = int(var)
    return f"aux {~var}" if var < 0 else ("ONE" if var == 0 else f"input {var}")
