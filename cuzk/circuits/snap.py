"""snap-like: the shape of Filecoin's SnapDeals (empty-sector update) partition circuit.

A model, not the Filecoin circuit. The sector (2^nodes_log2 nodes) is split
into 16 partitions; partition k owns nodes [k * 2^m, (k+1) * 2^m) with
m = nodes_log2 - 4. Its challenges are local indices in [0, 2^m).

Once per partition: comm_r_old = Poseidon(comm_c, comm_r_last_old) and
comm_r_new = Poseidon(comm_c, comm_r_last_new); phi = Poseidon(comm_d_new,
comm_r_old); the 2^apex_bits apex leaves (the data-tree nodes apex_bits
levels below the partition's subtree root) are hashed up to that root
with SHA-256, and the root's 4-level SHA-256 path (position bits = k's
bits) ends in comm_d_new.

Per challenge: the new data leaf's SHA-256 path (truncated nodes) up to
the apex level, whose node must equal the apex leaf the next apex_bits
index bits select; Poseidon arity-8 paths of the old (sector key) and new
replica leaves to comm_r_last_old / comm_r_last_new (position bits: the
local index, then k); the encoding new = old + data * rho with rho =
Poseidon(phi, the node index's top `high_bits` bits).

Public inputs: comm_r_old, comm_d_new, comm_r_new, k, then the challenges'
local indices (Filecoin derives the challenges inside the circuit from
comm_r_new and k; the model takes them as inputs, like the PoRep model).

Vanilla arrays (P = 16, C challenges, a = apex_bits, A = 2^a, t = m - a,
d = nodes_log2 / 3):

    comm_r_old, comm_d_new, comm_r_new, comm_c,
    comm_r_last_old, comm_r_last_new          [32]
    apex_leaves      [P, A, 32]
    partition_paths  [P, 4, 32]     siblings of the partition root, up
    challenges       <u8 [P, C]     local indices
    data_leaves      [P, C, 32]
    data_paths       [P, C, t, 32]
    old_leaves, new_leaves   [P, C, 32]
    old_paths, new_paths     [P, C, d, 7, 32]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.poseidon.native import poseidon_hash

from . import field_templates as ft
from . import trees
from .fr_bytes import CURVE, fr, from_mont, node_bits, random_fr, random_nodes, small_to_mont, to_mont
from .wiring import Bits, Nums, Synth, cat_bits, cat_nums, kernels

ARITY = 8
PARTITION_BITS = 4
SHARED = ("comm_r_old", "comm_d_new", "comm_r_new", "comm_c", "comm_r_last_old", "comm_r_last_new")


@dataclass(frozen=True)
class SnapShape:
    nodes_log2: int
    challenges: int
    apex_bits: int
    high_bits: int
    partitions: int = 16

    def __post_init__(self):
        if self.nodes_log2 < 6 or self.nodes_log2 % 3:
            raise ValueError("nodes_log2 must be a multiple of 3, at least 6 (arity-8 trees, 16 partitions)")
        if self.partitions != 1 << PARTITION_BITS:
            raise ValueError("snap-like has 16 partitions")
        if not 0 <= self.apex_bits <= self.local_bits:
            raise ValueError("apex_bits must be between 0 and nodes_log2 - 4")
        if not 1 <= self.high_bits <= self.nodes_log2:
            raise ValueError("high_bits must be between 1 and nodes_log2")

    @property
    def local_bits(self) -> int:
        return self.nodes_log2 - PARTITION_BITS

    @property
    def path_levels(self) -> int:
        """SHA-256 levels of a challenge's data path (leaf to the apex level)."""
        return self.local_bits - self.apex_bits

    @property
    def tree_depth(self) -> int:
        return self.nodes_log2 // 3

    @property
    def num_nodes(self) -> int:
        return 1 << self.nodes_log2

    @property
    def num_public_inputs(self) -> int:
        return 4 + self.challenges


@dataclass
class SnapPartition:
    k: int
    comm_r_old: np.ndarray
    comm_d_new: np.ndarray
    comm_r_new: np.ndarray
    comm_c: np.ndarray
    comm_r_last_old: np.ndarray
    comm_r_last_new: np.ndarray
    apex_leaves: np.ndarray  # [A, 32]
    partition_paths: np.ndarray  # [4, 32]
    challenges: np.ndarray  # uint64[C]
    data_leaves: np.ndarray  # [C, 32]
    data_paths: np.ndarray  # [C, t, 32]
    old_leaves: np.ndarray
    new_leaves: np.ndarray
    old_paths: np.ndarray  # [C, d, 7, 32]
    new_paths: np.ndarray

    def public_values(self) -> np.ndarray:
        head = to_mont(np.stack([self.comm_r_old, self.comm_d_new, self.comm_r_new]))
        return np.concatenate([head, small_to_mont(np.concatenate([np.array([self.k], np.uint64), self.challenges]))])


