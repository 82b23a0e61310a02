"""Poseidon hash as a stamping template with a vectorized witness.

Template interface: the `arity` inputs (template inputs 1..arity); aux: the
S-box intermediates in allocation order, then the output (`outputs`).
`hash_witness` computes the aux of N stamped hashes in one parallel numba
kernel that runs the permutation and stores what the gadget allocates.
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.r1cs import RecordingCS

from ..num import Num
from ..stamped import StampedGadget, output_indices
from .gadget import allocated_sboxes, poseidon_hash
from .native import initial_states, kernel_params, poseidon_kernels
from .params import poseidon_params


@functools.cache
def hash_template(curve: str, arity: int) -> StampedGadget:
    cs = RecordingCS(curve)
    iface = cs.alloc_input_many(arity)
    out = poseidon_hash(cs, [Num.of_var(v, None, cs.modulus) for v in iface.tolist()])
    return StampedGadget(curve, cs.template(), output_indices([out.single_var()]))


@functools.cache
def _alloc_mask(curve: str, arity: int) -> np.ndarray:
    return np.array(allocated_sboxes(poseidon_params(curve, arity)), dtype=np.uint8)


def hash_witness(curve: str, inputs: np.ndarray) -> np.ndarray:
    """Aux assignment uint64[N, num_aux, 4] (Montgomery) of N stamped hashes
    of inputs uint64[N, arity, 4] (Montgomery)."""
    inputs = np.asarray(inputs, dtype=np.uint64)
    n, arity = inputs.shape[:2]
    P = poseidon_params(curve, arity)
    mask = _alloc_mask(curve, arity)
    num_aux = 3 * int(mask.sum()) + 1
    aux = np.empty((n, num_aux, inputs.shape[2]), dtype=np.uint64)
    poseidon_kernels(curve).poseidon_witness(initial_states(inputs), *kernel_params(P), mask, aux)
    return aux
