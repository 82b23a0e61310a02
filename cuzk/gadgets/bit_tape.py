"""Witness programs for bit-level templates, run vectorized over N instances.

While a bit-level gadget (Boolean, UInt32, SHA-256) is recorded into a
template, every aux bit it allocates also appends one instruction to a
`BitTape`: how that bit's value follows from earlier bits (XOR, AND, CH,
MAJ of literals; bit j of an integer sum; or an external witness bit). Because the
tape is written by the same calls that allocate, its order *is* the
template's aux order. `run` executes the tape for N instances at once in a
numba kernel (parallel over instances) and yields the aux assignment of N
stamped copies, so no per-instance Python gadget call is needed.
`run_sliced` executes it bit-sliced: 64 instances per uint64 word, so one
XOR/AND/CH/MAJ instruction serves 64 instances and a sum bit comes from a
bit-sliced ripple-carry accumulator; its result (`SlicedBits`, one bit per
aux value) goes into the witness store as it is.

Literals are int64: (index << 2) | (is_aux << 1) | negated, where index is
a template input index (0 = ONE, so constant 1 is literal 0 and constant 0
is literal 1) or a template aux index.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from array import array
from dataclasses import dataclass

import numpy as np
from numba import njit

from cuzk.field.threads import run_spans
from cuzk.r1cs.bit_slices import SlicedBits, pack_words

OP_EXT, OP_XOR, OP_AND, OP_CH, OP_SUMBIT, OP_MAJ = 0, 1, 2, 3, 4, 5

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

    @functools.cached_property
    def sum_positions(self) -> np.ndarray:
        """Per sum literal: p where its weight is 2^p (0 <= p < 64), else -1."""
        w = self.sum_weights
        pos = np.full(len(w), -1, dtype=np.int64)
        pow2 = (w > 0) & ((w & (w - 1)) == 0)
        pos[pow2] = np.log2(w[pow2].astype(np.float64)).round().astype(np.int64)
        return pos

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


    def run_sliced(self, inputs: np.ndarray, external: np.ndarray | None = None) -> SlicedBits:
        """The aux bits of `run`, bit-sliced (same arguments)."""
        inputs = np.asarray(inputs, dtype=np.uint8)
        n = inputs.shape[0]
        if external is None:
            external = np.zeros((n, 0), dtype=np.uint8)
        external = np.ascontiguousarray(external, dtype=np.uint8)
        if external.shape != (n, self.num_external):
            raise ValueError(f"external bits must have shape ({n}, {self.num_external}), got {external.shape}")
        groups = (n + 63) >> 6
        in_words = np.empty((groups, inputs.shape[1] + 1), dtype=np.uint64)
        in_words[:, 0] = ~np.uint64(0)  # ONE in every lane
        packed = np.empty((groups, inputs.shape[1]), dtype=np.uint64)
        pack_words(np.ascontiguousarray(inputs), packed)
        in_words[:, 1:] = packed
        ext_words = np.empty((groups, self.num_external), dtype=np.uint64)
        pack_words(external, ext_words)
        out = np.empty((groups, self.num_aux), dtype=np.uint64)
        _run_sliced(self.ops, self.a, self.b, self.c, self.sum_ptr, self.sum_lits, self.sum_weights,
                    self.sum_positions, self.sum_const, in_words, ext_words, out)
        return SlicedBits(out, n)


@njit(cache=True, inline="always")
def _lit(lit, inp, aux):
    idx = lit >> 2
    v = aux[idx] if lit & 2 else inp[idx]
    return v ^ np.uint8(lit & 1)


@njit(nogil=True, cache=True)
def _run_span(s0, s1, ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_const, inputs, external, out):
    n = inputs.shape[0]
    m = ops.shape[0]
    for k in range(s0, s1):
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
            elif op == 5:  # MAJ: at least two of a, b, c
                x = _lit(a[j], inp, aux)
                y = _lit(b[j], inp, aux)
                aux[j] = (x & y) | (_lit(c[j], inp, aux) & (x | y))
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


def _run(ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_const, inputs, external, out):
    run_spans(_run_span, inputs.shape[0], ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_const, inputs, external,
              out)


@njit(cache=True, inline="always")
def _wlit(lit, inp, aux):
    idx = lit >> 2
    v = aux[idx] if lit & 2 else inp[idx]
    if lit & 1:
        v = ~v
    return v


@njit(cache=True, inline="always")
def _flush(acc, carry, pos):
    """Add a carry word into acc at bit position pos (mod 2^64)."""
    while carry != 0 and pos < 64:
        t = acc[pos] & carry
        acc[pos] ^= carry
        carry = t
        pos += 1


@njit(nogil=True, cache=True)
def _run_sliced_span(s0, s1, ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_pos, sum_const, inputs, external,
                     out):
    groups = inputs.shape[0]
    m = ops.shape[0]
    for g in range(s0, s1):
        inp = inputs[g]
        aux = out[g]
        acc = np.zeros(64, dtype=np.uint64)  # bit i of the sum in each lane
        for j in range(m):
            op = ops[j]
            if op == 1:  # XOR
                aux[j] = _wlit(a[j], inp, aux) ^ _wlit(b[j], inp, aux)
            elif op == 2:  # AND
                aux[j] = _wlit(a[j], inp, aux) & _wlit(b[j], inp, aux)
            elif op == 3:  # CH: a ? b : c
                x = _wlit(a[j], inp, aux)
                y = _wlit(b[j], inp, aux)
                z = _wlit(c[j], inp, aux)
                aux[j] = z ^ (x & (y ^ z))
            elif op == 5:  # MAJ
                x = _wlit(a[j], inp, aux)
                y = _wlit(b[j], inp, aux)
                aux[j] = (x & y) | (_wlit(c[j], inp, aux) & (x | y))
            elif op == 4:  # bit b of sum a
                if b[j] == 0:
                    s = a[j]
                    k0 = np.uint64(sum_const[s])
                    for i in range(64):
                        acc[i] = ~np.uint64(0) if (k0 >> np.uint64(i)) & np.uint64(1) else np.uint64(0)
                    # ripple-carry: a run of literals at positions p, p+1, ... (one operand word)
                    # is a chain of full adders; the carry is flushed when the run breaks
                    carry = np.uint64(0)
                    cpos = 0
                    for t in range(sum_ptr[s], sum_ptr[s + 1]):
                        x = _wlit(sum_lits[t], inp, aux)
                        p = sum_pos[t]
                        if p >= 0:  # weight 2^p
                            if p != cpos:
                                _flush(acc, carry, cpos)
                                carry = np.uint64(0)
                            y = acc[p]
                            acc[p] = y ^ x ^ carry
                            carry = (y & x) | (carry & (y ^ x))
                            cpos = p + 1
                            continue
                        _flush(acc, carry, cpos)  # any other weight: x * 2^q for each set bit q
                        carry = np.uint64(0)
                        w = np.uint64(sum_weights[t])
                        q = 0
                        while w != 0 and q < 64:
                            if w & np.uint64(1):
                                _flush(acc, x, q)
                            w >>= np.uint64(1)
                            q += 1
                    _flush(acc, carry, cpos)
                aux[j] = acc[b[j]]
            else:  # external
                aux[j] = external[g, a[j]]


def _run_sliced(ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_pos, sum_const, inputs, external, out):
    run_spans(_run_sliced_span, inputs.shape[0], ops, a, b, c, sum_ptr, sum_lits, sum_weights, sum_pos, sum_const,
              inputs, external, out)


def bits_to_montgomery(bits: np.ndarray, fr) -> np.ndarray:
    """0/1 array -> Montgomery uint64[..., L] (0 or R), written in parallel."""
    bits = np.ascontiguousarray(bits, dtype=np.uint8)
    one = np.ascontiguousarray(fr.ones(1)[0])
    out = np.empty(bits.shape + (len(one),), dtype=np.uint64)
    _bits_to_mont(bits.reshape(-1), one, out.reshape(-1, len(one)))
    return out


@njit(nogil=True, cache=True)
def _bits_to_mont_span(s0, s1, bits, one, out):
    bits, out = bits[s0:s1], out[s0:s1]  # indexed from 0: as fast as a prange loop (codegen.per_span_rows)
    for i in range(bits.shape[0]):
        if bits[i]:
            for j in range(one.shape[0]):
                out[i, j] = one[j]
        else:
            for j in range(one.shape[0]):
                out[i, j] = 0


def _bits_to_mont(bits, one, out):
    run_spans(_bits_to_mont_span, bits.shape[0], bits, one, out)
