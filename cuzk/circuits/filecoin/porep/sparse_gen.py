"""Valid PoRep vanilla proofs of a whole sector at any size (32 / 64 GiB included), without sealing it.

The PoRep circuit sees a sector only through what one partition's vanilla proof opens: the
challenged nodes' data leaves, columns and replica leaves, the columns of their 14 parents, and the
tree D / tree C / tree R-last paths of all of them up to comm_d, comm_c and comm_r_last. So the
generator builds exactly that, for all `cfg.partitions` partitions of one sector at once, so that
they share one replica_id, comm_d, comm_c, comm_r_last and comm_r (as the C1 output of one sector):

challenges  `interactive_challenges(cfg, replica_id, seed, k)` for every partition k; U = the
            distinct challenged nodes (never node 0).
parents     `SdrGraph.drg_parents` / `.expander_parents` of U (the graph of `cfg`'s registered
            proof; test sizes: the porep id of zeros, as `porep_vanilla_gen.make_replica`).
columns     S = U and all their parents. Every node of S has ONE column of `cfg.layers` labels
            (uint8[|S|, L, 32]): random Fr values, except that the columns of the nodes of U are
            computed as the circuit recomputes them (`label_messages`: the layout of
            `porep_vanilla_gen.label_layers`), layer by layer and, within a layer, in dependency
            waves (a challenged node whose DRG parent is challenged too comes after it; DRG parents
            are below their node, expander parents are read from the previous layer). A parent
            shared by several challenges, or itself challenged, is thus one consistent column.
data        random nodes at DATA_NODES random nodes (all of a small sector), zero elsewhere (all zero:
            `cc=True`, a committed-capacity sector); chosen before the challenges are known.
trees       `SparseTree`: per level only the parents of known nodes are hashed; unknown children
            are the default subtree of that level (the hash of all-default leaves, computed once per
            level). tree D: binary sha254 over the data (depth `cfg.tree_d_depth`, default leaf zero);
            tree C: Poseidon (the sector shape's `cfg.arities`) over the columns' Poseidon hashes
            (arity L) at S, default leaf 0; tree R-last: Poseidon over replica = data + last label
            (in Fr) at U, default leaf 0. comm_r = Poseidon2(comm_c, comm_r_last).
replica_id  rust-fil-proofs' `generate_replica_id` of the prover id, sector id and ticket (given or
            random), comm_d and the porep id, as sealing derives it: tree D holds only the data, so
            comm_d is known before the labels (which depend on replica_id) are computed.

Everything that scales with the challenge count is a numpy array; nothing scales with the sector.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.sha256.native import sha256 as sha256_many

from cuzk.circuits.filecoin.common.fr_bytes import TOP_MASK, fr, from_mont, random_nodes, to_mont
from .challenges import generate_replica_id, interactive_challenges
from .config import BASE_DEGREE, DEGREE, PorepConfig
from .vanilla_proof import PorepPartitionProof
from .sdr import SdrGraph, porep_id
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children
from cuzk.circuits.filecoin.common.tree_d import sha_level
from cuzk.circuits.filecoin.common.default_tree import SparseTree

DATA_NODES = 4096  # nodes of a (non-cc) generated sector that hold random data; the others hold zero
PREFIX_BYTES = 64  # replica_id || layer u32 BE || node u64 BE || 20 zero bytes


# ---- labels ----------------------------------------------------------------------------------------


def label_messages(replica_id: bytes, layer: int, nodes: np.ndarray, drg_labels: np.ndarray,
                   exp_labels: np.ndarray | None) -> np.ndarray:
    """uint8[n, 64 + 37 * 32]: the labeling hash inputs of `nodes` (all > 0) in `layer`.

    drg_labels [n, 6, 32]: the DRG parents' labels of this layer; exp_labels [n, 8, 32]: the
    expander parents' labels of the previous layer (None for layer 1). The repetition is
    `porep_vanilla_gen.label_layers`': layer 1 the 6 DRG parents six times and the first again,
    later layers the 14 parents twice and the first 9 again."""
    nodes = np.asarray(nodes, dtype=np.uint64)
    n = len(nodes)
    head = np.zeros((n, PREFIX_BYTES), dtype=np.uint8)
    head[:, :32] = np.frombuffer(bytes(replica_id), dtype=np.uint8)
    head[:, 32:36] = np.frombuffer(int(layer).to_bytes(4, "big"), dtype=np.uint8)
    head[:, 36:44] = nodes.astype(">u8")[:, None].view(np.uint8)
    if layer == 1:
        base = drg_labels
        body = np.concatenate([base] * 6 + [base[:, :1]], axis=1)
    else:
        both = np.concatenate([drg_labels, exp_labels], axis=1)
        body = np.concatenate([both, both, both[:, :9]], axis=1)
    return np.concatenate([head, body.reshape(n, -1)], axis=1)


def labels_of(messages: np.ndarray) -> np.ndarray:
    """Labels uint8[n, 32] of label messages (SHA-256, the two top bits cleared)."""
    out = sha256_many(np.ascontiguousarray(messages))
    out[:, 31] &= TOP_MASK
    return out


def compute_columns(replica_id: bytes, nodes: np.ndarray, parents: np.ndarray, columns: np.ndarray,
                    challenged: np.ndarray) -> None:
    """Overwrite, in place, the columns of the `challenged` rows with their true labels.

    nodes int64[S] sorted (the column set), parents int64[S, 14] (rows of the challenged nodes
    used), columns uint8[S, L, 32] (the others' labels taken as given), challenged int64[U] row
    indices. DRG parents of a node are below it, so waves ordered by the longest chain of
    challenged DRG parents respect every dependency within a layer."""
    rows = np.asarray(challenged, dtype=np.int64)
    if rows.size == 0:
        return
    if (nodes[rows] == 0).any():
        raise ValueError("node 0 has no parents and is never challenged")
    par = parents[rows]
    is_ch = np.zeros(len(nodes), dtype=bool)
    is_ch[rows] = True
    drg_rows = np.searchsorted(nodes, par[:, :BASE_DEGREE])
    exp_rows = np.searchsorted(nodes, par[:, BASE_DEGREE:])
    if not (np.array_equal(nodes[drg_rows], par[:, :BASE_DEGREE])
            and np.array_equal(nodes[exp_rows], par[:, BASE_DEGREE:])):
        raise ValueError("a parent of a challenged node has no column")
    if (par[:, :BASE_DEGREE] >= nodes[rows][:, None]).any():
        raise ValueError("a DRG parent is not below its node")
    wave = np.zeros(len(nodes), dtype=np.int64)
    for i in np.argsort(nodes[rows], kind="stable"):  # challenge-count loop, not sector-size
        deps = drg_rows[i][is_ch[drg_rows[i]]]
        wave[rows[i]] = 1 + (wave[deps].max() if deps.size else 0)
    L = columns.shape[1]
    for layer in range(1, L + 1):
        for w in range(1, int(wave[rows].max()) + 1):
            sel = np.nonzero(wave[rows] == w)[0]
            drg = columns[drg_rows[sel], layer - 1]
            exp = columns[exp_rows[sel], layer - 2] if layer > 1 else None
            msgs = label_messages(replica_id, layer, nodes[rows[sel]], drg, exp)
            columns[rows[sel], layer - 1] = labels_of(msgs)


# ---- the sector ------------------------------------------------------------------------------------


@dataclass
class SectorProofs:
    """One sector's C1 material: the commitments, the seed and every partition's vanilla proof."""

    cfg: PorepConfig
    graph: SdrGraph
    replica_id: np.ndarray  # [32]
    comm_d: np.ndarray  # [32]
    comm_c: np.ndarray
    comm_r_last: np.ndarray
    comm_r: np.ndarray
    seed: bytes  # the interactive challenge seed
    ticket: bytes
    prover_id: bytes | None  # with sector_id: what replica_id derives from (cc=True), else None
    sector_id: int | None
    partitions: list[PorepPartitionProof]

    def __iter__(self):  # (replica_id, comm_d, comm_r, seed, ticket, partitions)
        return iter((self.replica_id, self.comm_d, self.comm_r, self.seed, self.ticket, self.partitions))


def _graph(cfg: PorepConfig, porep: bytes | None) -> tuple[SdrGraph, bytes]:
    if porep is None:
        porep = porep_id(cfg.registered_proof) if cfg.registered_proof is not None else bytes(32)
    return SdrGraph(cfg.sector_size, porep, cfg.api_version), porep


def make_sector_proofs(cfg: PorepConfig, seed: int, *, cc: bool = False, porep: bytes | None = None,
                       challenge_seed: bytes | None = None, prover_id: bytes | None = None,
                       sector_id: int | None = None) -> SectorProofs:
    """All `cfg.partitions` vanilla proofs of one random sector, mutually consistent (see the module
    docstring). `seed` seeds everything random; `challenge_seed` (32 bytes) overrides the drawn
    interactive seed; `prover_id` (32 bytes) and `sector_id` the drawn ones replica_id derives
    from; `cc`: an all-zero (committed-capacity) sector."""
    rng = np.random.default_rng(seed)
    graph, porep = _graph(cfg, porep)
    N, L = cfg.nodes, cfg.layers
    if int(np.prod(cfg.arities)) != N or (1 << cfg.tree_d_depth) != N:
        raise ValueError(f"{cfg.name}: the tree shapes do not cover {N} nodes")
    ticket = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
    if challenge_seed is None:
        challenge_seed = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
    zero = np.zeros(32, dtype=np.uint8)
    drawn_prover = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
    drawn_sector = int(rng.integers(0, 1 << 40))
    prover_id = drawn_prover if prover_id is None else bytes(prover_id)
    sector_id = drawn_sector if sector_id is None else int(sector_id)
    if len(prover_id) != 32:
        raise ValueError("prover_id: expected 32 bytes")

    # replica_id depends on comm_d and the challenges on replica_id: tree D is built first, over
    # random data at DATA_NODES nodes (every node of a small sector; none of a cc sector)
    if cc:
        d_index, d_data = np.zeros(1, dtype=np.int64), zero[None]
    else:
        d_index = np.sort(rng.choice(N, size=min(N, DATA_NODES), replace=False)).astype(np.int64)
        d_data = random_nodes(rng, len(d_index))
    tree_d = SparseTree(d_index, d_data, (2,) * cfg.tree_d_depth, sha_level, zero)
    comm_d = tree_d.root.copy()
    replica_id = np.frombuffer(generate_replica_id(prover_id, sector_id, ticket, comm_d.tobytes(), porep),
                               dtype=np.uint8).copy()
    rid = bytes(replica_id)

    ch = np.stack([interactive_challenges(cfg, rid, challenge_seed, k) for k in range(cfg.partitions)])
    ch = ch.astype(np.int64)  # [P, C]
    U = np.unique(ch)
    par_u = graph.parents(U).astype(np.int64)  # [U, 14]
    S = np.unique(np.concatenate([U, par_u.ravel()]))
    u_rows = np.searchsorted(S, U)
    parents_s = np.zeros((len(S), DEGREE), dtype=np.int64)
    parents_s[u_rows] = par_u

    columns = random_nodes(rng, (len(S), L))
    compute_columns(rid, S, parents_s, columns, u_rows)
    data_u = tree_d.leaves(U)

    mont_zero = np.zeros(4, dtype=np.uint64)
    tree_c = SparseTree(S, hash_children(to_mont(columns)), cfg.arities, hash_children, mont_zero)
    replica_u = fr().add(to_mont(columns[u_rows, L - 1]), to_mont(data_u))
    tree_r = SparseTree(U, replica_u, cfg.arities, hash_children, mont_zero)
    comm_c, comm_r_last = from_mont(tree_c.root), from_mont(tree_r.root)
    comm_r = comm_r_of(comm_c, comm_r_last)[0]

    proofs = []
    for k in range(cfg.partitions):
        c = ch[k]
        C = len(c)
        iu = np.searchsorted(U, c)
        parents = par_u[iu]
        flat = parents.ravel()
        proofs.append(PorepPartitionProof(
            replica_id=replica_id.copy(), comm_d=comm_d.copy(), comm_r=comm_r.copy(), comm_c=comm_c.copy(),
            comm_r_last=comm_r_last.copy(), challenges=c.astype(np.uint64), parents=parents.astype(np.uint64),
            data_leaves=data_u[iu],
            data_paths=np.stack([p[:, 0] for p in tree_d.paths(c)], axis=1),
            parent_columns=columns[np.searchsorted(S, flat)].reshape(C, DEGREE, L, 32),
            parent_paths=tuple(from_mont(p).reshape(C, DEGREE, p.shape[1], 32) for p in tree_c.paths(flat)),
            columns=columns[np.searchsorted(S, c)],
            column_paths=tuple(from_mont(p) for p in tree_c.paths(c)),
            replica_leaves=from_mont(replica_u[iu]),
            replica_paths=tuple(from_mont(p) for p in tree_r.paths(c)),
        ))
    return SectorProofs(cfg, graph, replica_id, comm_d, comm_c, comm_r_last, comm_r, challenge_seed, ticket,
                        prover_id, sector_id, proofs)
