"""Poseidon outside the circuit, vectorized over N instances (numba, parallel).

Hash framing (the one circomlib uses, so BN254 hashes agree with circom's
Poseidon(arity) templates): a hash of `arity` elements x_1..x_arity runs the
width t = arity + 1 permutation on the state [0, x_1, ..., x_arity] (state[0]
is the capacity, initialised to 0) and outputs state[0]. One permutation per
hash; inputs of different arities use different parameter sets, so no extra
domain separation is needed between them.

Permutation (Poseidon paper, as `poseidonperm_x5_*.sage` in the reference
repository): per round add the round constants, apply x^5 to every element
(full rounds: the first and last R_F/2) or to state[0] only (partial
rounds), then multiply by the MDS matrix. The kernels run the partial rounds
in the equivalent sparse-matrix form (`params.SparsePartialRounds`), which
leaves every S-box input, and so the gadget witness, unchanged.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import field_kernels, fields_of
from cuzk.field.codegen import INTERNAL, build_module, fill

from .params import poseidon_params

# An Fr element of a uint64[n, m, 4] table (MDS matrices, round constants); neptune_native's too.
LOAD3_SOURCE = '''
{INTERNAL}
def _load3(arr, i, j):
    return (arr[i, j, 0], arr[i, j, 1], arr[i, j, 2], arr[i, j, 3])
'''

KERNEL_SOURCE = LOAD3_SOURCE + '''
{INTERNAL}
def _sbox(x):
    x2 = fr_sqr(x)
    x4 = fr_sqr(x2)
    return fr_mul(x4, x), x2, x4

{INTERNAL}
def _mix(st, mds, tmp):
    t = st.shape[0]
    for i in range(t):
        acc = FR_ZERO
        for j in range(t):
            acc = fr_add(acc, fr_mul(_load3(mds, i, j), fr_load(st, j)))
        fr_store(tmp, i, acc)
    for i in range(t):  # not st[:, :] = tmp: a broadcasting assignment compiles for ~3 s
        fr_store(st, i, fr_load(tmp, i))

{INTERNAL}
def _add_constants(st, rc, r):
    for i in range(st.shape[0]):
        fr_store(st, i, fr_add(fr_load(st, i), _load3(rc, r, i)))

{INTERNAL}
def _sparse_mix(st, b00, row, col, k):
    # B_k = [[b00, row], [col, I]] applied to st
    t = st.shape[0]
    z0 = fr_load(st, 0)
    acc = fr_mul(fr_load(b00, k), z0)
    for j in range(t - 1):
        acc = fr_add(acc, fr_mul(_load3(row, k, j), fr_load(st, j + 1)))
    for i in range(1, t):
        fr_store(st, i, fr_add(fr_load(st, i), fr_mul(_load3(col, k, i - 1), z0)))
    fr_store(st, 0, acc)

{INTERNAL}
def _permute_one(st, tmp, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc, out):
    t = st.shape[0]
    half = R_F // 2
    pos = 0
    for r in range(R_F + R_P):
        full = r < half or r >= half + R_P
        if full:
            _add_constants(st, rc, r)
        else:
            _add_constants(st, prc, r - half)
        for i in range(t if full else 1):
            y, x2, x4 = _sbox(fr_load(st, i))
            fr_store(st, i, y)
            if alloc[r, i]:
                fr_store(out, pos, x2)
                fr_store(out, pos + 1, x4)
                fr_store(out, pos + 2, y)
                pos += 3
        if not full:
            _sparse_mix(st, b00, row, col, r - half)
        elif r == half - 1:
            _mix(st, first_mds, tmp)
        else:
            _mix(st, mds, tmp)
    return pos

@njit(nogil=True, cache=True)
def poseidon_permute_span(s0, s1, states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P):
    t = states.shape[1]
    alloc = np.zeros((R_F + R_P, t), dtype=np.uint8)
    for k in range(s0, s1):
        st = states[k]
        tmp = np.empty_like(st)
        _permute_one(st, tmp, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc, tmp)


def poseidon_permute(states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P):
    """In place: states uint64[N, t, 4] Montgomery."""
    run_spans(poseidon_permute_span, states.shape[0], states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P)

@njit(nogil=True, cache=True)
def poseidon_witness_span(s0, s1, states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc, aux):
    for k in range(s0, s1):
        st = states[k]
        out = aux[k]
        tmp = np.empty_like(st)
        pos = _permute_one(st, tmp, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc, out)
        fr_store(out, pos, fr_load(st, 0))


def poseidon_witness(states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc, aux):
    """The permutation, also writing each allocated S-box's (x^2, x^4, x^5)
    and finally state[0] into aux[k] in the gadget's allocation order.
    alloc: uint8[rounds, t], 1 where the gadget allocates that S-box."""
    run_spans(poseidon_witness_span, states.shape[0], states, rc, mds, first_mds, prc, b00, row, col, R_F, R_P, alloc,
              aux)
'''


@functools.cache
def poseidon_kernels(curve: str):
    field_mod = field_kernels(curve)
    source = f"from {field_mod.__name__} import *\n" + fill(KERNEL_SOURCE, INTERNAL=INTERNAL)
    return build_module(f"{curve}_poseidon", source)


def permute(curve: str, states: np.ndarray) -> np.ndarray:
    """Poseidon permutation of uint64[N, t, 4] Montgomery states (t = arity + 1)."""
    states = np.array(states, dtype=np.uint64, copy=True, order="C")
    if states.ndim != 3 or states.shape[2] != 4:
        raise ValueError(f"states must be uint64[N, t, 4], got {states.shape}")
    P = poseidon_params(curve, states.shape[1] - 1)
    poseidon_kernels(curve).poseidon_permute(states, *kernel_params(P))
    return states


def kernel_params(P) -> tuple:
    """The constant arguments of the kernels, in order (see `params.SparsePartialRounds`)."""
    S = P.sparse
    return (P.rc_mont, P.mds_mont, S.first_mds, S.constants, S.b00, S.row, S.col, P.R_F, P.R_P)


def initial_states(inputs: np.ndarray) -> np.ndarray:
    """[0, x_1..x_arity] per instance from inputs uint64[N, arity, 4]."""
    n, arity, limbs = inputs.shape
    states = np.zeros((n, arity + 1, limbs), dtype=np.uint64)
    states[:, 1:] = inputs
    return states


def poseidon_hash(curve: str, inputs: np.ndarray) -> np.ndarray:
    """Hashes of N tuples: inputs uint64[N, arity, 4] Montgomery -> uint64[N, 4]."""
    inputs = np.asarray(inputs, dtype=np.uint64)
    if inputs.ndim != 3 or inputs.shape[2] != 4:
        raise ValueError(f"inputs must be uint64[N, arity, 4], got {inputs.shape}")
    return permute(curve, initial_states(inputs))[:, 0].copy()


def poseidon_hash_ints(curve: str, values: list[int]) -> int:
    """One hash of Python ints (edge/test convenience)."""
    fr = fields_of(curve)[0]
    out = poseidon_hash(curve, fr.from_ints(values).reshape(1, len(values), fr.limbs))
    return fr.to_ints(out)[0]
