"""Valid SnapDeals partition proofs from a whole synthetic sector, for tests of the update circuit.

As rust-fil-proofs v28 builds them (storage-proofs-update vanilla.rs `encode_into`, `prove_inner`;
tests/circuit.rs), for small sizes where every node is computed:

old replica   random Fr labels (the sector key); tree R old: Poseidon tree of the sector shape;
              comm_c random; comm_r_old = Poseidon(comm_c, root_r_old).
new data      random nodes below 2^254; tree D new: binary sha254 tree; comm_d_new its root.
encoding      phi = Poseidon_genrand(comm_d_new, comm_r_old); label_r_new(i) = label_r_old(i) +
              data(i) * Poseidon_genrand(phi, i >> (log2 nodes - h)); tree R new over it;
              comm_r_new = Poseidon(comm_c, root_r_new).
partition k   apex leaves: tree D new's row `path_to_apex_len`, nodes k*A .. (k+1)*A; challenges
              from comm_r_new (`snap_circuit.derive_challenges`); per challenge the three Merkle
              proofs (full paths, leaf to root).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, random_fr, random_nodes, to_mont
from cuzk.circuits.filecoin.common.whole_tree import tree_levels, tree_paths
from .circuit import derive_challenges, phi, rhos
from .config import SnapConfig
from .vanilla_proof import SnapPartitionProof, TreeProofs
from cuzk.circuits.filecoin.common.tree_d import sha_level
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children

MAX_NODES = 1 << 18


def _tree_proofs(levels: list[np.ndarray], arities, index: np.ndarray) -> TreeProofs:
    idx = np.asarray(index, dtype=np.int64).ravel()
    leaves = levels[0][idx]
    sibs = tree_paths(levels, arities, idx)
    pos_all = []
    for a in arities:  # the position among its siblings of the path's node at each level
        pos_all.append(idx % a)
        idx = idx // a
    roots = np.repeat(levels[-1][:1], len(leaves), axis=0)
    return TreeProofs(leaves.copy(), roots, tuple(sibs), np.stack(pos_all, axis=1).astype(np.uint64))


def _poseidon_parent(children: np.ndarray) -> np.ndarray:
    return from_mont(hash_children(to_mont(children)))


@dataclass
class SnapSector:
    cfg: SnapConfig
    h: int
    comm_c: np.ndarray
    r_old: list[np.ndarray]  # tree R old levels (32-byte nodes)
    d_new: list[np.ndarray]
    r_new: list[np.ndarray]
    comm_r_old: np.ndarray
    comm_d_new: np.ndarray
    comm_r_new: np.ndarray

    def public(self, k: int) -> list[int]:
        """The partition's public inputs as a verifier derives them (ints)."""
        val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
        return [self.cfg.k_and_h_select(k, self.h), val(self.comm_r_old), val(self.comm_d_new), val(self.comm_r_new)]

    def partition_proof(self, k: int) -> SnapPartitionProof:
        cfg = self.cfg
        ch = derive_challenges(cfg, int.from_bytes(bytes(self.comm_r_new), "little"), k).astype(np.int64)
        A = cfg.apex_leaves
        apex = self.d_new[cfg.path_to_apex_len][k * A:(k + 1) * A].copy()
        return SnapPartitionProof(self.comm_c.copy(), apex, _tree_proofs(self.r_old, cfg.arities, ch),
                                  _tree_proofs(self.d_new, (2,) * cfg.challenge_bit_len, ch),
                                  _tree_proofs(self.r_new, cfg.arities, ch))


def make_sector(cfg: SnapConfig, seed: int = 0, h: int | None = None) -> SnapSector:
    if cfg.nodes > MAX_NODES:
        raise ValueError(f"{cfg.name}: whole-sector generation is for test sizes (<= {MAX_NODES} nodes)")
    h = cfg.h_default if h is None else h
    rng = np.random.default_rng(seed)
    labels_old = random_fr(rng, cfg.nodes)
    comm_c = random_fr(rng, 1)[0]
    data = random_nodes(rng, cfg.nodes)
    r_old = tree_levels(labels_old, cfg.arities, _poseidon_parent)
    comm_r_old = comm_r_of(comm_c, r_old[-1][0])[0]
    d_new = tree_levels(data, (2,) * cfg.challenge_bit_len, sha_level)
    comm_d_new = d_new[-1][0]
    val = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    p = phi(val(comm_d_new), val(comm_r_old))
    rho = rhos(cfg, p, h, np.arange(cfg.nodes, dtype=np.uint64))
    f = fr()
    labels_new = from_mont(f.add(to_mont(labels_old), f.mul(to_mont(data), rho)))
    r_new = tree_levels(labels_new, cfg.arities, _poseidon_parent)
    comm_r_new = comm_r_of(comm_c, r_new[-1][0])[0]
    return SnapSector(cfg, h, comm_c, r_old, d_new, r_new, comm_r_old, comm_d_new, comm_r_new)
