"""neptune's Poseidon gadget as a stamping template with a vectorized witness.

Circuits stamp this gadget hundreds of thousands of times (a 32 GiB
WindowPoSt partition has 234,900 arity-8 hashes), so the template is
recorded once from `neptune_gadget.poseidon_hash` and its aux values come
from one parallel numba kernel (`neptune_native`'s, recording) that computes
exactly what the gadget allocates, in its order.

Template interface: the `arity` inputs (template inputs 1..arity); aux: the
gadget's variables in allocation order, the last one the hash (`outputs`).
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.r1cs import RecordingCS

from ..stamped import StampedGadget, output_indices
from .neptune_constants import CURVE
from .neptune_gadget import num_constraints, poseidon_hash
from .neptune_native import check_inputs, run_kernel


@functools.cache
def hash_template(arity: int, strength: str = "standard") -> StampedGadget:
    cs = RecordingCS(CURVE)
    iface = cs.alloc_input_many(arity)
    out = poseidon_hash(cs, iface.tolist(), strength)
    return StampedGadget(CURVE, cs.template(), output_indices([out.single_var()]))


def hash_witness(inputs: np.ndarray, strength: str = "standard") -> tuple[np.ndarray, np.ndarray]:
    """(aux uint64[N, num_aux, 4], out uint64[N, 4]), Montgomery, of N stamped hashes of
    inputs uint64[N, arity, 4] (Montgomery); out[k] == aux[k, -1]."""
    inputs = check_inputs(inputs)
    aux = np.empty((inputs.shape[0], num_constraints(inputs.shape[1], strength), 4), dtype=np.uint64)
    out = run_kernel(inputs, strength, aux)
    return aux, out
