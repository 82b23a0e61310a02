"""The two tree flavours of the workloads, for the input generators.

SHA-256 trees are binary and Filecoin-style: a parent is
sha256(left || right) truncated to 254 bits (`fr_bytes.truncate`); nodes are
uint8[n, 32]. Poseidon trees have arity 8 with Montgomery uint64[n, 4]
nodes. `sha_sparse` / `poseidon8_sparse` build only what challenged paths
need (`sparse_tree`); `sha_tree` and `paths` are the dense forms, used for
small dense tops (SnapDeals' apex region) and in tests.
"""

from __future__ import annotations

import numpy as np

from cuzk.gadgets.poseidon.native import poseidon_hash
from cuzk.gadgets.sha256.native import sha256

from . import sparse_tree
from .fr_bytes import CURVE, random_fr, random_nodes, to_mont, truncate


def sha_children(children: np.ndarray) -> np.ndarray:
    """[Np, 2, 32] -> truncated sha256(left || right) [Np, 32]."""
    return truncate(sha256(np.ascontiguousarray(children).reshape(len(children), 64)))


def poseidon_children(children: np.ndarray) -> np.ndarray:
    """[Np, 8, 4] Montgomery -> Poseidon of arity 8 [Np, 4]."""
    return poseidon_hash(CURVE, np.ascontiguousarray(children))


def sha_sparse(rng, index, leaves, depth: int) -> sparse_tree.SparseTree:
    return sparse_tree.build(index, leaves, 2, depth, sha_children, lambda m: random_nodes(rng, m))


def poseidon8_sparse(rng, index, leaves, depth: int) -> sparse_tree.SparseTree:
    return sparse_tree.build(index, leaves, 8, depth, poseidon_children, lambda m: to_mont(random_fr(rng, m)))


def sha_tree(leaves: np.ndarray) -> list[np.ndarray]:
    """Levels (leaves first) of a dense binary truncated-SHA-256 tree; n a power of 2."""
    levels = [np.asarray(leaves, dtype=np.uint8)]
    while levels[-1].shape[0] > 1:
        levels.append(sha_children(levels[-1].reshape(-1, 2, 32)))
    return levels


def paths(levels: list[np.ndarray], indices: np.ndarray, arity: int) -> np.ndarray:
    """Siblings in a dense tree: [len(indices), depth, arity-1, *node]."""
    idx = np.asarray(indices, dtype=np.int64).ravel()
    node_shape = levels[0].shape[1:]
    out = np.empty((len(idx), len(levels) - 1, arity - 1) + node_shape, dtype=levels[0].dtype)
    j = np.arange(arity)
    for lv in range(len(levels) - 1):
        pos = idx % arity
        group = (idx - pos)[:, None] + j[None, :]
        keep = j[None, :] != pos[:, None]
        out[:, lv] = levels[lv][group[keep].reshape(len(idx), arity - 1)]
        idx = idx // arity
    return out


def sha_root(leaf: np.ndarray, siblings: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Roots of binary SHA paths: leaf [N, 32], siblings [N, depth, 32] -> [N, 32]."""
    cur = np.asarray(leaf, dtype=np.uint8)
    idx = np.asarray(index, dtype=np.int64)
    for lv in range(siblings.shape[1]):
        right = ((idx >> lv) & 1)[:, None] == 1
        pair = np.where(right[:, :, None], np.stack([siblings[:, lv], cur], 1), np.stack([cur, siblings[:, lv]], 1))
        cur = sha_children(pair)
    return cur


def poseidon8_root(leaf: np.ndarray, siblings: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Roots of arity-8 Poseidon paths: leaf [N, 4], siblings [N, depth, 7, 4] -> [N, 4]."""
    cur = np.asarray(leaf, dtype=np.uint64)
    idx = np.asarray(index, dtype=np.int64)
    n = len(cur)
    for lv in range(siblings.shape[1]):
        pos = (idx >> (3 * lv)) & 7
        children = np.empty((n, 8, 4), dtype=np.uint64)
        slot = np.arange(8)[None, :]
        sib_slot = slot - (slot > pos[:, None])  # children j != pos take sibling j - (j > pos)
        children[:] = np.take_along_axis(siblings[:, lv], np.clip(sib_slot, 0, 6)[:, :, None], axis=1)
        children[np.arange(n), pos] = cur
        cur = poseidon_children(children)
    return cur
