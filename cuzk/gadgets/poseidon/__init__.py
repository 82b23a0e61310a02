"""Poseidon (x^5, 128-bit) over the scalar fields of BLS12-381 and BN254.

The names below are the circomlib-framed instance (circom workloads, the
stamped-gadget benchmarks). Filecoin's Poseidon (neptune v11) lives in the `neptune_*` modules:
`neptune_constants`, `neptune_native`, `neptune_gadget`, `neptune_stamped`.
"""

from .gadget import poseidon_hash as poseidon_hash_gadget
from .native import permute, poseidon_hash, poseidon_hash_ints
from .params import ARITIES, PoseidonParams, poseidon_params
from .stamped import hash_template, hash_witness

__all__ = [
    "ARITIES", "PoseidonParams", "poseidon_params", "permute", "poseidon_hash", "poseidon_hash_ints",
    "poseidon_hash_gadget", "hash_template", "hash_witness",
]
