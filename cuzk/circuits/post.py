"""winning-post-like and window-post-like: Filecoin's fallback PoSt circuit shape.

A model, not the Filecoin circuit. One partition proves `sectors` sectors
of 2^nodes_log2 nodes, `challenges` challenged leaves each. Per sector:
comm_r (public) = Poseidon(comm_c, comm_r_last) with comm_c and
comm_r_last private; per challenge: the replica leaf's Poseidon arity-8
inclusion path in tree_r_last, its position bits packed into the public
challenge index. Public inputs, per sector in order: comm_r, then its
challenge indices. WinningPoSt is one sector with 66 challenges;
WindowPoSt many sectors with 10 challenges each.

Vanilla arrays (P partitions, S sectors, K challenges, d = nodes_log2 / 3):

    comm_r, comm_c, comm_r_last   [P, S, 32]
    challenges    <u8 [P, S, K]
    leaves        [P, S, K, 32]
    paths         [P, S, K, d, 7, 32]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.poseidon.native import poseidon_hash

from . import trees
from .fr_bytes import CURVE, from_mont, random_fr, small_to_mont, to_mont
from .wiring import Nums, Synth

ARITY = 8


@dataclass(frozen=True)
class PostShape:
    nodes_log2: int
    sectors: int
    challenges: int
    partitions: int = 1

    def __post_init__(self):
        if self.nodes_log2 < 3 or self.nodes_log2 % 3:
            raise ValueError("nodes_log2 must be a positive multiple of 3 (arity-8 trees)")
        if self.sectors < 1 or self.challenges < 1:
            raise ValueError("need at least one sector and one challenge")

    @property
    def tree_depth(self) -> int:
        return self.nodes_log2 // 3

    @property
    def num_nodes(self) -> int:
        return 1 << self.nodes_log2

    @property
    def num_public_inputs(self) -> int:
        return self.sectors * (1 + self.challenges)


@dataclass
class PostPartition:
    comm_r: np.ndarray  # [S, 32]
    comm_c: np.ndarray
    comm_r_last: np.ndarray
    challenges: np.ndarray  # uint64[S, K]
    leaves: np.ndarray  # [S, K, 32]
    paths: np.ndarray  # [S, K, d, 7, 32]

    def public_values(self) -> np.ndarray:
        S, K = self.challenges.shape
        out = np.empty((S, 1 + K, 4), dtype=np.uint64)
        out[:, 0] = to_mont(self.comm_r)
        out[:, 1:] = small_to_mont(self.challenges.ravel()).reshape(S, K, 4)
        return out.reshape(-1, 4)


def synthesize(cs, shape: PostShape, d: PostPartition | None = None) -> None:
    s = Synth(cs)
    V = s.values
    if V and d is None:
        raise ValueError("witness mode needs the partition's inputs")
    S, K, n = shape.sectors, shape.challenges, shape.nodes_log2
    pub = s.inputs(d.public_values() if V else shape.num_public_inputs).reshape(S, 1 + K)
    comms = s.alloc(to_mont(np.stack([d.comm_c, d.comm_r_last], axis=1)) if V else 2 * S).reshape(S, 2)
    comm_c, comm_r_last = comms[:, 0], comms[:, 1]
    s.equal(s.poseidon2(comm_c, comm_r_last), pub[:, 0])
    ibits = s.decompose_indices(pub[:, 1:].reshape(S * K), n, d.challenges.ravel() if V else None)
    leaves = s.alloc(to_mont(d.leaves).reshape(S * K, 4) if V else S * K)
    roots = s.poseidon_paths(leaves, ibits, to_mont(d.paths).reshape(S * K, shape.tree_depth, ARITY - 1, 4)
                             if V else None)
    s.equal(roots, Nums(np.repeat(comm_r_last.vars, K), None))


# ---- vanilla proofs ----------------------------------------------------------------------


def expected_arrays(shape: PostShape) -> dict:
    P, S, K, d = shape.partitions, shape.sectors, shape.challenges, shape.tree_depth
    return {
        "comm_r": (P, S, 32), "comm_c": (P, S, 32), "comm_r_last": (P, S, 32),
        "challenges": ((P, S, K), "<u8"),
        "leaves": (P, S, K, 32),
        "paths": (P, S, K, d, 7, 32),
    }


def generate(shape: PostShape, seed: int) -> dict[str, np.ndarray]:
    """P x S sectors with K random challenges each; each sector's tree_r_last
    is materialized only along the challenged paths (`sparse_tree`)."""
    rng = np.random.default_rng(seed)
    P, S, K, N, d = shape.partitions, shape.sectors, shape.challenges, shape.num_nodes, shape.tree_depth
    ns = P * S
    challenges = rng.integers(0, N, size=(ns, K), dtype=np.int64)
    glob = (challenges + (np.arange(ns, dtype=np.int64) * N)[:, None]).ravel()  # a forest of ns trees
    uniq, first, inverse = np.unique(glob, return_index=True, return_inverse=True)
    leaves = to_mont(random_fr(rng, len(glob)))[first][inverse]  # a leaf opened twice is one leaf
    forest = trees.poseidon8_sparse(rng, glob, leaves, d)
    roots = forest.node(np.arange(ns))  # [ns, 4]
    comm_c = to_mont(random_fr(rng, ns))
    comm_r = poseidon_hash(CURVE, np.stack([comm_c, roots], axis=1))
    arrays = {
        "comm_r": from_mont(comm_r).reshape(P, S, 32),
        "comm_c": from_mont(comm_c).reshape(P, S, 32),
        "comm_r_last": from_mont(roots).reshape(P, S, 32),
        "challenges": challenges.reshape(P, S, K).astype(np.uint64),
        "leaves": from_mont(leaves).reshape(P, S, K, 32),
        "paths": from_mont(forest.paths(glob)).reshape(P, S, K, d, 7, 32),
    }
    return arrays


def partition(arrays: dict[str, np.ndarray], p: int) -> PostPartition:
    return PostPartition(**{f.name: arrays[f.name][p] for f in dataclasses.fields(PostPartition)})
