"""One sector's PoSt vanilla proof as arrays (the decoded `FallbackPoStSectorProof`).

rust-fil-proofs keeps an inclusion proof as a leaf, a root and a path of
(siblings, index) elements, base-tree levels first, then the sub-tree and
top-tree levels (storage-proofs-core merkle/proof.rs). Here the K inclusion
proofs of one sector are stacked: every field is one array with K on the
first axis, so the checks and the circuit's witness work on all of them at
once. Nodes are the 32-byte little-endian encodings of Fr elements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np



@dataclass
class PostSectorProof:
    sector_id: int
    comm_r: np.ndarray  # uint8[32]
    comm_c: np.ndarray  # uint8[32]
    comm_r_last: np.ndarray  # uint8[32]
    leaves: np.ndarray  # uint8[K, 32]
    roots: np.ndarray  # uint8[K, 32]  each inclusion proof's claimed root
    siblings: tuple[np.ndarray, ...]  # per path level l: uint8[K, arity_l - 1, 32]
    indices: np.ndarray  # uint64[K, L]  position of the path's node within its arity group, per level

    @property
    def num_inclusion_proofs(self) -> int:
        return int(self.leaves.shape[0])

    @property
    def arities(self) -> tuple[int, ...]:
        return tuple(int(s.shape[1]) + 1 for s in self.siblings)

    def leaf_index(self) -> np.ndarray:
        """uint64[K] the leaf each path opens: the level indices as mixed-radix digits,
        leaf level least significant (rust-fil-proofs' `path_index` of Sub/Top proofs)."""
        out = np.zeros(self.num_inclusion_proofs, dtype=np.uint64)
        weight = 1
        for lv, arity in enumerate(self.arities):
            out += self.indices[:, lv].astype(np.uint64) * np.uint64(weight)
            weight *= arity
        return out

    def select(self, rows) -> "PostSectorProof":
        """The same sector with only inclusion proofs `rows` (WinningPoSt's unrolling)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        return PostSectorProof(self.sector_id, self.comm_r, self.comm_c, self.comm_r_last, self.leaves[rows],
                               self.roots[rows], tuple(s[rows] for s in self.siblings), self.indices[rows])
