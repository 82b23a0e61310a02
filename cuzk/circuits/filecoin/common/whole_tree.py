"""Merkle trees computed whole, every node of every level: the generators of small sealed or
updated sectors, where a test sector's trees are cheap to build.

A tree is its list of levels, leaves first, each `[n, *node]`; its arities are per level, leaf
upwards, and a leaf's path is read at each level as position = index % a, parent = index // a.
"""

from __future__ import annotations

import numpy as np


def tree_levels(leaves: np.ndarray, arities, parent) -> list[np.ndarray]:
    """All levels, leaves first: each the parents of the one below, `arity` children each."""
    levels = [leaves]
    for a in arities:
        cur = levels[-1]
        levels.append(parent(cur.reshape((-1, a) + cur.shape[1:])))
    if levels[-1].shape[0] != 1:
        raise ValueError("the arities do not reduce the leaves to one root")
    return levels


def tree_paths(levels: list[np.ndarray], arities, index: np.ndarray) -> list[np.ndarray]:
    """Per level the siblings [K, a - 1, ...] of leaves `index` [K]."""
    idx = np.asarray(index, dtype=np.int64).ravel()
    out = []
    for level, a in zip(levels, arities):
        pos = idx % a
        j = np.arange(a)
        keep = j[None, :] != pos[:, None]
        cols = np.broadcast_to(j, (len(idx), a))[keep].reshape(len(idx), a - 1)
        out.append(level[(idx // a)[:, None] * a + cols])
        idx = idx // a
    return out
