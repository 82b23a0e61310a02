"""The stamped PoRep partition and its counts: the gadget-level circuit (`circuit`) recorded piece by
piece into templates (the tree D level in three pieces, a parent column, the challenge bits, per
layer the parents' bits, the SHA-256 blocks (`sha_blocks`) and the packing, the tail), stamped per
challenge in bellperson's order, with their witnesses computed for all challenges at once
(bit-sliced tapes for the SHA-256 blocks, neptune's kernel for Poseidon). `PorepInputs` holds a
partition's vanilla proof as the circuit's arrays; `counts` sizes a partition from the templates
without building it. The tests check that the stamped witness is the gadget-level one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.insertion import insert_values
from cuzk.gadgets.insertion import num_aux as insert_aux
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_gadget import num_constraints as hash_size
from cuzk.gadgets.sha256.filecoin import flip_byte_bits
from cuzk.gadgets.stamped import StampedGadget
from cuzk.r1cs import RecordingCS
from cuzk.r1cs.witness_phases import phase

from cuzk.circuits.filecoin.common.fr_bytes import CURVE, fr, ints, small_to_mont, to_mont
from cuzk.circuits.filecoin.common import sha_blocks
from .challenges import PER_CHALLENGE_INPUTS
from .config import BASE_DEGREE, DEGREE, PorepConfig
from cuzk.circuits.filecoin.common.stamped_witness import NUM_BITS, Cursor, bit_mont, le_bits, one, packed, tree_d_step
from cuzk.circuits.filecoin.common.templates import input_bits, input_nums, recorded_gadget
from cuzk.circuits.filecoin.common.tree_d import tree_d_pieces
from .circuit import (
    ChallengeValues, HeaderValues, challenge, challenge_bits, column_parent, header, label_message,
    label_parent_bits, layer_rows, path_end, tail,
)


# ---- counts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PorepCounts:
    constraints: int  # per partition, as circuitinfo counts them (without the input constraints)
    inputs: int  # public inputs with ONE
    aux: int


def _por_size(cfg: PorepConfig) -> tuple[int, int]:
    rows = aux = 0
    for a in cfg.arities:
        nb = a.bit_length() - 1
        rows += nb + insert_aux(a) + hash_size(a)
        aux += nb + (a - 1) + insert_aux(a) + hash_size(a)
    return rows + 2, aux


def counts(cfg: PorepConfig) -> PorepCounts:
    """Sizes of one partition from the gadgets' sizes: neptune's Poseidon by its formula, the
    SHA-256 blocks from their recorded templates (a compression each), nothing else built."""
    L = cfg.layers
    por_rows, por_aux = _por_size(cfg)
    d = tree_d_pieces()
    d_rows = d.front.num_constraints + d.hash.num_constraints + d.pack.num_constraints
    d_aux = d.front.num_aux + d.hash.num_aux + d.pack.num_aux
    rows = aux = 0
    rows += cfg.tree_d_depth * d_rows + 2  # + the path's packing and root constraints
    aux += 1 + cfg.tree_d_depth * d_aux  # the data leaf first
    rows += DEGREE * (hash_size(L) + por_rows)
    aux += DEGREE * (L + hash_size(L) + por_aux)
    rows += 64 + 1
    aux += 64
    for layer in range(1, L + 1):
        k = BASE_DEGREE if layer == 1 else DEGREE
        blocks = label_layout(layer).templates(CURVE)
        rows += k * (NUM_BITS + 1) + sum(g.num_constraints for g in blocks) + 1
        aux += k * NUM_BITS + sum(g.num_aux for g in blocks) + 1
    rows += 1 + 2 * por_rows + hash_size(L)
    aux += 1 + 2 * por_aux + hash_size(L)
    head_rows, head_aux = _header_size()
    C = cfg.challenges
    return PorepCounts(head_rows + C * rows, 1 + 3 + C * PER_CHALLENGE_INPUTS, head_aux + C * aux)


def _header_size() -> tuple[int, int]:
    """(constraints, aux) of the header: replica_id's inputize and bits, comm_d, comm_r, comm_r's hash."""
    return 1 + (NUM_BITS + 1) + 1 + 1 + hash_size(2) + 1, 1 + NUM_BITS + 4 + hash_size(2)


def challenge_of_row(cfg: PorepConfig, row: int) -> int | None:
    """The challenge whose constraints include constraint `row` (the header's: None): the header
    comes first, then each challenge's constraints, all of one size, in order."""
    head = _header_size()[0]
    if row < head:
        return None
    per = (counts(cfg).constraints - head) // cfg.challenges
    return min((row - head) // per, cfg.challenges - 1)


# ---- templates -----------------------------------------------------------------------------------


@functools.cache
def path_end_template(nbits: int) -> StampedGadget:
    """[nbits path bits, public input, computed root, root]: 2 constraints, no aux."""
    cs = RecordingCS(CURVE)
    bits = input_bits(cs, nbits)
    pub, cur, root = cs.alloc_input_many(3).tolist()
    path_end(cs, bits, pub, Num.of_var(cur, None, cs.modulus), Num.of_var(root, None, cs.modulus))
    return recorded_gadget(cs)


@functools.cache
def parent_template(cfg: PorepConfig) -> StampedGadget:
    """[comm_c, public input] -> a parent's column, hash and tree C path; outputs the L rows."""
    cs = RecordingCS(CURVE)
    (comm_c,) = input_nums(cs, 1)
    (pub,) = cs.alloc_input_many(1).tolist()
    rows = column_parent(cs, cfg, comm_c, pub, None, "parent")
    return recorded_gadget(cs, [r.single_var() for r in rows])


@functools.cache
def challenge_template() -> StampedGadget:
    """[public input] -> the 64 challenge bits (aux 0..63) packed into it."""
    cs = RecordingCS(CURVE)
    (pub,) = cs.alloc_input_many(1).tolist()
    bits = challenge_bits(cs, pub, None)
    return recorded_gadget(cs, [b.var for b in bits])


@functools.cache
def label_bits_template(k: int) -> StampedGadget:
    """[k parent labels] -> their to_bits_le, 255 bits each (all aux)."""
    cs = RecordingCS(CURVE)
    nums = input_nums(cs, k)
    label_parent_bits(cs, nums[:BASE_DEGREE], nums[BASE_DEGREE:])
    return recorded_gadget(cs)


@functools.cache
def label_layout(layer: int) -> sha_blocks.MessageLayout:
    """The label message of `layer` over its sources: the 255 replica_id bits (to_bits_le order),
    the 64 challenge bits, then 255 bits per hashed parent label (6 or 14)."""
    k = BASE_DEGREE if layer == 1 else DEGREE
    cs = RecordingCS(CURVE)
    replica = flip_byte_bits(input_bits(cs, NUM_BITS))
    node = input_bits(cs, 64)
    parents = [flip_byte_bits(input_bits(cs, NUM_BITS)) for _ in range(k)]
    return sha_blocks.layout(label_message(replica, layer, node, parents))


@functools.cache
def tail_template(cfg: PorepConfig) -> StampedGadget:
    """[L labels, data leaf, comm_r_last, comm_c, public input R, public input C] -> encoding,
    tree R-last path, column hash, tree C path."""
    cs = RecordingCS(CURVE)
    nums = input_nums(cs, cfg.layers + 3)
    pub_r, pub_c = cs.alloc_input_many(2).tolist()
    L = cfg.layers
    tail(cs, cfg, nums[:L], nums[L], nums[L + 1], nums[L + 2], pub_r, pub_c, None)
    return recorded_gadget(cs)


# ---- the partition's inputs as arrays ------------------------------------------------------------


@dataclass
class PorepInputs:
    """One partition's witness inputs: Montgomery uint64[..., 4] field elements, uint64 indices
    (C challenges, L layers, 14 parents, Dd tree D levels)."""

    replica_id: np.ndarray  # [4]
    comm_d: np.ndarray
    comm_r: np.ndarray
    comm_c: np.ndarray
    comm_r_last: np.ndarray
    challenges: np.ndarray  # uint64[C]
    parents: np.ndarray  # uint64[C, 14]
    data_leaves: np.ndarray  # [C, 4]
    data_siblings: np.ndarray  # [C, Dd, 4]
    parent_columns: np.ndarray  # [C, 14, L, 4]
    parent_siblings: tuple[np.ndarray, ...]  # per level [C, 14, a - 1, 4]
    replica_siblings: tuple[np.ndarray, ...]  # per level [C, a - 1, 4]
    column_siblings: tuple[np.ndarray, ...]  # per level [C, a - 1, 4]

    @classmethod
    def from_proof(cls, p) -> "PorepInputs":
        """From `porep_proof.PorepPartitionProof` (32-byte nodes); ValueError on a node >= r."""
        return cls(to_mont(p.replica_id), to_mont(p.comm_d), to_mont(p.comm_r), to_mont(p.comm_c),
                   to_mont(p.comm_r_last), np.asarray(p.challenges, dtype=np.uint64),
                   np.asarray(p.parents, dtype=np.uint64), to_mont(p.data_leaves), to_mont(p.data_paths),
                   to_mont(p.parent_columns), tuple(to_mont(s) for s in p.parent_paths),
                   tuple(to_mont(s) for s in p.replica_paths), tuple(to_mont(s) for s in p.column_paths))

    def public_values(self) -> np.ndarray:
        """Montgomery uint64[3 + 18 C, 4] in generate_public_inputs' order."""
        C = len(self.challenges)
        head = np.stack([self.replica_id, self.comm_d, self.comm_r])
        c = self.challenges[:, None]
        idx = np.concatenate([c, self.parents, c, c, c], axis=1).ravel()
        out = np.concatenate([head, small_to_mont(idx)])
        assert out.shape[0] == 3 + C * PER_CHALLENGE_INPUTS
        return out

    def header_values(self) -> HeaderValues:
        r, d, cr, cc, crl = ints(np.stack([self.replica_id, self.comm_d, self.comm_r, self.comm_c, self.comm_r_last]))
        return HeaderValues(r, d, cr, crl, cc)

    def challenge_values(self, c: int) -> ChallengeValues:
        return ChallengeValues(
            challenge=int(self.challenges[c]), parents=[int(p) for p in self.parents[c]],
            data_leaf=ints(self.data_leaves[c])[0], data_siblings=ints(self.data_siblings[c]),
            parent_columns=[ints(self.parent_columns[c, i]) for i in range(DEGREE)],
            parent_siblings=[[ints(s[c, i]) for s in self.parent_siblings] for i in range(DEGREE)],
            replica_siblings=[ints(s[c]) for s in self.replica_siblings],
            column_siblings=[ints(s[c]) for s in self.column_siblings],
        )


# ---- vectorized witness --------------------------------------------------------------------------


def _por_witness(w: Cursor, cfg: PorepConfig, leaf: np.ndarray, index: np.ndarray, siblings) -> None:
    """poseidon_inclusion's aux for N paths: leaf [N, 4], index uint64[N], siblings per level [N, a-1, 4]."""
    cur = leaf
    index = np.asarray(index, dtype=np.uint64).copy()
    for arity, sib in zip(cfg.arities, siblings):
        nb = arity.bit_length() - 1
        digit = index % np.uint64(arity)
        index //= np.uint64(arity)
        bits = ((digit[:, None] >> np.arange(nb, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
        w.put(bit_mont(bits))
        w.put(sib)
        ins_aux, preimage = insert_values(cur, bits, np.ascontiguousarray(sib), one())
        w.put(ins_aux)
        cur = w.put_hash(preimage)


@dataclass
class PartitionWitness:
    """Every stamped piece's aux values, per challenge (see `synthesize`)."""

    data_leaves: np.ndarray  # [C, 4]
    d_front: list  # per level [C, 4, 4]
    d_hash: list  # per level uint8[C, aux]
    d_pack: list  # per level [C, 1, 4]
    parents: np.ndarray  # [C, 14, aux, 4]
    challenge: np.ndarray  # uint8[C, 64]
    label_bits: list  # per layer uint8[C, k * 255]
    label_blocks: list  # per layer: per block uint8[C, aux]
    label_pack: list  # per layer [C, 1, 4]
    tail: np.ndarray  # [C, aux, 4]


def partition_witness(cfg: PorepConfig, x: PorepInputs) -> PartitionWitness:
    """The aux values of every piece of every challenge, computed for all challenges at once."""
    C, L = len(x.challenges), cfg.layers
    d = tree_d_pieces()
    # tree D levels
    fronts, hashes, packs = [], [], []
    cur = x.data_leaves
    with phase("tree D"):
        for t in range(cfg.tree_d_depth):
            bit = ((x.challenges >> np.uint64(t)) & np.uint64(1)).astype(np.uint8)
            sib = x.data_siblings[:, t]
            level = tree_d_step(d.hash, cur, bit, sib)
            fronts.append(np.concatenate([bit_mont(bit[:, None]), sib[:, None], level.insert], axis=1))
            hashes.append(level.hash)
            packs.append(level.pack)
            cur = level.parent
    # parents' columns and tree C paths
    with phase("parent columns"):
        P = parent_template(cfg)
        w = Cursor(C * DEGREE, P.num_aux)
        cols = x.parent_columns.reshape(C * DEGREE, L, 4)
        w.put(cols)
        h = w.put_hash(cols)
        _por_witness(w, cfg, h, x.parents.reshape(-1), [s.reshape(C * DEGREE, -1, 4) for s in x.parent_siblings])
        parents = w.done().reshape(C, DEGREE, P.num_aux, 4)
    challenge = ((x.challenges[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
    # labels
    with phase("labels"):
        replica = le_bits(x.replica_id[None])
        groups, label_bits = [], []
        for layer in range(1, L + 1):
            rows = x.parent_columns[:, :BASE_DEGREE, layer - 1]
            if layer > 1:
                rows = np.concatenate([rows, x.parent_columns[:, BASE_DEGREE:, layer - 2]], axis=1)
            pb = le_bits(rows).reshape(C, -1)
            label_bits.append(pb)
            sources = np.concatenate([np.repeat(replica, C, axis=0), challenge, pb], axis=1)
            lay = label_layout(layer)
            groups.append((lay, lay.bits(sources)))
        with phase("SHA-256 blocks"):
            runs = sha_blocks.run_blocks(groups, CURVE)
        label_blocks = [blocks for blocks, _ in runs]
        label_pack = [packed(digest)[:, None] for _, digest in runs]
    labels = np.concatenate(label_pack, axis=1)  # [C, L, 4]
    with phase("tail"):
        T = tail_template(cfg)
        w = Cursor(C, T.num_aux)
        enc = fr().add(labels[:, L - 1], x.data_leaves)
        w.put(enc[:, None])
        _por_witness(w, cfg, enc, x.challenges, x.replica_siblings)
        ch = w.put_hash(labels)
        _por_witness(w, cfg, ch, x.challenges, x.column_siblings)
        tail_aux = w.done()
    return PartitionWitness(x.data_leaves, fronts, hashes, packs, parents, challenge, label_bits, label_blocks,
                            label_pack, tail_aux)


# ---- the stamped partition -------------------------------------------------------------------------


def synthesize(cs, cfg: PorepConfig, x: PorepInputs | None = None) -> None:
    """One partition into `cs` (recording: x None; witness modes: x the partition's inputs), the
    pieces stamped in bellperson's order."""
    C = cfg.challenges
    V = cs.needs_values
    if V:
        if x is None:
            raise ValueError("witness mode needs the partition's inputs")
        if len(x.challenges) != C:
            raise ValueError(f"{cfg.name}: {len(x.challenges)} challenges, the circuit has {C}")
    n_pub = 3 + C * PER_CHALLENGE_INPUTS
    pub = cs.alloc_input_many(n_pub, x.public_values() if V else None)
    h = header(cs, pub[:3].tolist(), x.header_values() if V else None)
    W = None
    if V:
        with phase("porep witness"):
            W = partition_witness(cfg, x)
    replica_codes = np.array([b.var for b in h.replica_le], dtype=np.int64)
    comm_d, comm_c, comm_r_last = (n.single_var() for n in (h.comm_d, h.comm_c, h.comm_r_last))
    with phase("stamp"):
        for c in range(C):
            _stamp_challenge(cs, cfg, pub[3 + PER_CHALLENGE_INPUTS * c : 3 + PER_CHALLENGE_INPUTS * (c + 1)],
                             replica_codes, comm_d, comm_c, comm_r_last, W, c)


def _stamp_challenge(cs, cfg: PorepConfig, pub: np.ndarray, replica_codes: np.ndarray, comm_d: int, comm_c: int,
                     comm_r_last: int, W: PartitionWitness | None, c: int) -> None:
    """Challenge c's pieces, in `challenge`'s order; W: every piece's values (witness modes)."""

    def values(get):
        return None if W is None else get(W)

    def one(g: StampedGadget, inputs, aux, columns=None) -> np.ndarray:
        inputs = np.asarray(inputs, dtype=np.int64)[None, :]
        if columns is None:
            return cs.stamp(g.template, 1, inputs, aux)[0]
        return cs.stamp_columns(g.template, 1, inputs, aux, columns)[0]

    (data_leaf,) = cs.alloc_many(1, values(lambda W: W.data_leaves[c : c + 1])).tolist()
    d = tree_d_pieces()
    cur, bits = data_leaf, []
    for t in range(cfg.tree_d_depth):
        front = one(d.front, [cur], values(lambda W: W.d_front[t][c]))  # bit, sibling, p0, p1
        digest = one(d.hash, front[2:4], values(lambda W: W.d_hash[t][c]), d.hash.outputs)
        (cur,) = one(d.pack, digest, values(lambda W: W.d_pack[t][c]), d.pack.outputs)
        bits.append(front[0])
    one(path_end_template(cfg.tree_d_depth), bits + [pub[0], cur, comm_d], None)
    P = parent_template(cfg)
    iface = np.stack([np.full(DEGREE, comm_c), pub[1 : 1 + DEGREE]], axis=1)
    rows = cs.stamp_columns(P.template, DEGREE, iface, values(lambda W: W.parents[c]), P.outputs)  # [14, L]
    node = one(challenge_template(), [pub[1 + DEGREE]], values(lambda W: W.challenge[c]))
    labels = []
    for layer in range(1, cfg.layers + 1):
        k = BASE_DEGREE if layer == 1 else DEGREE
        drg, exp = layer_rows(list(rows), layer)
        pb = one(label_bits_template(k), list(drg) + list(exp), values(lambda W: W.label_bits[layer - 1][c]))
        sources = np.concatenate([replica_codes, node, pb])
        blocks = values(lambda W: [b[c] for b in W.label_blocks[layer - 1]])
        digest = sha_blocks.stamp_message(cs, label_layout(layer), sources, CURVE, blocks)
        (label,) = one(d.pack, digest, values(lambda W: W.label_pack[layer - 1][c]), d.pack.outputs)
        labels.append(label)
    one(tail_template(cfg), labels + [data_leaf, comm_r_last, comm_c, pub[2 + DEGREE], pub[3 + DEGREE]],
        values(lambda W: W.tail[c]))
