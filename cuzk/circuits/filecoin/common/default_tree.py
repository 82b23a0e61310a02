"""Merkle trees known along some leaves' paths, every other node its level's default node.

A whole-sector generator (PoRep's and SnapDeals' `sparse_gen`) fills a sector mostly with one
default leaf (zero data, a shared label), so below the known paths every subtree is the same and
its root is hashed once per level; the tree's root and every path it opens stay those of the whole
sector. (`sparse_tree` draws the off-path nodes at random instead, for PoSt's replicas.)
"""

from __future__ import annotations

from typing import Callable

import numpy as np


class SparseTree:
    """A Merkle tree of mixed arities (leaf upwards) known only along the paths of some leaves.

    Level i holds the sorted indices of the touched parents (int64[Np]) and their children
    [Np, a_i, *node]; children not on a known path are the level's default node (the root of an
    all-default subtree). Leaf indices are global (`whole_tree.tree_paths`' order: at each level
    position = index % a, parent = index // a)."""

    def __init__(self, index: np.ndarray, leaves: np.ndarray, arities, hash_level: Callable,
                 default_leaf: np.ndarray):
        idx, first = np.unique(np.asarray(index, dtype=np.int64), return_index=True)
        cur = np.asarray(leaves)[first]
        default = np.asarray(default_leaf, dtype=cur.dtype)
        node = cur.shape[1:]
        self.arities = tuple(int(a) for a in arities)
        self.parents: list[np.ndarray] = []
        self.children: list[np.ndarray] = []
        self.defaults = [default]
        for a in self.arities:
            par = np.unique(idx // a)
            kids = np.empty((len(par), a) + node, dtype=cur.dtype)
            kids[...] = default
            kids[np.searchsorted(par, idx // a), idx % a] = cur
            self.parents.append(par)
            self.children.append(kids)
            idx, cur = par, hash_level(kids)
            default = hash_level(np.broadcast_to(default, (1, a) + node).copy())[0]
            self.defaults.append(default)
        if idx.tolist() != [0]:
            raise ValueError(f"arities {self.arities} do not reduce the leaves to one root")
        self.root = cur[0]

    def paths(self, index) -> list[np.ndarray]:
        """Per level the siblings [K, a - 1, *node] of leaves `index` (any leaves: below the known
        paths every sibling is the level's default node)."""
        idx = np.asarray(index, dtype=np.int64).ravel()
        out = []
        for a, par, kids, default in zip(self.arities, self.parents, self.children, self.defaults):
            pos = idx % a
            row = np.minimum(np.searchsorted(par, idx // a), len(par) - 1)
            known = par[row] == idx // a
            j = np.arange(a)
            cols = np.broadcast_to(j, (len(idx), a))[j[None, :] != pos[:, None]].reshape(len(idx), a - 1)
            sib = kids[row[:, None], cols]
            sib[~known] = default
            out.append(sib)
            idx = idx // a
        return out

    def leaves(self, index) -> np.ndarray:
        """The leaves at `index` (the default leaf where none was given)."""
        return self.nodes(0, index)

    def nodes(self, level: int, index) -> np.ndarray:
        """The nodes at `index` of `level` (0: the leaves; below the root), the level's default
        node where no known path passes."""
        idx = np.asarray(index, dtype=np.int64).ravel()
        a, par, kids = self.arities[level], self.parents[level], self.children[level]
        row = np.minimum(np.searchsorted(par, idx // a), len(par) - 1)
        out = kids[row, idx % a]
        out[par[row] != idx // a] = self.defaults[level]
        return out
