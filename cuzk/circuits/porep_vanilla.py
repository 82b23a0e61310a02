"""porep-c2-like vanilla proofs: generation from random sector data, and the
container arrays (P partitions, C challenges, D = base + expander parents,
n = nodes_log2, d = n / 3, L = layers; "[.., 32]" are 32-byte LE encodings):

    replica_id, comm_d, comm_r, comm_c, comm_r_last   [32]
    challenges      <u8 [P, C]        challenged nodes, in [1, 2^n)
    parents         <u8 [P, C, D]     base parents, then expander parents
    data_leaves     [P, C, 32]        the challenged data nodes (comm_d leaves)
    data_paths      [P, C, n, 32]     their SHA-256 path siblings, leaves up
    columns         [P, C, 1 + D, L, 32]   labels of the challenge, then of each parent
    column_paths    [P, C, 1 + D, d, 7, 32]  tree_c siblings
    replica_leaves  [P, C, 32]
    replica_paths   [P, C, d, 7, 32]  tree_r_last siblings
"""

from __future__ import annotations

import dataclasses
import numpy as np

from cuzk.gadgets.poseidon.native import poseidon_hash

from . import sdr, trees
from .fr_bytes import CURVE, fr, from_mont, random_nodes, to_mont
from .porep import PorepPartition, PorepShape

SHARED = ("replica_id", "comm_d", "comm_r", "comm_c", "comm_r_last")


def expected_arrays(shape: PorepShape) -> dict:
    P, C, D, n, d, L = (shape.partitions, shape.challenges, shape.degree, shape.nodes_log2, shape.tree_depth,
                        shape.layers)
    spec = {name: (32,) for name in SHARED}
    spec.update({
        "challenges": ((P, C), "<u8"),
        "parents": ((P, C, D), "<u8"),
        "data_leaves": (P, C, 32),
        "data_paths": (P, C, n, 32),
        "columns": (P, C, 1 + D, L, 32),
        "column_paths": (P, C, 1 + D, d, 7, 32),
        "replica_leaves": (P, C, 32),
        "replica_paths": (P, C, d, 7, 32),
    })
    return spec


def generate(shape: PorepShape, seed: int) -> dict[str, np.ndarray]:
    """A valid vanilla proof from random data; only what the proof opens is
    materialized (`sdr.labels_for`, `sparse_tree`), so any preset is cheap."""
    rng = np.random.default_rng(seed)
    N, L, P, C, n, d = (shape.num_nodes, shape.layers, shape.partitions, shape.challenges, shape.nodes_log2,
                        shape.tree_depth)
    replica_id = random_nodes(rng, ())
    challenges = rng.integers(1, N, size=(P, C), dtype=np.int64)
    base, exp = sdr.parents(shape, challenges.ravel())
    parents = np.concatenate([base, exp], axis=1).reshape(P, C, shape.degree)
    nodes, labels = sdr.labels_for(shape, rng, replica_id, challenges)  # [R], [R, L, 32]
    data = random_nodes(rng, (P, C))
    # a challenge drawn twice must open the same data leaf
    uniq, first, inverse = np.unique(challenges.ravel(), return_index=True, return_inverse=True)
    data = data.reshape(-1, 32)[first][inverse].reshape(P, C, 32)
    key = to_mont(labels[np.searchsorted(nodes, challenges), L - 1])
    replica = fr().add(key, to_mont(data))  # [P, C, 4]

    tree_d = trees.sha_sparse(rng, challenges.ravel(), data.reshape(-1, 32), n)
    tree_c = trees.poseidon8_sparse(rng, nodes, poseidon_hash(CURVE, to_mont(labels)), d)
    tree_r = trees.poseidon8_sparse(rng, challenges.ravel(), replica.reshape(-1, 4), d)
    comm_c, comm_r_last = tree_c.top_nodes[0], tree_r.top_nodes[0]
    comm_r = poseidon_hash(CURVE, np.stack([comm_c, comm_r_last])[None])[0]
    opened = np.concatenate([challenges[..., None], parents], axis=2)  # [P, C, 1 + D]
    arrays = {
        "replica_id": replica_id,
        "comm_d": tree_d.top_nodes[0],
        "comm_r": from_mont(comm_r),
        "comm_c": from_mont(comm_c),
        "comm_r_last": from_mont(comm_r_last),
        "challenges": challenges.astype(np.uint64),
        "parents": parents.astype(np.uint64),
        "data_leaves": data,
        "data_paths": tree_d.paths(challenges).reshape(P, C, n, 32),
        "columns": labels[np.searchsorted(nodes, opened)],
        "column_paths": from_mont(tree_c.paths(opened)).reshape(P, C, 1 + shape.degree, d, 7, 32),
        "replica_leaves": from_mont(replica),
        "replica_paths": from_mont(tree_r.paths(challenges)).reshape(P, C, d, 7, 32),
    }
    return arrays


def partition(arrays: dict[str, np.ndarray], p: int) -> PorepPartition:
    kw = {name: arrays[name] for name in SHARED}
    for f in dataclasses.fields(PorepPartition):
        if f.name not in kw:
            kw[f.name] = arrays[f.name][p]
    return PorepPartition(**kw)


