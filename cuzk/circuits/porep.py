"""porep-c2-like: the shape of Filecoin's PoRep commit (C2) partition circuit.

A model, not the Filecoin circuit: same structure and scale, our own
Poseidon parameters and graph, not bit-compatible. One partition proves
`challenges` challenged nodes of a sector of 2^nodes_log2 nodes that was
encoded with `layers` SDR-like layers. Per challenge c:

* comm_d: the data leaf's SHA-256 binary Merkle path (nodes are digests
  truncated to 254 bits) whose position bits are c's bits;
* columns: for c and each of its base (same layer) and expander (previous
  layer) parents, the column of its `layers` labels, hashed with Poseidon of
  arity `layers` and proven in tree_c (Poseidon arity 8) to comm_c;
* the replica leaf of c proven in tree_r_last (Poseidon arity 8) to comm_r_last;
* labeling, every layer l: label_l(c) = SHA-256(replica_id || l (u32 BE) ||
  c (u64 BE) || 20 zero bytes || the parents' labels repeated cyclically to
  `hashed_parents` entries) truncated to 254 bits equals the column's label;
  layer 1 hashes the base parents' layer-1 labels, later layers the base
  parents' layer-l and the expander parents' layer-(l-1) labels;
* encoding: replica leaf = label_layers(c) + data leaf (in Fr).

Once per partition: comm_r = Poseidon(comm_c, comm_r_last). Public inputs,
in order: replica_id, comm_d, comm_r, then per challenge its index and its
parents' indices (the verifier derives those from the graph; Filecoin also
exposes them). Challenges are in [1, nodes): node 0 has no real parents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import bit_templates as bt
from .fr_bytes import KEPT, NODE_BITS, node_bits, small_to_mont, to_mont
from .wiring import Bits, Nums, Synth, cat_bits, cat_nums

ARITY = 8
LAYER_BITS = 4  # layer numbers 1..15 in the message's u32


@dataclass(frozen=True)
class PorepShape:
    nodes_log2: int
    layers: int
    challenges: int
    base_degree: int
    expansion_degree: int
    hashed_parents: int
    partitions: int = 10

    def __post_init__(self):
        if self.nodes_log2 < 3 or self.nodes_log2 % 3:
            raise ValueError("nodes_log2 must be a positive multiple of 3 (arity-8 trees)")
        if self.layers not in (2, 4, 8, 11):
            raise ValueError("layers must be a Poseidon arity: 2, 4, 8 or 11 (the column hash)")
        if self.base_degree < 1 or self.expansion_degree < 0:
            raise ValueError("need at least one base parent")
        if self.hashed_parents < self.base_degree + self.expansion_degree:
            raise ValueError("hashed_parents must cover every parent")

    @property
    def degree(self) -> int:
        return self.base_degree + self.expansion_degree

    @property
    def tree_depth(self) -> int:
        return self.nodes_log2 // 3

    @property
    def num_nodes(self) -> int:
        return 1 << self.nodes_log2

    @property
    def num_public_inputs(self) -> int:
        return 3 + self.challenges * (1 + self.degree)

    def label_blocks(self) -> tuple[int, int, int]:
        """(full parent blocks, tail bits of the last block, message bits) of a label hash."""
        hp = self.hashed_parents
        return hp // 2, 256 * (hp % 2), 512 + 256 * hp


def parent_pool_index(shape: PorepShape) -> np.ndarray:
    """[layers, hashed_parents] indices into a challenge's decomposed parent
    labels (base parent j layer l at j*L + l; expander parent j layer l at
    Db*L + j*(L-1) + l) giving each layer's hashed parent sequence."""
    L, Db, De, hp = shape.layers, shape.base_degree, shape.expansion_degree, shape.hashed_parents
    out = np.empty((L, hp), dtype=np.int64)
    for l in range(L):
        ps = [j * L + l for j in range(Db)]
        if l > 0:
            ps += [Db * L + j * (L - 1) + (l - 1) for j in range(De)]
        out[l] = [ps[k % len(ps)] for k in range(hp)]
    return out


