"""Valid PoRep vanilla proofs from a whole synthetic replica, for tests of the PoRep circuit.

A sector of random data is sealed as rust-fil-proofs v28 does it (small sizes: every node of every
layer is computed, so it is meant for 2 KiB and other test sizes):

labels (stacked/vanilla/create_label/single.rs `create_label`, `create_label_exp`; graph.rs
    `copy_parents_data*`): label of node v in layer l = SHA-256 of replica_id || l (u32 BE) ||
    v (u64 BE) || 20 zero bytes || the 37 hashed parents' labels, the two top bits of its last byte
    cleared. Layer 1 hashes the 6 DRG parents (same layer) six times and the first again; later
    layers the 6 DRG parents (same layer) and 8 expander parents (previous layer) twice and the
    first 9 again. Node 0 hashes the 64-byte prefix only. Parents: `sdr.SdrGraph` of the seal
    proof's porep id and api version.
columns: a node's labels of all layers; tree C: Poseidon tree (sector shape) over the columns'
    Poseidon hashes (arity = layers: vanilla hash.rs `hash_single_column`).
replica: data + last layer's label in Fr (encode); tree R-last: Poseidon tree over it.
tree D: binary sha254 tree over the data (comm_d); comm_r = Poseidon2(comm_c, comm_r_last).
challenges: interactive (porep_challenges), from a random seed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np


from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, random_fr, random_nodes, to_mont
from .challenges import interactive_challenges
from .config import BASE_DEGREE, PorepConfig
from .vanilla_proof import PorepPartitionProof
from .sdr import SdrGraph, porep_id
from cuzk.circuits.filecoin.common.tree_d import sha_level
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children
from cuzk.circuits.filecoin.common.whole_tree import tree_levels, tree_paths

MAX_NODES = 1 << 18  # whole-replica generation is a Python loop over nodes: test sizes only


@dataclass
class Replica:
    """A sealed synthetic sector: everything a vanilla proof opens."""

    cfg: PorepConfig
    graph: SdrGraph
    replica_id: np.ndarray  # [32]
    data: np.ndarray  # [N, 32]
    labels: np.ndarray  # [L, N, 32]
    tree_d: list  # levels of [n, 32]
    tree_c: list  # levels of Montgomery [n, 4]
    tree_r: list
    comm_r: np.ndarray  # [32]

    @property
    def comm_d(self) -> np.ndarray:
        return self.tree_d[-1][0]

    @property
    def comm_c(self) -> np.ndarray:
        return from_mont(self.tree_c[-1][0])

    @property
    def comm_r_last(self) -> np.ndarray:
        return from_mont(self.tree_r[-1][0])

    def partition_proof(self, seed: bytes, partition: int = 0) -> PorepPartitionProof:
        """The vanilla proof of partition `partition` for the interactive challenge seed."""
        cfg = self.cfg
        ch = interactive_challenges(cfg, bytes(self.replica_id), seed, partition)
        parents = self.graph.parents(ch.astype(np.int64)).astype(np.uint64)  # [C, 14]
        C = len(ch)
        ar = cfg.arities
        columns = self.labels.transpose(1, 0, 2)  # [N, L, 32]
        flat = parents.astype(np.int64).ravel()
        parent_paths = tuple(from_mont(p).reshape((C, parents.shape[1]) + p.shape[1:2] + (32,))
                             for p in tree_paths(self.tree_c, ar, flat))
        replica_nodes = from_mont(self.tree_r[0])
        return PorepPartitionProof(
            replica_id=self.replica_id.copy(), comm_d=self.comm_d.copy(), comm_r=self.comm_r.copy(),
            comm_c=self.comm_c, comm_r_last=self.comm_r_last, challenges=ch, parents=parents,
            data_leaves=self.data[ch.astype(np.int64)],
            data_paths=np.stack([p[:, 0] for p in tree_paths(self.tree_d, (2,) * cfg.tree_d_depth, ch)], axis=1),
            parent_columns=columns[flat].reshape(C, parents.shape[1], cfg.layers, 32),
            parent_paths=parent_paths,
            columns=columns[ch.astype(np.int64)],
            column_paths=tuple(from_mont(p) for p in tree_paths(self.tree_c, ar, ch)),
            replica_leaves=replica_nodes[ch.astype(np.int64)],
            replica_paths=tuple(from_mont(p) for p in tree_paths(self.tree_r, ar, ch)),
        )


def label_layers(graph: SdrGraph, replica_id: bytes, layers: int) -> np.ndarray:
    """All labels uint8[layers, N, 32] (the sealing's labeling, node by node)."""
    N = graph.nodes
    parents = graph.parents(np.arange(N, dtype=np.uint32)).astype(np.int64)
    labels = np.zeros((layers, N, 32), dtype=np.uint8)
    for layer in range(1, layers + 1):
        cur = labels[layer - 1]
        prev = labels[layer - 2] if layer > 1 else None
        head = bytes(replica_id) + layer.to_bytes(4, "big")
        for v in range(N):
            h = hashlib.sha256(head + v.to_bytes(8, "big") + bytes(20))
            if v > 0:
                base = cur[parents[v, :BASE_DEGREE]]
                if layer == 1:
                    h.update(np.concatenate([base] * 6 + [base[:1]]).tobytes())
                else:
                    both = np.concatenate([base, prev[parents[v, BASE_DEGREE:]]])
                    h.update(np.concatenate([both, both, both[:9]]).tobytes())
            d = bytearray(h.digest())
            d[31] &= 0x3F
            cur[v] = np.frombuffer(bytes(d), dtype=np.uint8)
    return labels


def make_replica(cfg: PorepConfig, seed: int, porep: bytes | None = None) -> Replica:
    """A random sector sealed with `cfg`'s graph (porep id of its registered proof unless given)."""
    if cfg.nodes > MAX_NODES:
        raise ValueError(f"{cfg.name}: {cfg.nodes} nodes; whole-replica generation is for at most {MAX_NODES}")
    if porep is None:
        porep = porep_id(cfg.registered_proof) if cfg.registered_proof is not None else bytes(32)
    rng = np.random.default_rng(seed)
    graph = SdrGraph(cfg.sector_size, porep, cfg.api_version)
    replica_id = random_fr(rng, 1)[0]
    data = random_nodes(rng, cfg.nodes)
    labels = label_layers(graph, bytes(replica_id), cfg.layers)
    col_hash = hash_children(to_mont(labels.transpose(1, 0, 2)))
    tree_c = tree_levels(col_hash, cfg.arities, hash_children)
    replica = fr().add(to_mont(labels[-1]), to_mont(data))
    tree_r = tree_levels(replica, cfg.arities, hash_children)
    tree_d = tree_levels(data, (2,) * cfg.tree_d_depth, sha_level)
    comm_r = comm_r_of(from_mont(tree_c[-1][0]), from_mont(tree_r[-1][0]))[0]
    return Replica(cfg, graph, replica_id, data, labels, tree_d, tree_c, tree_r, comm_r)


def make_partition_proof(cfg: PorepConfig, seed: int, partition: int = 0) -> PorepPartitionProof:
    """A valid vanilla proof of partition `partition` of a random replica."""
    rep = make_replica(cfg, seed)
    challenge_seed = np.random.default_rng([seed, 1]).integers(0, 256, 32, dtype=np.uint8).tobytes()
    return rep.partition_proof(challenge_seed, partition)