def synthesize(cs, shape: SnapShape, d: SnapPartition | None = None) -> None:
    s = Synth(cs)
    V = s.values
    if V and d is None:
        raise ValueError("witness mode needs the partition's inputs")
    C, a, m, t, n = shape.challenges, shape.apex_bits, shape.local_bits, shape.path_levels, shape.nodes_log2
    pub = s.inputs(d.public_values() if V else shape.num_public_inputs)
    comm_r_old, comm_d_new, comm_r_new, k_in, local_in = pub[0:1], pub[1:2], pub[2:3], pub[3:4], pub[4:]

    comms = s.alloc(to_mont(np.stack([d.comm_c, d.comm_r_last_old, d.comm_r_last_new])) if V else 3)
    comm_c, last_old, last_new = comms[0:1], comms[1:2], comms[2:3]
    s.equal(s.poseidon2(cat_nums([comm_c, comm_c]), comms[1:3]), cat_nums([comm_r_old, comm_r_new]))
    phi = s.poseidon2(comm_d_new, comm_r_old)

    kbits = s.decompose_indices(k_in, PARTITION_BITS, np.array([d.k]) if V else None)  # [1, 4]
    lbits = s.decompose_indices(local_in, m, d.challenges if V else None)  # [C, m]

    # apex leaves -> partition root -> comm_d_new
    apex = s.alloc(to_mont(d.apex_leaves) if V else 1 << a)
    level = s.decompose_nodes(apex)
    while level.vars.shape[0] > 1:
        level = s.sha_pairs(level[0::2], level[1::2])
    root = s.sha_path(level, kbits, node_bits(d.partition_paths)[None] if V else None)
    s.pack_equal(root, comm_d_new)

    # data leaves up to the apex level, matched against the selected apex leaf
    data = s.free_node_bits(C, node_bits(d.data_leaves) if V else None)
    top = s.sha_path(data, lbits[:, :t], node_bits(d.data_paths) if V else None)
    if a == 0:
        s.pack_equal(top, Nums(np.repeat(apex.vars, C), None))
    else:
        tmpl = ft.apex_select(s.curve, a)
        iface = np.concatenate([np.repeat(apex.vars[None], C, axis=0), lbits.vars[:, t:], top.vars], axis=1)
        aux = None
        if V:
            with kernels(C):
                aux = ft.apex_select_witness(tmpl, np.repeat(apex.vals[None], C, axis=0), lbits.vals[:, t:])
        s.stamp(tmpl.gadget, iface, aux)

    # old and new replica leaves in their trees
    leaves = s.alloc(to_mont(np.concatenate([d.old_leaves, d.new_leaves])) if V else 2 * C)
    gbits = cat_bits([lbits, Bits(np.repeat(kbits.vars, C, axis=0), None if not V else np.repeat(kbits.vals, C, 0))])
    siblings = None
    if V:
        siblings = to_mont(np.concatenate([d.old_paths, d.new_paths]))
    roots = s.poseidon_paths(leaves, cat_bits([gbits, gbits], axis=0), siblings)
    s.equal(roots, Nums(np.concatenate([np.repeat(last_old.vars, C), np.repeat(last_new.vars, C)]), None))

    # encoding: new = old + data * Poseidon(phi, high bits of the node index)
    h = shape.high_bits
    high = gbits[:, n - h:]
    g = ft.rho_encode(s.curve, h)
    iface = np.concatenate([np.repeat(phi.vars, C)[:, None], high.vars, data.vars,
                            leaves.vars[:C, None], leaves.vars[C:, None]], axis=1)
    aux = None
    if V:
        weights = (np.uint64(1) << np.arange(h, dtype=np.uint64))
        high_val = small_to_mont((high.vals.astype(np.uint64) * weights).sum(axis=1))
        with kernels(C):
            aux, _ = ft.rho_witness(s.curve, np.repeat(phi.vals, C, axis=0), high_val)
    s.stamp(g, iface, aux)


# ---- vanilla proofs --------------------------------------------------------------------------


