"""Witness programs for bit-level templates, run vectorized over N instances.

While a bit-level gadget (Boolean, UInt32, SHA-256) is recorded into a
template, every aux bit it allocates also appends one instruction to a
`BitTape`: how that bit's value follows from earlier bits (XOR, AND, CH of
literals; bit j of an integer sum; or an external witness bit). Because the
tape is written by the same calls that allocate, its order *is* the
template's aux order. `run` executes the tape for N instances at once in a
numba kernel (parallel over instances) and yields the aux assignment of N
stamped copies, so no per-instance Python gadget call is needed.

Literals are int64: (index << 2) | (is_aux << 1) | negated, where index is
a template input index (0 = ONE, so constant 1 is literal 0 and constant 0
is literal 1) or a template aux index.
"""

from __future__ import annotations

import contextlib
import contextvars
from array import array
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

OP_EXT, OP_XOR, OP_AND, OP_CH, OP_SUMBIT = 0, 1, 2, 3, 4

_active: contextvars.ContextVar = contextvars.ContextVar("cuzk_bit_tape", default=None)


def literal(var: int | None, negated: bool, constant: bool | None = None) -> int:
    """Encode a Boolean's literal (var None means the constant `constant`)."""
    if var is None:
        return 0 if constant else 1
    var = int(var)
    if var < 0:
        return ((~var) << 2) | 2 | int(negated)
    return (var << 2) | int(negated)


class BitTape:
    """The instruction list being recorded (growable int64 arrays)."""

    def __init__(self, cs):
        self.cs = cs
        self.base = cs.num_aux
        self.ops = array("q")
        self.a = array("q")
        self.b = array("q")
        self.c = array("q")
        self.sum_ptr = array("q", [0])
        self.sum_lits = array("q")
        self.sum_weights = array("q")
        self.sum_const = array("q")
        self.num_external = 0

    def push(self, var: int, op: int, a: int = 0, b: int = 0, c: int = 0) -> None:
        expected = self.base + len(self.ops)
        if ~int(var) != expected:
            raise RuntimeError(
                f"bit tape out of step: aux {~int(var)} allocated, tape expected aux {expected} "
                "(only Boolean/UInt32 gadgets may allocate inside a bit-level template)"
            )
        self.ops.append(op)
        self.a.append(a)
        self.b.append(b)
        self.c.append(c)

    def external(self, var: int) -> None:
        self.push(var, OP_EXT, self.num_external)
        self.num_external += 1

    def add_sum(self, lits, weights, const: int) -> int:
        self.sum_lits.extend(int(x) for x in lits)
        self.sum_weights.extend(int(w) for w in weights)
        self.sum_ptr.append(len(self.sum_lits))
        self.sum_const.append(int(const))
        return len(self.sum_const) - 1

    def program(self) -> "BitProgram":
        def arr(x):
            return np.frombuffer(x, dtype=np.int64).copy() if len(x) else np.zeros(0, np.int64)

        return BitProgram(
            arr(self.ops), arr(self.a), arr(self.b), arr(self.c), arr(self.sum_ptr),
            arr(self.sum_lits), arr(self.sum_weights), arr(self.sum_const), self.num_external,
        )


def active_tape(cs) -> BitTape | None:
    tape = _active.get()
    return tape if tape is not None and tape.cs is cs else None


@contextlib.contextmanager
def recording(cs):
    """Record a bit tape for the aux bits `cs` allocates inside the block."""
    tape = BitTape(cs)
    token = _active.set(tape)
    try:
        yield tape
    finally:
        _active.reset(token)


@dataclass(frozen=True, eq=False)
class BitProgram:
    """A recorded tape as arrays (see module doc)."""

    ops: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    sum_ptr: np.ndarray
    sum_lits: np.ndarray
    sum_weights: np.ndarray
    sum_const: np.ndarray
    num_external: int

    @property
    def num_aux(self) -> int:
        return len(self.ops)

    def run(self, inputs: np.ndarray, external: np.ndarray | None = None) -> np.ndarray:
        """Aux bits uint8[N, num_aux] for N instances.

        inputs: bits uint8[N, num_inputs - 1] for template inputs 1.. (ONE is
        implied); external: bits uint8[N, num_external] for the tape's
        externally supplied bits, in allocation order.
        """
        inputs = np.asarray(inputs, dtype=np.uint8)
        n = inputs.shape[0]
        full = np.empty((n, inputs.shape[1] + 1), dtype=np.uint8)
        full[:, 0] = 1
        full[:, 1:] = inputs
        if external is None:
            external = np.zeros((n, 0), dtype=np.uint8)
        external = np.ascontiguousarray(external, dtype=np.uint8)
        if external.shape != (n, self.num_external):
            raise ValueError(f"external bits must have shape ({n}, {self.num_external}), got {external.shape}")
        out = np.empty((n, self.num_aux), dtype=np.uint8)
        _run(self.ops, self.a, self.b, self.c, self.sum_ptr, self.sum_lits, self.sum_weights,
             self.sum_const, full, external, out)
        return out


@njit(cache=True, inline="always")
def _lit(lit, inp, aux):
    idx = lit >> 2
    v = aux[idx] if lit & 2 else inp[idx]
    return v ^ np.uint8(lit & 1)


@njit(parallel=True, nogil=True, cache=True)
def _run(ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_const, inputs, external, out):
    n = inputs.shape[0]
    m = ops.shape[0]
    for k in prange(n):
        inp = inputs[k]
        aux = out[k]
        acc = np.uint64(0)
        for j in range(m):
            op = ops[j]
            if op == 1:  # XOR
                aux[j] = _lit(a[j], inp, aux) ^ _lit(b[j], inp, aux)
            elif op == 2:  # AND
                aux[j] = _lit(a[j], inp, aux) & _lit(b[j], inp, aux)
            elif op == 3:  # CH: a ? b : c
                if _lit(a[j], inp, aux):
                    aux[j] = _lit(b[j], inp, aux)
                else:
                    aux[j] = _lit(c[j], inp, aux)
            elif op == 4:  # bit b of sum a
                if b[j] == 0:
                    s = a[j]
                    acc = np.uint64(sum_const[s])
                    for t in range(sum_ptr[s], sum_ptr[s + 1]):
                        if _lit(sum_lits[t], inp, aux):
                            acc += np.uint64(sum_weights[t])
                aux[j] = np.uint8((acc >> np.uint64(b[j])) & np.uint64(1))
            else:  # external
                aux[j] = external[k, a[j]]


def bits_to_montgomery(bits: np.ndarray, fr) -> np.ndarray:
    """0/1 array -> Montgomery uint64[..., L] (0 or R), written in parallel."""
    bits = np.ascontiguousarray(bits, dtype=np.uint8)
    one = np.ascontiguousarray(fr.ones(1)[0])
    out = np.empty(bits.shape + (len(one),), dtype=np.uint64)
    _bits_to_mont(bits.reshape(-1), one, out.reshape(-1, len(one)))
    return out


@njit(parallel=True, nogil=True, cache=True)
def _bits_to_mont(bits, one, out):
    for i in prange(bits.shape[0]):
        if bits[i]:
            for j in range(one.shape[0]):
                out[i, j] = one[j]
        else:
            for j in range(one.shape[0]):
                out[i, j] = 0
