"""One SnapDeals partition's vanilla proof as arrays: what `EmptySectorUpdateCircuit` consumes.

rust-fil-proofs' `PartitionProof<TreeR>` (storage-proofs-update vanilla.rs) holds comm_c, the
partition's apex leaves (a row of tree D new) and, per challenge, three Merkle proofs: tree R old
(the sector key replica), tree D new (the new data, binary sha254) and tree R new (the updated
replica). Each Merkle proof is a leaf, a root and a path (per level the other children and the
index among them). The circuit (circuit.rs `PrivateInputs::new`) takes comm_c, root_r_old and
root_r_new (challenge 0's roots), the apex leaves, the partition path (challenge 0's tree D
siblings above the apex roots), and per challenge leaf_r_old, leaf_d_new and the siblings.

Arrays (C challenges, 32-byte LE nodes, a path one array per level, leaf upwards):

    comm_c        [32]
    apex_leaves   [A, 32]
    r_old, d_new, r_new: `TreeProofs`
        leaves    [C, 32]       roots    [C, 32]
        siblings  per level [C, a - 1, 32]
        indices   uint64[C, levels]   (the position among a level's a children)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class TreeProofs:
    leaves: np.ndarray
    roots: np.ndarray
    siblings: tuple[np.ndarray, ...]
    indices: np.ndarray

    @property
    def arities(self) -> tuple[int, ...]:
        return tuple(s.shape[1] + 1 for s in self.siblings)

    def leaf_index(self) -> np.ndarray:
        """uint64[C]: the leaf each path opens (rust MerkleProof::path_index)."""
        out = np.zeros(self.indices.shape[0], dtype=np.uint64)
        w = 1
        for lv, a in enumerate(self.arities):
            out += self.indices[:, lv].astype(np.uint64) * np.uint64(w)
            w *= a
        return out

    def copy(self) -> "TreeProofs":
        return TreeProofs(self.leaves.copy(), self.roots.copy(), tuple(s.copy() for s in self.siblings),
                          self.indices.copy())


@dataclass
class SnapPartitionProof:
    comm_c: np.ndarray
    apex_leaves: np.ndarray
    r_old: TreeProofs
    d_new: TreeProofs
    r_new: TreeProofs

    @property
    def num_challenges(self) -> int:
        return self.r_old.leaves.shape[0]

    @property
    def challenges(self) -> np.ndarray:
        return self.r_old.leaf_index()