def decomposed_labels(shape: PorepShape) -> tuple[np.ndarray, np.ndarray]:
    """(column row within a challenge's 1 + degree columns, layer) of each
    decomposed parent label, in pool order."""
    L, Db, De = shape.layers, shape.base_degree, shape.expansion_degree
    rows = [1 + j for j in range(Db) for _ in range(L)] + [1 + Db + j for j in range(De) for _ in range(L - 1)]
    layers = [l for _ in range(Db) for l in range(L)] + [l for _ in range(De) for l in range(L - 1)]
    return np.array(rows, dtype=np.int64), np.array(layers, dtype=np.int64)


@dataclass
class PorepPartition:
    """One partition's witness inputs (32-byte LE encodings, uint64 indices)."""

    replica_id: np.ndarray  # [32]
    comm_d: np.ndarray
    comm_r: np.ndarray
    comm_c: np.ndarray
    comm_r_last: np.ndarray
    challenges: np.ndarray  # uint64[C]
    parents: np.ndarray  # uint64[C, D]
    data_leaves: np.ndarray  # [C, 32]
    data_paths: np.ndarray  # [C, n, 32]
    columns: np.ndarray  # [C, 1 + D, L, 32]
    column_paths: np.ndarray  # [C, 1 + D, depth, 7, 32]
    replica_leaves: np.ndarray  # [C, 32]
    replica_paths: np.ndarray  # [C, depth, 7, 32]

    def public_values(self) -> np.ndarray:
        """Montgomery uint64[num_public_inputs, 4] in circuit order."""
        head = to_mont(np.stack([self.replica_id, self.comm_d, self.comm_r]))
        idx = np.concatenate([self.challenges[:, None], self.parents], axis=1).ravel()
        return np.concatenate([head, small_to_mont(idx)])


def synthesize(cs, shape: PorepShape, d: PorepPartition | None = None) -> None:
    """One partition of the circuit into `cs` (values from `d` in witness modes)."""
    s = Synth(cs)
    V = s.values
    if V and d is None:
        raise ValueError("witness mode needs the partition's inputs")
    C, D, L, n = shape.challenges, shape.degree, shape.layers, shape.nodes_log2
    Db, depth = shape.base_degree, shape.tree_depth
    nodes_per = 1 + D  # columns per challenge: the challenge, then its parents

    pub = s.inputs(d.public_values() if V else shape.num_public_inputs)
    replica_id, comm_d, comm_r = pub[0:1], pub[1:2], pub[2:3]
    idx_in = pub[3:]
    s.alloc_zero()

    comms = s.alloc(to_mont(np.stack([d.comm_c, d.comm_r_last])) if V else 2)
    comm_c, comm_r_last = comms[0:1], comms[1:2]
    s.equal(s.poseidon2(comm_c, comm_r_last), comm_r)

    rid_bits = s.decompose_nodes(replica_id)  # [1, 254]
    idx_values = np.concatenate([d.challenges[:, None], d.parents], axis=1).ravel() if V else None
    ibits = s.decompose_indices(idx_in, n, idx_values).reshape(C, nodes_per, n)

    # columns, and the tree_c / tree_r_last paths
    labels, col_hash = s.columns(to_mont(d.columns).reshape(C * nodes_per, L, 4) if V else None, C * nodes_per, L)
    labels = labels.reshape(C, nodes_per, L)
    rleaves = s.alloc(to_mont(d.replica_leaves) if V else C)
    leaves = cat_nums([col_hash, rleaves])
    positions = cat_bits([ibits.reshape(C * nodes_per, n), ibits[:, 0]], axis=0)
    siblings = None
    if V:
        siblings = to_mont(np.concatenate([d.column_paths.reshape(C * nodes_per, depth, ARITY - 1, 32),
                                           d.replica_paths]))
    roots = s.poseidon_paths(leaves, positions, siblings)
    s.equal(roots, Nums(np.concatenate([np.repeat(comm_c.vars, C * nodes_per), np.repeat(comm_r_last.vars, C)]), None))

    # encoding and the comm_d path
    data = s.stamp_bits(bt.porep_encode(s.curve), Bits(np.stack([labels.vars[:, 0, L - 1], rleaves.vars], axis=1),
                                                          np.zeros((C, 2), np.uint8) if V else None),
                        node_bits(d.data_leaves) if V else None)
    root = s.sha_path(data, ibits[:, 0], node_bits(d.data_paths) if V else None)
    s.pack_equal(root, Nums(np.repeat(comm_d.vars, C), None))

    # labeling
    rows, layers = decomposed_labels(shape)
    pool = s.decompose_nodes(labels[:, rows, layers].reshape(-1)).reshape(C, len(rows), NODE_BITS)
    _labeling(s, shape, rid_bits, ibits[:, 0], pool, labels[:, 0])


