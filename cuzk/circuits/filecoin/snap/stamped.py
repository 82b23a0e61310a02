"""The SnapDeals partition stamped from recorded pieces, its witness computed for all challenges at once.

`snap_circuit` states the circuit gadget by gadget; at 32 GiB a partition is 81 million
constraints, most of them the tree D SHA-256 hashes (19 per challenge, 127 in the apex tree), so
the engine builds it from templates instead, in the gadget circuit's allocation order:

header      the gadget-level header (`snap_circuit.header`: k_and_h_select and its bits, the public
            commitments, phi, the comm_r checks, the challenge digests and their bits; a few thousand
            constraints) with its apex tree and partition path stamped (insertion, hash, packing
            per step);
challenge   one `front_template` (rho, the encoding, both tree R paths, the apex leaf selected, the
            tree D siblings allocated), then per tree D level the insertion, the SHA-256 piece and
            the packing (`common.tree_d.tree_d_pieces`), then the equality with the apex leaf.

Witnesses: every piece's aux values come from numpy and the numba kernels (Poseidon,
Poseidon_genrand, the SHA-256 bit tape) for all challenges at once (`partition_witness`). The
challenge bits are the ones the header derives from comm_r_new, so a proof whose paths open
other leaves yields an unsatisfied witness, as the gadget circuit would. The tests check that the
stamped partition's witness and R1CS are the gadget circuit's, value for value and row for row.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.insertion import insert, insert_values
from cuzk.gadgets.num import Num
from cuzk.gadgets.stamped import StampedGadget
from cuzk.r1cs import LC, ONE, RecordingCS
from cuzk.r1cs.witness_phases import phase

from cuzk.circuits.filecoin.common.fr_bytes import CURVE, fr, index_bits, small_to_mont
from . import circuit as sc
from cuzk.circuits.filecoin.common.templates import recorded_gadget
from cuzk.circuits.filecoin.common.tree_d import tree_d_pieces
from .config import SnapConfig
from cuzk.circuits.filecoin.common.stamped_witness import Cursor, TreeDStep, one, sha_pair, tree_d_step


# ---- templates -----------------------------------------------------------------------------------


@functools.cache
def insert2_template() -> StampedGadget:
    """[node, index bit, sibling] -> the arity-2 insertion (aux p0, p1; both outputs)."""
    cs = RecordingCS(CURVE)
    cur, bit, sib = cs.alloc_input_many(3).tolist()
    pre = insert(cs, Num.of_var(cur, None, cs.modulus), [Boolean.of_var(bit)], [Num.of_var(sib, None, cs.modulus)])
    return recorded_gadget(cs, [p.single_var() for p in pre])


def front_inputs(cfg: SnapConfig) -> int:
    """The front template's interface: random bits, partition bits, h_select bits, phi, root_r_old,
    root_r_new, the apex leaves."""
    return cfg.rand_bits + cfg.partition_bit_len + sc.H_BITS + 3 + cfg.apex_leaves


@functools.cache
def front_template(cfg: SnapConfig) -> StampedGadget:
    """`snap_circuit.challenge_front` over its interface (`front_inputs`); outputs leaf_d_new, the
    apex leaf selected and the L tree D siblings."""
    cs = RecordingCS(CURVE)
    p = cs.modulus
    bits = [Boolean.of_var(v) for v in cs.alloc_input_many(cfg.rand_bits + cfg.partition_bit_len + sc.H_BITS)]
    phi, root_old, root_new = (Num.of_var(v, None, p) for v in cs.alloc_input_many(3))
    apex = [Num.of_var(v, None, p) for v in cs.alloc_input_many(cfg.apex_leaves)]
    R, P = cfg.rand_bits, cfg.partition_bit_len
    head = sc.Header(bits[R : R + P], bits[R + P :], None, None, phi, root_old, root_new, apex, [bits[:R]])
    _, leaf_d_new, sibs, apex_leaf = sc.challenge_front(cs, cfg, head, 0)
    return recorded_gadget(cs, [leaf_d_new.single_var(), apex_leaf.single_var()] + [s.single_var() for s in sibs])


# ---- witness -------------------------------------------------------------------------------------


@dataclass
class PartitionWitness:
    """Every stamped piece's aux values: the apex tree per row (bits uint8[n, aux], packed [n, 1, 4]),
    the partition path's steps, the fronts [C, aux, 4] and the tree D steps per level (C paths)."""

    apex_rows: list
    partition_path: list
    front: np.ndarray
    tree_d: list