def expected_arrays(shape: SnapShape) -> dict:
    P, C, A, t, d = shape.partitions, shape.challenges, 1 << shape.apex_bits, shape.path_levels, shape.tree_depth
    spec = {name: (32,) for name in SHARED}
    spec.update({
        "apex_leaves": (P, A, 32),
        "partition_paths": (P, PARTITION_BITS, 32),
        "challenges": ((P, C), "<u8"),
        "data_leaves": (P, C, 32),
        "data_paths": (P, C, t, 32),
        "old_leaves": (P, C, 32), "new_leaves": (P, C, 32),
        "old_paths": (P, C, d, 7, 32), "new_paths": (P, C, d, 7, 32),
    })
    return spec


def rho_values(shape: SnapShape, phi: np.ndarray) -> np.ndarray:
    """rho for each of the 2^high_bits values of a node index's top bits (Montgomery)."""
    hs = 1 << shape.high_bits
    return poseidon_hash(CURVE, np.stack([np.repeat(phi[None], hs, 0), small_to_mont(np.arange(hs))], axis=1))


def generate(shape: SnapShape, seed: int) -> dict[str, np.ndarray]:
    """A valid update of a random sector: only challenged leaves are
    materialized below the apex level (`sparse_tree`); the apex region of
    the data tree (16 x 2^apex_bits nodes and above) is built densely."""
    rng = np.random.default_rng(seed)
    f = fr()
    P, C, m, a, t, n, d = (shape.partitions, shape.challenges, shape.local_bits, shape.apex_bits,
                           shape.path_levels, shape.nodes_log2, shape.tree_depth)
    local = rng.integers(0, 1 << m, size=(P, C), dtype=np.int64)
    glob = (local + (np.arange(P, dtype=np.int64) << m)[:, None]).ravel()
    uniq, first, inverse = np.unique(glob, return_index=True, return_inverse=True)
    old = to_mont(random_fr(rng, len(glob)))[first][inverse]  # sector key leaves
    data = random_nodes(rng, len(glob))[first][inverse]

    # data tree: sparse up to the apex level, dense above it
    low = trees.sha_sparse(rng, glob, data, t)
    apex_level = random_nodes(rng, P << a)
    apex_level[low.top_index] = low.top_nodes
    top = trees.sha_tree(apex_level)
    comm_d_new = top[-1][0]

    comm_c = to_mont(random_fr(rng, 1))[0]
    tree_old = trees.poseidon8_sparse(rng, glob, old, d)
    comm_r_old = poseidon_hash(CURVE, np.stack([comm_c, tree_old.top_nodes[0]])[None])[0]
    phi = poseidon_hash(CURVE, np.stack([to_mont(comm_d_new), comm_r_old])[None])[0]
    rho = rho_values(shape, phi)[glob >> (n - shape.high_bits)]
    new = f.add(old, f.mul(to_mont(data), rho))
    tree_new = trees.poseidon8_sparse(rng, glob, new, d)
    comm_r_new = poseidon_hash(CURVE, np.stack([comm_c, tree_new.top_nodes[0]])[None])[0]

    arrays = {
        "comm_r_old": from_mont(comm_r_old), "comm_d_new": comm_d_new, "comm_r_new": from_mont(comm_r_new),
        "comm_c": from_mont(comm_c), "comm_r_last_old": from_mont(tree_old.top_nodes[0]),
        "comm_r_last_new": from_mont(tree_new.top_nodes[0]),
        "apex_leaves": apex_level.reshape(P, 1 << a, 32),
        "partition_paths": trees.paths(top[a:], np.arange(P), 2).reshape(P, PARTITION_BITS, 32),
        "challenges": local.astype(np.uint64),
        "data_leaves": data.reshape(P, C, 32),
        "data_paths": low.paths(glob).reshape(P, C, t, 32) if t else np.zeros((P, C, 0, 32), np.uint8),
        "old_leaves": from_mont(old).reshape(P, C, 32), "new_leaves": from_mont(new).reshape(P, C, 32),
        "old_paths": from_mont(tree_old.paths(glob)).reshape(P, C, d, 7, 32),
        "new_paths": from_mont(tree_new.paths(glob)).reshape(P, C, d, 7, 32),
    }
    return arrays


def partition(arrays: dict[str, np.ndarray], p: int) -> SnapPartition:
    kw = {"k": p}
    for f in dataclasses.fields(SnapPartition):
        if f.name == "k":
            continue
        kw[f.name] = arrays[f.name] if f.name in SHARED else arrays[f.name][p]
    return SnapPartition(**kw)
