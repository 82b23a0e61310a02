"""Merkle trees materialized only along the paths a proof opens.

A circuit sees a tree only through the root and the opened paths, so the
generators build, level by level, just the parents of the known nodes:
their other children (off-path nodes) are drawn at random, once each. A
tree of 2^30 leaves with a few hundred challenged leaves then costs a few
thousand hashes instead of a billion, and every opened path is exactly
consistent with the root. Indices may be global over a forest of equal
trees laid side by side (a parent never spans two trees when each tree's
size is a power of the arity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class Level:
    parents: np.ndarray  # int64[Np] sorted parent indices
    children: np.ndarray  # [Np, arity, *node] the children of each


@dataclass
class SparseTree:
    arity: int
    levels: list[Level]  # leaves up
    top_index: np.ndarray  # int64[M] the nodes reached at the top level
    top_nodes: np.ndarray  # [M, *node]

    def paths(self, leaf_index: np.ndarray) -> np.ndarray:
        """Siblings [K, depth, arity-1, *node] of leaves (each must be a known leaf)."""
        idx = np.asarray(leaf_index, dtype=np.int64).ravel()
        a = self.arity
        node_shape = self.levels[0].children.shape[2:]
        out = np.empty((len(idx), len(self.levels), a - 1) + node_shape, dtype=self.levels[0].children.dtype)
        j = np.arange(a)
        for lv, level in enumerate(self.levels):
            pos = idx % a
            row = np.searchsorted(level.parents, idx // a)
            keep = j[None, :] != pos[:, None]
            cols = np.broadcast_to(j, (len(idx), a))[keep].reshape(len(idx), a - 1)
            out[:, lv] = level.children[row[:, None], cols]
            idx = idx // a
        return out

    def node(self, index) -> np.ndarray:
        """A node of the top level by index."""
        row = np.searchsorted(self.top_index, np.asarray(index, dtype=np.int64))
        return self.top_nodes[row]


def build(index: np.ndarray, nodes: np.ndarray, arity: int, depth: int,
          hash_children: Callable[[np.ndarray], np.ndarray],
          random_nodes: Callable[[int], np.ndarray]) -> SparseTree:
    """Hash `depth` levels up from the known leaves (index int64[K], nodes [K, *node]).

    hash_children: [Np, arity, *node] -> [Np, *node]; random_nodes(m) -> [m, *node]."""
    idx, first = np.unique(np.asarray(index, dtype=np.int64), return_index=True)
    cur = np.asarray(nodes)[first]
    levels = []
    for _ in range(depth):
        parents = np.unique(idx // arity)
        children = random_nodes(len(parents) * arity).reshape((len(parents), arity) + cur.shape[1:])
        row = np.searchsorted(parents, idx // arity)
        children[row, idx % arity] = cur
        levels.append(Level(parents, children))
        idx, cur = parents, hash_children(children)
    return SparseTree(arity, levels, idx, cur)
