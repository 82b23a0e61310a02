"""WitnessCS: computes only the assignment; `enforce` is free.

Values live in a `ValueStore` per kind (inputs, aux): scalar `alloc`s
collect Python ints in a pending list that is packed into a canonical
uint64[n, 4] chunk every FLUSH values (so no circuit-sized list of ints
lingers), and vectorized allocations (`alloc_many`, `stamp`) append their
arrays as chunks directly, in the form they come: Montgomery limbs, small
values (uint8/bool) at one byte each, or bit-sliced template bits
(`bit_slices.SlicedBits`: the SHA-256 templates' bits, 94% of a PoRep
partition, at one bit each). `witness()` writes everything once into
the flat Montgomery vector w = [1, inputs..., aux...] (a caller's buffer,
e.g. pinned memory, or a new array): small values through a 256-entry table
of their Montgomery forms, in parallel, so a bit costs 1 byte until then
and 32 bytes once, with no intermediate copies.
"""

from __future__ import annotations

import bisect
import functools

import numpy as np
from numba import njit

from cuzk.field.threads import run_spans, threads_for

from .bit_slices import SlicedBits, expand_sliced_chunks
from .system import ConstraintSystem
from .witness_phases import phase

FLUSH = 1 << 16
MONT, CANONICAL, SMALL, SLICED = 0, 1, 2, 3  # chunk forms: Montgomery limbs, canonical limbs, uint8, SlicedBits


class ValueStore:
    """Values of one kind of variable, in allocation order, as array chunks.

    Arrays handed to `extend` are kept, not copied: do not modify them afterwards."""

    def __init__(self, fr):
        self.fr = fr
        self.p = fr.p
        self._starts: list[int] = []  # start index of each chunk
        self._chunks: list[tuple[object, int]] = []  # (uint64[n, 4], uint8[n] or SlicedBits, form)
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
        if isinstance(values, SlicedBits):
            if values.size != count:
                raise ValueError(f"expected {count} values, got {values.size}")
            self._append_chunk(count, values, SLICED)
            return
        if is_array and values.dtype == np.uint64 and values.ndim >= 2:
            if values.shape[-1] != limbs:
                raise ValueError(f"Montgomery values must be uint64[..., {limbs}], got shape {values.shape}")
            arr = np.ascontiguousarray(values).reshape(-1, limbs)
            form = MONT
        elif is_array and values.dtype in (np.uint8, np.bool_):
            arr = np.ascontiguousarray(values).reshape(-1).view(np.uint8)
            form = SMALL
        elif is_array and (values.size == 0 or values.min() >= 0):
            arr = np.zeros((values.size, limbs), dtype=np.uint64)
            arr[:, 0] = values.ravel().astype(np.uint64)
            form = CANONICAL
        else:
            ints = [int(v) % self.p for v in values]
            arr = self.fr.canonical_from_ints(ints) if ints else np.zeros((0, self.fr.limbs), np.uint64)
            form = CANONICAL
        if arr.shape[0] != count:
            raise ValueError(f"expected {count} values, got {arr.shape[0]}")
        self._append_chunk(count, arr, form)

    def _append_chunk(self, count: int, arr, form: int) -> None:
        self._flush()
        self._starts.append(self.size)
        self._chunks.append((arr, form))
        self.size += count
        self._pending_start = self.size

    def _flush(self) -> None:
        if self._pending:
            self._starts.append(self._pending_start)
            self._chunks.append((self.fr.canonical_from_ints(self._pending), CANONICAL))
            self._pending = []
        self._pending_start = self.size

    def get(self, i: int) -> int:
        if not 0 <= i < self.size:
            raise IndexError(f"no value {i} (have {self.size})")
        if i >= self._pending_start:
            return self._pending[i - self._pending_start]
        k = bisect.bisect_right(self._starts, i) - 1
        arr, form = self._chunks[k]
        j = i - self._starts[k]
        if form == SLICED:
            return arr.bit(j)
        if form == SMALL:
            return int(arr[j])
        row = arr[j : j + 1]
        return self.fr.to_ints(row)[0] if form == MONT else self.fr.canonical_to_ints(row)[0]

    def write_montgomery(self, out: np.ndarray) -> None:
        """All values as Montgomery limbs into out uint64[size, L] (one pass, no copies;
        the bit-sliced chunks, most of a SHA-256 circuit, in one parallel kernel: on a
        busy machine every parallel region can stall for a time slice)."""
        self._flush()
        if out.shape != (self.size, self.fr.limbs):
            raise ValueError(f"need an output of shape ({self.size}, {self.fr.limbs}), got {out.shape}")
        sliced = []
        for start, (arr, form) in zip(self._starts, self._chunks):
            if form == SLICED:
                sliced.append((start, arr))
                continue
            n = arr.shape[0]
            dst = out[start : start + n]
            with threads_for(n):
                if form == SMALL:
                    _expand_small(arr, small_table(self.fr), dst)
                elif form == MONT:
                    _copy_rows(arr, dst)
                else:
                    dst[...] = self.fr.to_mont(arr)
        if sliced:
            _write_sliced(sliced, small_table(self.fr), out)

    def to_montgomery(self) -> np.ndarray:
        """All values as Montgomery uint64[size, 4]."""
        self._flush()
        out = np.empty((self.size, self.fr.limbs), dtype=np.uint64)
        self.write_montgomery(out)
        return out

    def to_ints(self) -> list[int]:
        return self.fr.to_ints(self.to_montgomery())


