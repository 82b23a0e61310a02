"""neptune v11 Poseidon outside the circuit (Filecoin's PoseidonHasher).

A hash of `arity` elements permutes [domain_tag, x_1..x_arity] and returns
state element 1 (neptune's `extract_output`).

`hash_ints` is the plain textbook permutation (neptune's `hash_correct`: add
the round keys, x^5 on all or on element 0, multiply by the MDS matrix) on
Python ints, independent of the preprocessed constants; it is the oracle.
`hash_many` runs neptune's fast path (`hash_optimized_static`: compressed
round constants, pre-sparse and sparse matrices) in a parallel numba kernel;
the same kernel, told to record, yields the witness of the circuit gadget
(`neptune_stamped`), since neptune's circuit follows that fast path.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from cuzk.field import field_kernels
from cuzk.field.codegen import INTERNAL, build_module, fill

from .neptune_constants import CURVE, neptune_constants
from .native import LOAD3_SOURCE

KERNEL_SOURCE = LOAD3_SOURCE + '''

{INTERNAL}
def _dense(st, tmp, m):
    """st <- st^T m (neptune multiplies the state row vector from the left)."""
    t = st.shape[0]
    for j in range(t):
        acc = fr_mul(fr_load(st, 0), _load3(m, 0, j))
        for i in range(1, t):
            acc = fr_add(acc, fr_mul(fr_load(st, i), _load3(m, i, j)))
        fr_store(tmp, j, acc)
    for j in range(t):  # not st[:, :] = tmp: a broadcasting assignment compiles for ~3 s
        fr_store(st, j, fr_load(tmp, j))

{INTERNAL}
def _sparse(st, w_hat, v_rest, k):
    t = st.shape[0]
    z0 = fr_load(st, 0)
    acc = fr_mul(z0, _load3(w_hat, k, 0))
    for i in range(1, t):
        acc = fr_add(acc, fr_mul(fr_load(st, i), _load3(w_hat, k, i)))
        fr_store(st, i, fr_add(fr_load(st, i), fr_mul(z0, _load3(v_rest, k, i - 1))))
    fr_store(st, 0, acc)

{INTERNAL}
def _sbox(st, i, key, has_key, record, aux, pos):
    """x^5 (+ key) on st[i]; recording writes x, x^2, x^4, x^5 + key (the gadget's order)."""
    x = fr_load(st, i)
    x2 = fr_sqr(x)
    x4 = fr_sqr(x2)
    y = fr_mul(x4, x)
    if has_key:
        y = fr_add(y, key)
    fr_store(st, i, y)
    if record:
        fr_store(aux, pos, x)
        fr_store(aux, pos + 1, x2)
        fr_store(aux, pos + 2, x4)
        fr_store(aux, pos + 3, y)
        return pos + 4
    return pos

{INTERNAL}
def _mix(st, tmp, r, half, R_P, mds, pre, w_hat, v_rest):
    if r == half - 1:
        _dense(st, tmp, pre)
    elif r >= half and r < half + R_P:
        _sparse(st, w_hat, v_rest, r - half)
    else:
        _dense(st, tmp, mds)

{INTERNAL}
def _hash_one(st, tmp, rc, mds, pre, w_hat, v_rest, R_F, R_P, record, aux):
    """neptune's optimized static permutation of st in place; with `record`, the values
    the circuit gadget allocates, in its order, go to aux. Returns the aux count."""
    t = st.shape[0]
    half = R_F // 2
    pos = 0
    # first round: keys before and after the S-box; the tag's S-box is a constant
    for i in range(t):
        x = fr_add(fr_load(st, i), fr_load(rc, i))
        x2 = fr_sqr(x)
        x4 = fr_sqr(x2)
        y = fr_add(fr_mul(x4, x), fr_load(rc, t + i))
        fr_store(st, i, y)
        if record and i > 0:
            fr_store(aux, pos, x2)
            fr_store(aux, pos + 1, x4)
            fr_store(aux, pos + 2, y)
            pos += 3
    off = 2 * t
    _mix(st, tmp, 0, half, R_P, mds, pre, w_hat, v_rest)
    nr = R_F + R_P
    for r in range(1, nr):
        full = r < half or r >= half + R_P
        if full:
            last = r == nr - 1
            for i in range(t):
                pos = _sbox(st, i, fr_load(rc, 0 if last else off + i), not last, record, aux, pos)
            if not last:
                off += t
        else:
            pos = _sbox(st, 0, fr_load(rc, off), True, record, aux, pos)
            off += 1
        _mix(st, tmp, r, half, R_P, mds, pre, w_hat, v_rest)
    if record:
        fr_store(aux, pos, fr_load(st, 1))
        pos += 1
    return pos

@njit(nogil=True, cache=True)
def neptune_hash_span(lo, hi, inputs, out, tag, rc, mds, pre, w_hat, v_rest, R_F, R_P, record, aux, nchunks):
    n, arity = inputs.shape[0], inputs.shape[1]
    t = arity + 1
    for c in range(lo, hi):
        st = np.empty((t, 4), dtype=np.uint64)
        tmp = np.empty((t, 4), dtype=np.uint64)
        for k in range(c * n // nchunks, (c + 1) * n // nchunks):
            for q in range(4):  # element by element: an array assignment compiles ~3 s of shape checks
                st[0, q] = tag[q]
                for i in range(arity):
                    st[i + 1, q] = inputs[k, i, q]
            _hash_one(st, tmp, rc, mds, pre, w_hat, v_rest, R_F, R_P, record, aux[k] if record else aux[0])
            for q in range(4):
                out[k, q] = st[1, q]

def neptune_hash(inputs, out, tag, rc, mds, pre, w_hat, v_rest, R_F, R_P, record, aux, nchunks):
    """inputs uint64[N, arity, 4] -> out uint64[N, 4]; with record, aux[N, num_aux, 4]."""
    nchunks = max(1, min(inputs.shape[0], nchunks))
    run_spans(neptune_hash_span, nchunks, inputs, out, tag, rc, mds, pre, w_hat, v_rest, R_F, R_P, record, aux,
              nchunks)
'''


@functools.cache
def neptune_kernels():
    field_mod = field_kernels(CURVE)
    source = f"from {field_mod.__name__} import *\n" + fill(KERNEL_SOURCE, INTERNAL=INTERNAL)
    return build_module(f"{CURVE}_neptune_poseidon", source)


def check_inputs(inputs: np.ndarray) -> np.ndarray:
    inputs = np.ascontiguousarray(inputs, dtype=np.uint64)
    if inputs.ndim != 3 or inputs.shape[2] != 4:
        raise ValueError(f"inputs must be uint64[N, arity, 4], got {inputs.shape}")
    return inputs


def run_kernel(inputs: np.ndarray, strength: str, aux: np.ndarray | None) -> np.ndarray:
    """The kernel over validated inputs; fills `aux` when given. Returns out uint64[N, 4]."""
    return run_kernel_with(inputs, neptune_constants(inputs.shape[1], strength), aux)


def run_kernel_with(inputs: np.ndarray, C, aux: np.ndarray | None) -> np.ndarray:
    """run_kernel with the constants `C` (a NeptuneConstants of the inputs' arity)."""
    out = np.empty((inputs.shape[0], 4), dtype=np.uint64)
    if inputs.shape[0] == 0:
        return out
    record = aux is not None
    if aux is None:
        aux = np.empty((1, 1, 4), dtype=np.uint64)
    nchunks = 16 * numba.get_num_threads()  # per-chunk scratch state; small chunks balance the threads
    neptune_kernels().neptune_hash(inputs, out, *C.kernel_arrays, C.R_F, C.R_P, record, aux, nchunks)
    return out


def hash_many(inputs: np.ndarray, strength: str = "standard") -> np.ndarray:
    """Hashes of N tuples: inputs uint64[N, arity, 4] Montgomery -> uint64[N, 4] Montgomery."""
    return run_kernel(check_inputs(inputs), strength, None)


def hash_ints(values: list[int], strength: str = "standard") -> int:
    """One hash of len(values) field elements (ints < r), by the plain permutation."""
    values = [int(v) for v in values]
    C = neptune_constants(len(values), strength)
    p, t, half = C.p, C.t, C.half_full_rounds
    if any(not 0 <= v < p for v in values):
        raise ValueError("hash inputs must be field elements (0 <= v < r)")
    state = [C.domain_tag] + values
    for r in range(C.R_F + C.R_P):
        state = [(s + k) % p for s, k in zip(state, C.round_keys(r))]
        full = r < half or r >= half + C.R_P
        for i in range(t if full else 1):
            state[i] = pow(state[i], 5, p)
        state = [sum(state[i] * C.mds[i][j] for i in range(t)) % p for j in range(t)]
    return state[1]

