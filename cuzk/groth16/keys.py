"""Groth16 key and proof types, independent of any file format.

A proving key's vectors may be decoded lazily: each is given either as an
array or as a zero-argument loader, decoded on first use and then kept
(format readers pass loaders over an mmap, so opening a key is cheap).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from cuzk.curve import Curve

# How the H bases of a key were made, and so how the prover must compute the
# H scalars (see qap.py): bellperson/libsnark keys hold tau^i t(tau)/delta and
# expect the coset division; snarkjs zkeys expect evaluations on the odd coset.
H_BELLPERSON = "bellperson"
H_SNARKJS = "snarkjs"


@dataclass
class VerifyingKey:
    curve: Curve
    alpha_g1: np.ndarray
    beta_g1: np.ndarray | None  # bellperson keeps it; snarkjs does not
    beta_g2: np.ndarray
    gamma_g2: np.ndarray
    delta_g1: np.ndarray | None
    delta_g2: np.ndarray
    ic: np.ndarray  # G1 uint64[num_inputs, 2, L]; ic[0] pairs with ONE

    @property
    def num_public(self) -> int:
        """Public inputs excluding ONE."""
        return self.ic.shape[0] - 1


Vector = np.ndarray | Callable[[], np.ndarray]


def density_vars(circuit) -> tuple[np.ndarray, np.ndarray]:
    """Witness indices that get an A base and a B base, in bellperson's order.

    A: every input (the per-input rows put each in A), then the aux variables
    occurring in A; B: inputs, then aux, occurring in B."""
    ni = circuit.num_inputs
    a_vars = np.concatenate([np.arange(ni), ni + np.flatnonzero(circuit.density("a_aux"))])
    b_vars = np.concatenate([np.flatnonzero(circuit.density("b_input")), ni + np.flatnonzero(circuit.density("b_aux"))])
    return a_vars.astype(np.int64, copy=False), b_vars.astype(np.int64, copy=False)


@dataclass
class ProvingKey:
    """Everything the prover needs; bases are affine point arrays.

    `a_vars` / `b_vars` are the witness indices (into w = [1, inputs, aux])
    that the density-filtered A and B bases belong to, in order
    (`density_vars` for bellperson keys).
    """

    vk: VerifyingKey
    num_inputs: int  # including ONE
    num_aux: int
    domain_size: int
    h_convention: str
    beta_g1: np.ndarray
    delta_g1: np.ndarray
    a_vars: np.ndarray
    b_vars: np.ndarray
    vectors: dict[str, Vector] = field(default_factory=dict)  # h, l, a, b_g1, b_g2
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def curve(self) -> Curve:
        return self.vk.curve

    @property
    def num_vars(self) -> int:
        return self.num_inputs + self.num_aux

    def bases(self, name: str) -> np.ndarray:
        """Decoded base vector `name` (h, l, a, b_g1, b_g2), decoding it on first use."""
        if name not in self._cache:
            v = self.vectors[name]
            self._cache[name] = v() if callable(v) else v
        return self._cache[name]

    def is_decoded(self, name: str) -> bool:
        return name in self._cache or not callable(self.vectors.get(name))

    def drop_decoded(self) -> None:
        """Forget decoded vectors that have loaders (they are re-read on demand)."""
        for k in list(self._cache):
            if callable(self.vectors.get(k)):
                del self._cache[k]


@dataclass
class Proof:
    curve: Curve
    a: np.ndarray  # G1 affine (2, L)
    b: np.ndarray  # G2 affine (2, 2, L)
    c: np.ndarray  # G1 affine (2, L)
    timings: dict[str, float] = field(default_factory=dict)  # ms per phase
    h2d_bytes: int = 0  # bytes the proof copied from host to device memory (a GPU backend's count)
