"""tree_r_last's hashing: Poseidon as neptune computes it for Filecoin.

A parent is PoseidonHasher's `multi_node` of its `arity` children (neptune
constants of that arity); comm_r is `hash2(comm_c, comm_r_last)`, the
arity-2 constants, which a top-tree level of arity 2 shares
(filecoin-hashers poseidon.rs). A path is folded leaf upwards: at each level
the running node is inserted among the siblings at the level's index
(storage-proofs-core merkle/proof.rs `InclusionPath::root`). Every function
is batched: one hash call per level for all paths.
"""

from __future__ import annotations

import numpy as np

from .fr_bytes import from_mont, to_mont
from cuzk.gadgets.poseidon.neptune_native import hash_many


def hash_children(children_mont: np.ndarray) -> np.ndarray:
    """uint64[N, arity, 4] Montgomery -> uint64[N, 4]: one tree level (or hash2 for arity 2)."""
    return hash_many(np.ascontiguousarray(children_mont, dtype=np.uint64))


def insert_at(current: np.ndarray, siblings: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Children [N, a, ...]: `current` [N, ...] placed at `index` [N], siblings [N, a-1, ...] around it."""
    n, a = siblings.shape[0], siblings.shape[1] + 1
    out = np.empty((n, a) + siblings.shape[2:], dtype=siblings.dtype)
    here = np.arange(a)[None, :] == np.asarray(index, dtype=np.int64)[:, None]
    out[here] = current
    out[~here] = siblings.reshape((n * (a - 1),) + siblings.shape[2:])
    return out


def fold_paths(leaves_mont: np.ndarray, siblings_mont, indices: np.ndarray) -> np.ndarray:
    """Roots uint64[N, 4] of N paths: leaves [N, 4], per level siblings [N, a_l-1, 4] and indices [N, L].

    indices must be below each level's arity (the decoder guarantees it)."""
    cur = np.asarray(leaves_mont, dtype=np.uint64)
    for lv, sib in enumerate(siblings_mont):
        cur = hash_children(insert_at(cur, np.asarray(sib, dtype=np.uint64), indices[:, lv]))
    return cur


def path_roots(leaves: np.ndarray, siblings, indices: np.ndarray) -> np.ndarray:
    """As fold_paths on 32-byte nodes: leaves uint8[N, 32], siblings [N, a_l-1, 32] -> uint8[N, 32].

    Raises ValueError on a node >= r (callers name the field)."""
    return from_mont(fold_paths(to_mont(leaves), [to_mont(s) for s in siblings], indices))


def comm_r_of(comm_c: np.ndarray, comm_r_last: np.ndarray) -> np.ndarray:
    """comm_r = Poseidon2(comm_c, comm_r_last) on 32-byte nodes, batched: [N, 32] x2 -> [N, 32]."""
    pair = np.stack([np.asarray(comm_c, dtype=np.uint8).reshape(-1, 32),
                     np.asarray(comm_r_last, dtype=np.uint8).reshape(-1, 32)], axis=1)
    return from_mont(hash_children(to_mont(pair)))
