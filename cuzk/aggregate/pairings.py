"""Pairing products with one final exponentiation each.

`products(curve, g1, g2, starts)` gives, for each group k of pairs
starts[k]..starts[k+1]-1, prod_i e(g1_i, g2_i) (the verifier's checks, on the
CPU). `SharedPairs` collects the products of a SnarkPack round, whose pairs
share G2 points, and has the backend run their Miller loops
(`Backend.miller_products`: numba on the CPU, one thread per G2 point on the
GPU); each product then gets a single final exponentiation on the host. Pairs
with a point at infinity contribute 1 and are dropped first.
"""

from __future__ import annotations

import numpy as np

from cuzk.backend import get_backend
from cuzk.backend.cpu import miller
from cuzk.curve import get_curve
from cuzk.curve.pairing import final_exponentiation
from cuzk.field import fields_of


def miller_loops(curve: str, g1: np.ndarray, g2: np.ndarray, starts) -> np.ndarray:
    """Miller-loop values (before final exponentiation) of each group, on the CPU."""
    curve = get_curve(curve).name
    L = fields_of(curve)[1].limbs
    g1 = np.ascontiguousarray(g1, dtype=np.uint64).reshape(-1, 2, L)
    g2 = np.ascontiguousarray(g2, dtype=np.uint64).reshape(-1, 2, 2, L)
    starts = np.asarray(starts, dtype=np.int64)
    if g1.shape[0] != g2.shape[0] or starts[-1] != g1.shape[0]:
        raise ValueError("pair arrays and group starts disagree")
    keep = g1.reshape(len(g1), -1).any(axis=1) & g2.reshape(len(g2), -1).any(axis=1)
    kept = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    g1, g2 = np.ascontiguousarray(g1[keep]), np.ascontiguousarray(g2[keep])
    return miller.chunk_loops(curve, g1, g2, kept[starts])


def products(curve: str, g1: np.ndarray, g2: np.ndarray, starts) -> np.ndarray:
    """prod e(g1_i, g2_i) per group, as GT values uint64[k, 2, 3, 2, L]."""
    return final_exponentiation(curve, miller_loops(curve, g1, g2, starts))


class SharedPairs:
    """Products whose pairs are given per G2 point: `add(q, [(p, k), ...])` adds,
    for every i, the pairs (p[i], q[i]) to product k (arrays of equal length).
    `backend` runs the Miller loops (the CPU backend when None)."""

    def __init__(self, curve: str, nprod: int, backend=None):
        self.curve, self.nprod = get_curve(curve).name, nprod
        if backend is None:
            backend = get_backend("cpu")
        self.backend = backend
        self._q, self._p, self._k = [], [], []

    def add(self, q: np.ndarray, attached) -> None:
        self._q.append(q)
        self._p.append(np.stack([p for p, _ in attached], axis=1))  # [m, t, 2, L]
        self._k.append([k for _, k in attached])

    def miller_loops(self) -> np.ndarray:
        L = fields_of(self.curve)[1].limbs
        qs, ps, ks = [], [], []
        for q, p, k in zip(self._q, self._p, self._k):
            m, t = p.shape[:2]
            qs.append(q)
            ps.append(p.reshape(m * t, 2, L))
            ks.append(np.tile(np.array(k, dtype=np.int64), m))
        q = np.ascontiguousarray(np.concatenate(qs), dtype=np.uint64)
        g1 = np.ascontiguousarray(np.concatenate(ps), dtype=np.uint64)
        prod = np.concatenate(ks)
        per_q = np.concatenate([np.full(len(qq), p.shape[1], dtype=np.int64) for qq, p in zip(self._q, self._p)])
        owner = np.repeat(np.arange(len(q)), per_q)
        keep = g1.reshape(len(g1), -1).any(axis=1) & q.reshape(len(q), -1).any(axis=1)[owner]
        counts = np.bincount(owner[keep], minlength=len(q))
        has = counts > 0  # G2 points left without pairs are dropped
        q_ptr = np.concatenate([[0], np.cumsum(counts[has])]).astype(np.int64)
        p_idx = np.flatnonzero(keep).astype(np.int64)
        prod = np.ascontiguousarray(prod[keep])
        return self.backend.miller_products(self.curve, g1, np.ascontiguousarray(q[has]), q_ptr, p_idx, prod,
                                            self.nprod)

    def products(self) -> np.ndarray:
        return miller.final_exponentiations(self.curve, self.miller_loops())