def _labeling(s: Synth, shape: PorepShape, rid_bits: Bits, cbits: Bits, pool: Bits, targets: Nums) -> None:
    """All C x L label hashes, block by block; each equals its column label."""
    C, L, n = shape.challenges, shape.layers, shape.nodes_log2
    N = C * L
    V = s.values
    z = s.zero.vars[0]
    # prefix block: replica_id || layer u32 BE || node u64 BE || 20 zero bytes
    layer_bits = np.array([[(l + 1) >> (LAYER_BITS - 1 - i) & 1 for i in range(LAYER_BITS)] for l in range(L)],
                          dtype=np.uint8)
    layer_w = s.constant_bits(np.concatenate([np.zeros((L, 32 - LAYER_BITS), np.uint8), layer_bits], axis=1))
    rid = s.full_node(rid_bits)  # [1, 256]
    node_vars = np.full((C, 64), z, dtype=np.int64)
    node_vars[:, 64 - n:] = cbits.vars[:, ::-1]
    node_vals = None
    if V:
        node_vals = np.zeros((C, 64), dtype=np.uint8)
        node_vals[:, 64 - n:] = cbits.vals[:, ::-1]
    prefix_vars = np.empty((C, L, 512), dtype=np.int64)
    prefix_vars[:, :, :256] = rid.vars[0]
    prefix_vars[:, :, 256:288] = layer_w.vars[None]
    prefix_vars[:, :, 288:352] = node_vars[:, None]
    prefix_vars[:, :, 352:] = z
    prefix_vals = None
    if V:
        prefix_vals = np.zeros((C, L, 512), dtype=np.uint8)
        prefix_vals[:, :, :256] = rid.vals[0]
        prefix_vals[:, :, 256:288] = layer_w.vals[None]
        prefix_vals[:, :, 288:352] = node_vals[:, None]
    state = s.stamp_bits(bt.sha_first(s.curve), Bits(prefix_vars.reshape(N, 512), _r(prefix_vals, N, 512)),
                         _ext0(V, N))
    # parent blocks
    parents = s.full_node(pool)[:, parent_pool_index(shape)]  # [C, L, hp, 256]
    full_blocks, tail_bits, message_bits = shape.label_blocks()
    comp = bt.compression(s.curve)
    for k in range(full_blocks):
        block = parents[:, :, 2 * k : 2 * k + 2].reshape(N, 512)
        state = s.stamp_bits(comp, cat_bits([state, block]), _ext0(V, N))
    tail = parents[:, :, shape.hashed_parents - 1].reshape(N, 256)[:, :tail_bits]
    digest = s.stamp_bits(bt.sha_final(s.curve, tail_bits, message_bits), cat_bits([state, tail]), _ext0(V, N))
    s.pack_equal(digest[:, KEPT], targets.reshape(N))


def _r(a, *shape):
    return None if a is None else a.reshape(*shape)


def _ext0(V: bool, n: int):
    return np.zeros((n, 0), dtype=np.uint8) if V else None
