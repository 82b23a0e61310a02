"""WitnessCS: computes only the assignment; `enforce` is free.

Values live in a `ValueStore` per kind (inputs, aux): scalar `alloc`s
collect Python ints in a pending list that is packed into a canonical
uint64[n, 4] chunk every FLUSH values (so no circuit-sized list of ints
lingers), and vectorized allocations (`alloc_many`, `stamp`) append their
Montgomery arrays as chunks directly. `witness()` concatenates everything
into the flat Montgomery vector w = [1, inputs..., aux...].
"""

from __future__ import annotations

import bisect

import numpy as np

from .system import ConstraintSystem

FLUSH = 1 << 16


class ValueStore:
    """Values of one kind of variable, in allocation order, as array chunks."""

    def __init__(self, fr):
        self.fr = fr
        self.p = fr.p
        self._starts: list[int] = []  # start index of each chunk
        self._chunks: list[tuple[np.ndarray, bool]] = []  # (uint64[n, 4], is_montgomery)
        self._pending: list[int] = []
        self._pending_start = 0
        self.size = 0

    def append(self, value: int) -> None:
        self._pending.append(int(value) % self.p)
        self.size += 1
        if len(self._pending) >= FLUSH:
            self._flush()

    def extend(self, count: int, values) -> None:
        """values: Montgomery uint64[..., 4] (a uint64 array of ndim >= 2), or
        small non-negative integers as an integer array of any other kind
        (any shape, flattened; e.g. uint8 bits; not Montgomery), or ints."""
        limbs = self.fr.limbs
        is_array = isinstance(values, np.ndarray) and values.dtype.kind in "iub"
        if is_array and values.dtype == np.uint64 and values.ndim >= 2:
            if values.shape[-1] != limbs:
                raise ValueError(f"Montgomery values must be uint64[..., {limbs}], got shape {values.shape}")
            arr = np.ascontiguousarray(values).reshape(-1, limbs)
            mont = True
        elif is_array and (values.size == 0 or values.min() >= 0):
            arr = np.zeros((values.size, limbs), dtype=np.uint64)
            arr[:, 0] = values.ravel().astype(np.uint64)
            mont = False
        else:
            ints = [int(v) % self.p for v in values]
            arr = self.fr.canonical_from_ints(ints) if ints else np.zeros((0, self.fr.limbs), np.uint64)
            mont = False
        if arr.shape[0] != count:
            raise ValueError(f"expected {count} values, got {arr.shape[0]}")
        self._flush()
        self._starts.append(self.size)
        self._chunks.append((arr, mont))
        self.size += count
        self._pending_start = self.size

    def _flush(self) -> None:
        if self._pending:
            self._starts.append(self._pending_start)
            self._chunks.append((self.fr.canonical_from_ints(self._pending), False))
            self._pending = []
        self._pending_start = self.size

    def get(self, i: int) -> int:
        if not 0 <= i < self.size:
            raise IndexError(f"no value {i} (have {self.size})")
        if i >= self._pending_start:
            return self._pending[i - self._pending_start]
        k = bisect.bisect_right(self._starts, i) - 1
        arr, mont = self._chunks[k]
        row = arr[i - self._starts[k] : i - self._starts[k] + 1]
        return self.fr.to_ints(row)[0] if mont else self.fr.canonical_to_ints(row)[0]

    def to_montgomery(self) -> np.ndarray:
        """All values as Montgomery uint64[size, 4]."""
        self._flush()
        parts = [arr if mont else self.fr.to_mont(arr) for arr, mont in self._chunks]
        if not parts:
            return np.zeros((0, self.fr.limbs), dtype=np.uint64)
        return np.concatenate(parts) if len(parts) > 1 else parts[0].copy()

    def to_ints(self) -> list[int]:
        return self.fr.to_ints(self.to_montgomery())


def resolve(value, what: str):
    """A value argument -> its value (calls callables); None is an error."""
    if callable(value):
        value = value()
    if value is None:
        raise ValueError(f"{what}: a value is required in witness mode")
    return value


class ValueKeeper:
    """The value half shared by WitnessCS and TestCS."""

    def _init_values(self):
        self._inputs = ValueStore(self.fr)
        self._aux = ValueStore(self.fr)
        self._inputs.append(1)  # ONE

    def _set_aux(self, value) -> None:
        self._aux.append(resolve(value, "alloc"))

    def _set_input(self, value) -> None:
        self._inputs.append(resolve(value, "alloc_input"))

    def _set_aux_many(self, count, values) -> None:
        self._aux.extend(count, resolve(values, "alloc_many"))

    def _set_input_many(self, count, values) -> None:
        self._inputs.extend(count, resolve(values, "alloc_input_many"))

    def _set_stamp_values(self, template, count, aux_values) -> None:
        if count * template.num_aux:
            self._aux.extend(count * template.num_aux, resolve(aux_values, "stamp"))

    def value(self, var: int) -> int:
        """The value of a variable as a canonical int."""
        var = int(var)
        return self._aux.get(~var) if var < 0 else self._inputs.get(var)

    def input_assignment(self) -> np.ndarray:
        """Montgomery uint64[num_inputs, 4], ONE first."""
        return self._inputs.to_montgomery()

    def aux_assignment(self) -> np.ndarray:
        """Montgomery uint64[num_aux, 4]."""
        return self._aux.to_montgomery()

    def witness(self) -> np.ndarray:
        """Flat Montgomery w = [1, inputs..., aux...] (the SpMV input)."""
        return np.concatenate([self.input_assignment(), self.aux_assignment()])


class WitnessCS(ValueKeeper, ConstraintSystem):
    """Values only; enforce and namespaces cost (almost) nothing."""

    needs_values = True

    def __init__(self, curve: str):
        ConstraintSystem.__init__(self, curve)
        self._init_values()

    def enforce(self, a, b, c, name=None) -> None:
        self.num_constraints += 1
