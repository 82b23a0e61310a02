"""Pairing commitments of SnarkPack (TIPP/MIPP commitment keys).

With keys v = (v1, v2) in G2^n and w = (w1, w2) in G1^n:

  pair(v, w, A, B) = (prod e(A_i, v1_i) e(w1_i, B_i), prod e(A_i, v2_i) e(w2_i, B_i))
  single(v, C)     = (prod e(C_i, v1_i), prod e(C_i, v2_i))

Each output coordinate is one pairing product, so a round's commitments
are gathered in a `ProductBatch` and evaluated together: all Miller loops
in parallel chunks, one final exponentiation per product.
"""

from __future__ import annotations

import numpy as np

from . import pairings


class ProductBatch:
    """Pairing products to evaluate together; `add` returns the product's index."""

    def __init__(self, curve):
        self.curve = curve
        self._g1, self._g2, self._starts = [], [], [0]

    def add(self, g1: np.ndarray, g2: np.ndarray) -> int:
        if len(g1) != len(g2):
            raise ValueError("as many G1 as G2 points per product")
        self._g1.append(g1)
        self._g2.append(g2)
        self._starts.append(self._starts[-1] + len(g1))
        return len(self._starts) - 2

    def add_pair(self, v, w, a, b) -> tuple[int, int]:
        """The two products of pair(v, w, a, b)."""
        return (self.add(np.concatenate([a, w[0]]), np.concatenate([v[0], b])),
                self.add(np.concatenate([a, w[1]]), np.concatenate([v[1], b])))

    def add_single(self, v, c) -> tuple[int, int]:
        return self.add(c, v[0]), self.add(c, v[1])

    def evaluate(self) -> np.ndarray:
        g1 = np.concatenate(self._g1)
        g2 = np.concatenate(self._g2)
        return pairings.products(self.curve.name, g1, g2, np.array(self._starts, dtype=np.int64))


def commit_pair(curve, v, w, a, b) -> np.ndarray:
    batch = ProductBatch(curve)
    batch.add_pair(v, w, a, b)
    return batch.evaluate()


def commit_single(curve, v, c) -> np.ndarray:
    batch = ProductBatch(curve)
    batch.add_single(v, c)
    return batch.evaluate()
