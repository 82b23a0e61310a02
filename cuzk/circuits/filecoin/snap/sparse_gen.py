"""Valid SnapDeals partition proofs of one update at any size (32 / 64 GiB included), without
encoding a sector.

The update circuit sees a sector only through what a partition proof opens: the challenged nodes'
old label, new data and new label with their three Merkle paths, and the partition's apex leaves
(a row of tree D). So the generator builds sparse trees (`common.default_tree.SparseTree`) known
along the paths it needs, and everything else is a level's default node:

known nodes  DATA_NODES random nodes (every node of a small sector) hold random data (below 2^254)
             and a random old label; elsewhere the data is zero and the old label is one random
             field element shared by all (a sector key's labels are random; one value keeps the
             default subtrees of tree R old computable).
encoding     tree D new over the data and tree R old over the old labels come first (comm_d_new,
             comm_r_old with a random comm_c), then phi = Poseidon_genrand(comm_d_new, comm_r_old)
             and the new labels label_old + data * rho(node >> (log2 nodes - h)) at the known
             nodes; at the others data is zero, so the new label is the shared old one. Tree R new
             over them gives comm_r_new = Poseidon(comm_c, root_r_new).
partitions   the challenges of each partition k from comm_r_new (`derive_challenges`), their three
             paths read from the sparse trees, the apex leaves tree D's nodes k*A .. (k+1)*A of
             row `path_to_apex_len`.

Everything that scales with the challenge count is a numpy array; nothing scales with the sector.
As in rust-fil-proofs' vanilla proof, every path is a full path (leaf to root).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, random_fr, random_nodes, to_mont
from cuzk.circuits.filecoin.common.default_tree import SparseTree
from cuzk.circuits.filecoin.common.tree_d import sha_level
from .circuit import derive_challenges, phi, rhos
from .config import SnapConfig
from .vanilla_proof import SnapPartitionProof, TreeProofs
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children

DATA_NODES = 4096


@dataclass
class UpdateProofs:
    """One update's public values (32-byte nodes) and every partition's vanilla proof."""

    cfg: SnapConfig
    h: int
    comm_r_old: np.ndarray
    comm_d_new: np.ndarray
    comm_r_new: np.ndarray
    partitions: list[SnapPartitionProof]

    def public(self, k: int) -> list[int]:
        """Partition k's public inputs as a verifier derives them (ints)."""
        val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
        return [self.cfg.k_and_h_select(k, self.h), val(self.comm_r_old), val(self.comm_d_new), val(self.comm_r_new)]


def _tree_proofs(tree: SparseTree, index: np.ndarray, mont: bool) -> TreeProofs:
    idx = np.asarray(index, dtype=np.int64)
    sibs = tree.paths(idx)
    leaves, root = tree.leaves(idx), tree.root
    if mont:
        sibs, leaves, root = [from_mont(s) for s in sibs], from_mont(leaves), from_mont(root)
    pos, rest = [], idx.copy()
    for a in tree.arities:
        pos.append(rest % a)
        rest //= a
    roots = np.repeat(np.asarray(root, dtype=np.uint8)[None], len(idx), axis=0)
    return TreeProofs(leaves, roots, tuple(sibs), np.stack(pos, axis=1).astype(np.uint64))


def make_update_proofs(cfg: SnapConfig, seed=None, h: int | None = None) -> UpdateProofs:
    """Every partition proof of one random update of `cfg`'s size (see the module docstring)."""
    rng = np.random.default_rng(seed)
    h = cfg.h_default if h is None else h
    N = cfg.nodes
    f = fr()
    known = np.sort(rng.choice(N, size=min(N, DATA_NODES), replace=False)).astype(np.int64)
    data = random_nodes(rng, len(known))
    old = to_mont(random_fr(rng, len(known)))
    shared_old = to_mont(random_fr(rng, 1))[0]
    comm_c = random_fr(rng, 1)[0]
    tree_d = SparseTree(known, data, (2,) * cfg.challenge_bit_len, sha_level, np.zeros(32, np.uint8))
    tree_old = SparseTree(known, old, cfg.arities, hash_children, shared_old)
    comm_r_old = comm_r_of(comm_c, from_mont(tree_old.root))[0]
    comm_d_new = tree_d.root.copy()
    val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    rho = rhos(cfg, phi(val(comm_d_new), val(comm_r_old)), h, known.astype(np.uint64))
    new = f.add(old, f.mul(to_mont(data), rho))
    tree_new = SparseTree(known, new, cfg.arities, hash_children, shared_old)
    comm_r_new = comm_r_of(comm_c, from_mont(tree_new.root))[0]
    A, L = cfg.apex_leaves, cfg.path_to_apex_len
    parts = []
    for k in range(cfg.partitions):
        ch = derive_challenges(cfg, val(comm_r_new), k).astype(np.int64)
        apex = tree_d.nodes(L, np.arange(k * A, (k + 1) * A))
        parts.append(SnapPartitionProof(comm_c.copy(), np.ascontiguousarray(apex),
                                        _tree_proofs(tree_old, ch, True), _tree_proofs(tree_d, ch, False),
                                        _tree_proofs(tree_new, ch, True)))
    return UpdateProofs(cfg, h, comm_r_old, comm_d_new, comm_r_new, parts)