def _mont(values) -> np.ndarray:
    return small_to_mont(np.asarray(values, dtype=np.uint64))


def challenge_bits(cfg: SnapConfig, x: sc.SnapInputs) -> np.ndarray:
    """uint8[C, challenge_bit_len]: the bits the header derives (the challenges of comm_r_new)."""
    comm_r_new = fr().to_ints(x.comm_r_new.reshape(1, 4))[0]
    return index_bits(sc.derive_challenges(cfg, comm_r_new, x.k), cfg.challenge_bit_len)


def front_witness(cfg: SnapConfig, x: sc.SnapInputs, c_bits: np.ndarray) -> np.ndarray:
    """[C, aux, 4]: `challenge_front`'s values in its allocation order, for every challenge."""
    f = fr()
    C, n, A = c_bits.shape[0], cfg.challenge_bit_len, cfg.apex_leaves
    weights = np.uint64(1) << np.arange(n, dtype=np.uint64)
    ch = (c_bits.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    h_select = x.kh >> cfg.partition_bit_len
    w = Cursor(C, front_template(cfg).num_aux)
    high_sum = np.zeros(C, dtype=np.uint64)
    for k, h in enumerate(cfg.hs):
        high = ch >> np.uint64(n - h)
        part = high if (h_select >> k) & 1 else np.zeros_like(high)
        w.put(np.stack([_mont(high), _mont(part)], axis=1))
        high_sum += part
    w.put(_mont(high_sum))
    phi = sc.genrand_hash(np.stack([x.comm_d_new, x.comm_r_old])[None])
    pairs = np.empty((C, 2, 4), dtype=np.uint64)
    pairs[:, 0], pairs[:, 1] = phi[0], _mont(high_sum)
    rho_aux = np.empty((C, sc.hash_size(2), 4), dtype=np.uint64)
    with phase("poseidon"):
        rho = sc.genrand_hash(pairs, rho_aux)
    w.put(rho_aux)
    prod = f.mul(x.leaf_d_new, rho)
    leaf_r_new = f.add(x.leaf_r_old, prod)
    w.put(np.stack([x.leaf_r_old, x.leaf_d_new, prod, leaf_r_new], axis=1))
    for leaf, path in ((x.leaf_r_old, x.path_r_old), (leaf_r_new, x.path_r_new)):
        for sib in path:
            w.put(sib)
        cur, used = leaf, 0
        for a, sib in zip(cfg.arities, path):
            nb = a.bit_length() - 1
            ins, pre = insert_values(cur, c_bits[:, used : used + nb], np.ascontiguousarray(sib), one())
            w.put(ins)
            cur = w.put_hash(pre)
            used += nb
    L = cfg.path_to_apex_len
    state = np.broadcast_to(x.apex_leaves, (C, A, 4))
    for i in reversed(range(cfg.apex_leaf_bit_len)):
        half = state.shape[1] // 2
        bit = c_bits[:, L + i].astype(bool)[:, None, None]
        state = np.where(bit, state[:, half:], state[:, :half])
        w.put(state)
    w.put(x.path_d)
    return w.done()


def partition_witness(cfg: SnapConfig, x: sc.SnapInputs) -> PartitionWitness:
    """The aux values of every stamped piece of the partition (the header's gadget-level parts
    compute their own)."""
    d = tree_d_pieces()
    with phase("apex tree"):
        rows, row = [], x.apex_leaves
        while row.shape[0] > 1:
            bits, pack = sha_pair(d.hash, row[0::2], row[1::2])
            rows.append((bits, pack))
            row = pack[:, 0]
        ppath, cur = [], row
        for t in range(cfg.partition_bit_len):
            step = tree_d_step(d.hash, cur, np.array([(x.k >> t) & 1], np.uint8), x.partition_path[t : t + 1])
            ppath.append(step)
            cur = step.parent
    c_bits = challenge_bits(cfg, x)
    with phase("challenge fronts"):
        front = front_witness(cfg, x, c_bits)
    with phase("tree D"):
        steps, cur = [], x.leaf_d_new
        for t in range(cfg.path_to_apex_len):
            step = tree_d_step(d.hash, cur, c_bits[:, t], x.path_d[:, t])
            steps.append(step)
            cur = step.parent
    return PartitionWitness(rows, ppath, front, steps)


# ---- the stamped partition -------------------------------------------------------------------------


class _Stamper:
    """Stamps one instance of a piece at a time (the partition's order is challenge-major)."""

    def __init__(self, cs):
        self.cs = cs

    def one(self, g: StampedGadget, inputs, aux, columns=None) -> np.ndarray:
        inputs = np.asarray(inputs, dtype=np.int64)[None, :]
        aux = aux if self.cs.needs_values else None
        return self.cs.stamp_columns(g.template, 1, inputs, aux, g.outputs if columns is None else columns)[0]

    def tree_d_hash(self, left: int, right: int, bits, pack) -> int:
        """sha254(left || right) packed: the SHA-256 piece, then the packing; the packed variable."""
        d = tree_d_pieces()
        digest = self.one(d.hash, [left, right], bits)
        return int(self.one(d.pack, digest, pack)[0])

    def tree_d_step(self, cur: int, bit: int, sib: int, step: TreeDStep | None, i: int) -> int:
        """A tree D path step (insertion, hash) of instance i of `step`'s values."""
        pre = self.one(insert2_template(), [cur, bit, sib], None if step is None else step.insert[i])
        return self.tree_d_hash(int(pre[0]), int(pre[1]), None if step is None else step.hash[i],
                                None if step is None else step.pack[i])

    def equal(self, a: int, b: int) -> None:
        """calculated root == provided root (a * 1 = b)."""
        self.cs.enforce(LC.of(int(a)), ONE, LC.of(int(b)))


def _apex(st: _Stamper, cfg: SnapConfig, W: PartitionWitness | None):
    """The stamped `snap_circuit.apex_por`, with its arguments."""

    def apex_por(cs, apex, partition_bits, ppath, comm_d) -> None:
        row, r = [n.single_var() for n in apex], 0
        while len(row) > 1:
            nxt = []
            for i in range(len(row) // 2):
                bits = None if W is None else W.apex_rows[r][0][i]
                pack = None if W is None else W.apex_rows[r][1][i]
                nxt.append(st.tree_d_hash(row[2 * i], row[2 * i + 1], bits, pack))
            row, r = nxt, r + 1
        cur = row[0]
        for t, (bit, sib) in enumerate(zip(partition_bits, ppath)):
            cur = st.tree_d_step(cur, bit.var, sib.single_var(), None if W is None else W.partition_path[t], 0)
        st.equal(cur, comm_d.single_var())

    return apex_por


def synthesize(cs, cfg: SnapConfig, x: sc.SnapInputs | None = None) -> None:
    """One partition into `cs` (recording: x None; witness modes: x the partition's inputs), the
    pieces stamped in the gadget circuit's order."""
    V = cs.needs_values
    if V and x is None:
        raise ValueError("witness mode needs the partition's inputs")
    if V and len(x.challenges) != cfg.challenges:
        raise ValueError(f"{cfg.name}: {len(x.challenges)} challenges, the circuit has {cfg.challenges}")
    W = None
    if V:
        with phase("snap witness"):
            W = partition_witness(cfg, x)
    pub = cs.alloc_input_many(cfg.num_public_inputs, fr().from_ints(x.public_ints()) if V else None).tolist()
    st = _Stamper(cs)
    h = sc.header(cs, cfg, pub, x.header_values() if V else None, apex=_apex(st, cfg, W))
    pbits = [b.var for b in h.partition_bits]
    shared = pbits + [b.var for b in h.h_select_bits] + [n.single_var() for n in (h.phi, h.root_r_old, h.root_r_new)]
    shared += [n.single_var() for n in h.apex_leaves]
    T, L = front_template(cfg), cfg.path_to_apex_len
    with phase("stamp"):
        for c in range(cfg.challenges):
            rand = [b.var for b in h.challenge_bits[c]]
            out = st.one(T, rand + shared, None if W is None else W.front[c])
            cur, apex_leaf, sibs = int(out[0]), int(out[1]), out[2:]
            c_bits = rand + pbits
            for t in range(L):
                cur = st.tree_d_step(cur, c_bits[t], int(sibs[t]), None if W is None else W.tree_d[t], c)
            st.equal(cur, apex_leaf)