def _write_sliced(chunks: list, table: np.ndarray, out: np.ndarray) -> None:
    """Expand bit-sliced chunks [(start, SlicedBits)] into out, 64 instances per work item."""
    words = np.concatenate([c.words.reshape(-1) for _, c in chunks])
    meta = np.empty((len(chunks), 4), dtype=np.int64)  # words offset, width, count, start in out
    off = 0
    for i, (start, c) in enumerate(chunks):
        meta[i] = (off, c.width, c.count, start)
        off += c.words.size
    groups = np.array([c.words.shape[0] for _, c in chunks], dtype=np.int64)
    items = np.empty((int(groups.sum()), 2), dtype=np.int64)  # (chunk, word group)
    items[:, 0] = np.repeat(np.arange(len(chunks)), groups)
    items[:, 1] = np.arange(len(items)) - np.repeat(np.cumsum(groups) - groups, groups)
    if table.shape[1] != 4 or np.any(table[0]):
        raise ValueError("bit-sliced values need a 4-limb field whose zero is all-zero limbs")
    total = sum(c.size for _, c in chunks)
    with threads_for(total):
        expand_sliced_chunks(words, meta, items, table, out)


@functools.cache
def _small_table(fr) -> np.ndarray:
    canonical = np.zeros((256, fr.limbs), dtype=np.uint64)
    canonical[:, 0] = np.arange(256, dtype=np.uint64)
    table = np.ascontiguousarray(fr.to_mont(canonical))
    table.flags.writeable = False
    return table


def small_table(fr) -> np.ndarray:
    """Montgomery forms of 0..255, uint64[256, L] (read-only, cached per field)."""
    return _small_table(fr)


@njit(nogil=True, cache=True)
def _expand_small_span(lo, hi, vals, table, out):
    vals, out = vals[lo:hi], out[lo:hi]  # indexed from 0: as fast as a prange loop (codegen.per_span_rows)
    for i in range(vals.shape[0]):
        v = vals[i]
        for j in range(table.shape[1]):
            out[i, j] = table[v, j]


def _expand_small(vals, table, out):
    run_spans(_expand_small_span, vals.shape[0], vals, table, out)


@njit(nogil=True, cache=True)
def _copy_rows_span(lo, hi, src, out):
    src, out = src[lo:hi], out[lo:hi]
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            out[i, j] = src[i, j]


def _copy_rows(src, out):
    run_spans(_copy_rows_span, src.shape[0], src, out)


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

    def witness(self, out: np.ndarray | None = None) -> np.ndarray:
        """Flat Montgomery w = [1, inputs..., aux...] (the SpMV input), written
        into `out` (uint64[num_inputs + num_aux, L], C-contiguous, e.g. a
        pinned staging buffer) or a new array."""
        ni, na, limbs = self._inputs.size, self._aux.size, self.fr.limbs
        if out is None:
            out = np.empty((ni + na, limbs), dtype=np.uint64)
        elif out.dtype != np.uint64 or out.shape != (ni + na, limbs) or not out.flags.c_contiguous:
            raise ValueError(f"witness: out must be C-contiguous uint64[{ni + na}, {limbs}], "
                             f"got {out.dtype}{list(out.shape)}")
        with phase("assemble w"):
            self._inputs.write_montgomery(out[:ni])
            self._aux.write_montgomery(out[ni:])
        return out


class WitnessCS(ValueKeeper, ConstraintSystem):
    """Values only; enforce and namespaces cost (almost) nothing."""

    needs_values = True

    def __init__(self, curve: str):
        ConstraintSystem.__init__(self, curve)
        self._init_values()

    def enforce(self, a, b, c, name=None) -> None:
        self.num_constraints += 1
