"""Merkle trees outside the circuit (same conventions as `merkle`), built
level by level with the vectorized hashes; for witnesses and tests."""

from __future__ import annotations

import numpy as np

from .poseidon.native import poseidon_hash
from .sha256.native import sha256


def poseidon_tree(curve: str, leaves: np.ndarray, arity: int) -> list[np.ndarray]:
    """Levels (leaves first) of uint64[n, 4] Montgomery nodes; n a power of arity."""
    levels = [np.asarray(leaves, dtype=np.uint64)]
    while levels[-1].shape[0] > 1:
        cur = levels[-1]
        levels.append(poseidon_hash(curve, cur.reshape(-1, arity, cur.shape[-1])))
    return levels


def sha256_tree(leaves: np.ndarray, arity: int) -> list[np.ndarray]:
    """Levels (leaves first) of uint8[n, 32] digests."""
    levels = [np.asarray(leaves, dtype=np.uint8)]
    while levels[-1].shape[0] > 1:
        cur = levels[-1]
        levels.append(sha256(cur.reshape(-1, 32 * arity)))
    return levels


def path(levels: list[np.ndarray], index: int, arity: int):
    """(siblings [depth][arity-1] node rows, positions [depth]) of leaf `index`."""
    siblings, positions = [], []
    for level in levels[:-1]:
        pos = index % arity
        group = index - pos
        siblings.append([level[group + j] for j in range(arity) if j != pos])
        positions.append(pos)
        index //= arity
    return siblings, positions
