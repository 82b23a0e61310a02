"""rust-fil-proofs v28's SnapDeals circuit (storage-proofs-update `EmptySectorUpdateCircuit`), constraint
for constraint.

One partition (circuit.rs `synthesize`, gadgets.rs), in bellperson's allocation order:

header      k_and_h_select allocated and made public (inputize), decomposed into
            partition_bit_len + 6 AllocatedBits (LE) with (sum 2^i b_i) * 1 = k_and_h_select; the
            partition bits packed (multipack::pack_bits) into `partition`; comm_r_old, comm_d_new,
            comm_r_new allocated and made public; phi = Poseidon_genrand(comm_d_new, comm_r_old);
            comm_c, root_r_old, root_r_new, the partition's apex leaves and its partition path
            (tree D siblings above the apex root) allocated; Poseidon(comm_c, root_r_old) = comm_r_old
            and Poseidon(comm_c, root_r_new) = comm_r_new (equality as calc * 1 = public);
            apex_por: the apex tree over the apex leaves (sha254 hash2 per pair, row by row), then
            its root up the partition path (insert + sha254 per level) to comm_d_new;
            gen_challenge_bits: per digest j, digest_index = k * digests_per_partition + j
            (allocated, (dpp * partition + j) * 1 = digest_index), digest =
            Poseidon_genrand(comm_r_new, digest_index), its 255 bits (LE, (sum) * 1 = digest).
challenge   c_bits = the challenge's random bits then the partition bits; get_challenge_high_bits
            (per h in hs: the h high bits packed, times its h_select bit; their sum);
            rho = Poseidon_genrand(phi, c_high); leaf_r_old, leaf_d_new allocated;
            label_r_new = leaf_r_old + leaf_d_new * rho (mul, then sum); tree R old siblings
            allocated, its path (insert on c_bits + Poseidon per level) to root_r_old; the same for
            tree R new from label_r_new to root_r_new; the apex leaf selected by the challenge's
            apex bits (insertion::select, picks); tree D siblings below the apex leaf allocated and
            the path (insert + sha254 per level) from leaf_d_new to the selected apex leaf.

Poseidon_genrand is neptune's arity-2 Poseidon with domain tag 2^40 (snap_config); the Merkle and
comm_r hashes are Filecoin's usual ones. Public inputs are allocated first (inputs and aux are
separate index spaces, so this changes neither). The gadget-level circuit (`header`, `challenge`)
runs in any constraint-system mode and is the reference; `snap_stamped.synthesize` builds the same
partition from recorded pieces with vectorized witnesses (what the engine uses).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.boolean import Boolean, pack_lc
from cuzk.gadgets.insertion import enforce_equal, insert, pick
from cuzk.gadgets.insertion import num_aux as insert_aux
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_constants import NeptuneConstants, neptune_constants
from cuzk.gadgets.poseidon.neptune_gadget import num_constraints as hash_size
from cuzk.gadgets.poseidon.neptune_gadget import poseidon_hash
from cuzk.gadgets.poseidon.neptune_native import check_inputs, run_kernel_with
from cuzk.gadgets.sha256.filecoin import pack_bits
from cuzk.r1cs import LC, ONE

from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, ints, to_mont
from cuzk.circuits.filecoin.common.tree_d import pack_digest, sha_leaves, tree_d_pieces
from .config import GEN_RANDOMNESS_TAG, SnapConfig

NUM_BITS = 255  # Fr::NUM_BITS
H_BITS = 6  # len(hs)


# ---- Poseidon with the "gen randomness" domain tag ----------------------------------------------


@functools.cache
def genrand_constants() -> NeptuneConstants:
    """POSEIDON_CONSTANTS_GEN_RANDOMNESS: Filecoin's arity-2 constants, domain tag 2^40."""
    return dataclasses.replace(neptune_constants(2), domain_tag=GEN_RANDOMNESS_TAG)


def poseidon_genrand(cs, a, b) -> Num:
    """Poseidon_genrand(a, b) in a circuit (311 constraints, as arity-2 Poseidon)."""
    return poseidon_hash(cs, [a, b], constants=genrand_constants())


def genrand_hash(inputs: np.ndarray, aux: np.ndarray | None = None) -> np.ndarray:
    """Poseidon_genrand of N pairs: Montgomery uint64[N, 2, 4] -> uint64[N, 4]; fills aux
    uint64[N, 311, 4] (the gadget's values in allocation order) when given."""
    return run_kernel_with(check_inputs(inputs), genrand_constants(), aux)


def genrand_ints(a: int, b: int) -> int:
    """Poseidon_genrand(a, b) on canonical ints."""
    return ints(genrand_hash(fr().from_ints([int(a), int(b)]).reshape(1, 2, 4)))[0]


# ---- values of the gadget-level circuit (canonical ints) ---------------------------------------


@dataclass
class HeaderValues:
    k_and_h_select: int
    comm_r_old: int
    comm_d_new: int
    comm_r_new: int
    comm_c: int
    root_r_old: int
    root_r_new: int
    apex_leaves: list[int]  # [A]
    partition_path: list[int]  # [partition_bit_len]


@dataclass
class ChallengeValues:
    leaf_r_old: int
    leaf_d_new: int
    path_r_old: list[list[int]]  # [level][a - 1]
    path_r_new: list[list[int]]
    path_d: list[int]  # [path_to_apex_len], tree D siblings from the leaf up to the apex leaf


@dataclass
class Header:
    partition_bits: list[Boolean]
    h_select_bits: list[Boolean]
    partition: Num
    comm_r_new: Num
    phi: Num
    root_r_old: Num
    root_r_new: Num
    apex_leaves: list[Num]
    challenge_bits: list[list[Boolean]]  # per challenge its random bits (LE)


def _ns(cs, name):
    return cs.namespace(name)


def _v(values, attr):
    return None if values is None else getattr(values, attr)


def _at(values, i):
    return None if values is None else values[i]


# ---- the gadget-level circuit ------------------------------------------------------------------


def alloc_public(cs, cs_pub: int, value: int | None, name: str) -> Num:
    """AllocatedNum::alloc + inputize: the aux variable and input * 1 = aux."""
    with _ns(cs, name):
        n = Num.alloc(cs, value)
    with _ns(cs, f"{name}_input"):
        cs.enforce(LC.of(cs_pub), ONE, n.lc(), name="enforce input is correct")
    return n


def num_to_bits_decomp(cs, num: Num, nbits: int = NUM_BITS) -> list[Boolean]:
    """nbits AllocatedBits (LE) of num and (sum 2^i b_i) * 1 = num (update gadgets.rs
    `allocated_num_to_allocated_bits`; nbits < 255 only for k_and_h_select)."""
    v = num.value if cs.needs_values else None
    bits = []
    for i in range(nbits):
        with _ns(cs, f"bit {i}"):
            bits.append(Boolean.alloc(cs, None if v is None else (v >> i) & 1))
    cs.enforce(pack_lc(bits), ONE, num.lc(), name="binary decomp")
    return bits


def tree_d_hash(cs, left: Num, right: Num) -> Num:
    """Sha256Function::hash2_circuit / hash_multi_leaf_circuit of two leaves."""
    digest = sha_leaves(cs, [left, right])
    with _ns(cs, "pack_le"):
        return pack_digest(cs, digest)


def tree_d_path(cs, bits: list[Boolean], leaf: Num, siblings: list[Num], root: Num) -> None:
    """por_no_challenge_input over tree D (binary sha254) from leaf to root."""
    cur = leaf
    for height, (bit, sib) in enumerate(zip(bits, siblings)):
        with _ns(cs, f"merkle proof insert (height={height})"):
            pre = insert(cs, cur, [bit], [sib])
        with _ns(cs, f"merkle proof hash (height={height})"):
            cur = tree_d_hash(cs, pre[0], pre[1])
    enforce_equal(cs, cur, root, name="calculated root == provided root")


def tree_r_path(cs, cfg: SnapConfig, bits: list[Boolean], leaf: Num, siblings: list[list[Num]], root: Num) -> None:
    """por_no_challenge_input over a tree R (Poseidon, the sector shape) from leaf to root."""
    cur, used = leaf, 0
    for height, (a, sibs) in enumerate(zip(cfg.arities, siblings)):
        nb = a.bit_length() - 1
        with _ns(cs, f"merkle proof insert (height={height})"):
            pre = insert(cs, cur, bits[used : used + nb], sibs)
        with _ns(cs, f"merkle proof hash (height={height})"):
            cur = poseidon_hash(cs, pre)
        used += nb
    if used != len(bits):
        raise AssertionError("challenge bit-length and tree arity do not agree")
    enforce_equal(cs, cur, root, name="calculated root == provided root")


def header(cs, cfg: SnapConfig, pub: list[int], v: HeaderValues | None = None, apex=None) -> Header:
    """The once-per-partition part; pub: the 4 public input variables; apex: what builds the apex
    tree and its path to comm_d_new (default `apex_por`, gadget by gadget; the stamped partition
    passes its own, with `apex_por`'s arguments)."""
    P, A = cfg.partition_bit_len, cfg.apex_leaves
    kh = alloc_public(cs, pub[0], _v(v, "k_and_h_select"), "k_and_h_select")
    bits = num_to_bits_decomp(cs, kh, P + H_BITS)
    partition_bits, h_select_bits = bits[:P], bits[P:]
    with _ns(cs, "pack partition bits"):
        partition = pack_bits(cs, partition_bits)
    comm_r_old = alloc_public(cs, pub[1], _v(v, "comm_r_old"), "comm_r_old")
    comm_d_new = alloc_public(cs, pub[2], _v(v, "comm_d_new"), "comm_d_new")
    comm_r_new = alloc_public(cs, pub[3], _v(v, "comm_r_new"), "comm_r_new")
    with _ns(cs, "phi"):
        phi = poseidon_genrand(cs, comm_d_new, comm_r_old)
    with _ns(cs, "comm_c"):
        comm_c = Num.alloc(cs, _v(v, "comm_c"))
    with _ns(cs, "root_r_old"):
        root_r_old = Num.alloc(cs, _v(v, "root_r_old"))
    with _ns(cs, "root_r_new"):
        root_r_new = Num.alloc(cs, _v(v, "root_r_new"))
    apex_nums = []
    for i in range(A):
        with _ns(cs, f"apex_leaf_{i}"):
            apex_nums.append(Num.alloc(cs, _at(_v(v, "apex_leaves"), i)))
    ppath = []
    for i in range(P):
        with _ns(cs, f"partition_path_sibling_{i}"):
            ppath.append(Num.alloc(cs, _at(_v(v, "partition_path"), i)))
    for name, root, public in (("comm_r_old", root_r_old, comm_r_old), ("comm_r_new", root_r_new, comm_r_new)):
        with _ns(cs, f"{name}_calc"):
            calc = poseidon_hash(cs, [comm_c, root])
        enforce_equal(cs, calc, public, name=f"enforce {name}_calc == {name}")
    with _ns(cs, "apex_gadget"):
        (apex_por if apex is None else apex)(cs, apex_nums, partition_bits, ppath, comm_d_new)
    with _ns(cs, "gen_challenge_bits"):
        cbits = gen_challenge_bits(cs, cfg, comm_r_new, partition)
    return Header(partition_bits, h_select_bits, partition, comm_r_new, phi, root_r_old, root_r_new, apex_nums, cbits)


def apex_por(cs, apex: list[Num], partition_bits: list[Boolean], ppath: list[Num], comm_d: Num) -> None:
    row, r = list(apex), 0
    while len(row) > 1:
        nxt = []
        for i in range(len(row) // 2):
            with _ns(cs, f"apex_tree generation hash (tree_row={r}, siblings={i})"):
                nxt.append(tree_d_hash(cs, row[2 * i], row[2 * i + 1]))
        row, r = nxt, r + 1
    with _ns(cs, "partition-tree por"):
        tree_d_path(cs, partition_bits, row[0], ppath, comm_d)


def gen_challenge_bits(cs, cfg: SnapConfig, comm_r_new: Num, partition: Num) -> list[list[Boolean]]:
    dpp, per, nb = cfg.digests_per_partition, cfg.challenges_per_digest, cfg.rand_bits
    out: list[list[Boolean]] = []
    for j in range(dpp):
        value = None
        if cs.needs_values:
            value = (partition.value * dpp + j) % cs.modulus
        with _ns(cs, f"digest_index_{j}"):
            idx = Num.alloc(cs, value)
        cs.enforce(LC.from_terms(((dpp, partition.single_var()), (j, ONE))), ONE, idx.lc(),
                   name=f"digest_index_{j} == k * digests_per_partition + {j}")
        with _ns(cs, f"digest_{j}"):
            digest = poseidon_genrand(cs, comm_r_new, idx)
        with _ns(cs, f"digest_{j}_bits"):
            bits = num_to_bits_decomp(cs, digest)
        take = cfg.challenges - len(out) if j == dpp - 1 else per
        for i in range(take):
            out.append(bits[i * nb : (i + 1) * nb])
    return out


def challenge_high_bits(cs, c_bits: list[Boolean], h_select_bits: list[Boolean], hs) -> Num:
    """get_challenge_high_bits: sum over h in hs of pack(h high bits) * h_select bit."""
    n = len(c_bits)
    parts = []
    for k, (h, sel) in enumerate(zip(hs, h_select_bits)):
        with _ns(cs, f"c_high (h={h}, k={k})"):
            high = pack_bits(cs, c_bits[n - h :])
        value = None
        if cs.needs_values:
            value = high.value if sel.value else 0
        with _ns(cs, f"c_high_or_zero (h={h}, k={k})"):
            part = Num.alloc(cs, value)
        cs.enforce(high.lc(), sel.lc(), part.lc(), name=f"c_high_or_zero == c_high * h_select_bit (h={h}, k={k})")
        parts.append(part)
    with _ns(cs, "c_high_selected"):
        sel = Num.alloc(cs, sum(p.value for p in parts) % cs.modulus if cs.needs_values else None)
    lc = LC()
    for p in parts:
        lc = lc + p.lc()
    cs.enforce(lc, ONE, sel.lc(), name="c_high_selected == dot(c_highs, h_select_bits)")
    return sel


def select(cs, leaves: list[Num], bits: list[Boolean]) -> Num:
    """insertion::select: the leaf at `bits` (LE), picking most significant bit first."""
    state, half = list(leaves), len(leaves) // 2
    if 1 << len(bits) != len(leaves):
        raise ValueError(f"{len(bits)} bits select among {len(leaves)}")
    for i, bit in enumerate(reversed(bits)):
        state = [pick(cs, bit, state[half + j], state[j], name=f"pick {i}, {j}") for j in range(half)]
        half //= 2
    return state[0]


def _alloc_path(cs, name: str, c: int, siblings, shape) -> list[list[Num]]:
    out = []
    for row, width in enumerate(shape):
        level = []
        for s in range(width):
            with _ns(cs, f"{name} sibling (c_index={c}, tree_row={row}, sibling_index={s})"):
                level.append(Num.alloc(cs, None if siblings is None else siblings[row][s]))
        out.append(level)
    return out


def challenge(cs, cfg: SnapConfig, h: Header, c: int, v: ChallengeValues | None = None) -> None:
    """The loop body of `synthesize` for challenge c: `challenge_front`, then tree D's path from
    the new data leaf up to its apex leaf."""
    c_bits, leaf_d_new, sibs, apex_leaf = challenge_front(cs, cfg, h, c, v)
    with _ns(cs, f"por to_apex_leaf (c_index={c})"):
        tree_d_path(cs, c_bits[: cfg.path_to_apex_len], leaf_d_new, sibs, apex_leaf)


def challenge_front(cs, cfg: SnapConfig, h: Header, c: int, v: ChallengeValues | None = None):
    """Challenge c up to its tree D path: rho, the encoding, both tree R paths, the apex leaf
    selected, the tree D siblings allocated; (c_bits, leaf_d_new, siblings, apex leaf)."""
    c_bits = h.challenge_bits[c] + h.partition_bits
    with _ns(cs, f"get_challenge_high_bits (c_index={c})"):
        c_high = challenge_high_bits(cs, c_bits, h.h_select_bits, cfg.hs)
    with _ns(cs, f"rho (c_index={c})"):
        rho = poseidon_genrand(cs, h.phi, c_high)
    with _ns(cs, f"leaf_r_old (c_index={c})"):
        leaf_r_old = Num.alloc(cs, _v(v, "leaf_r_old"))
    with _ns(cs, f"leaf_d_new (c_index={c})"):
        leaf_d_new = Num.alloc(cs, _v(v, "leaf_d_new"))
    with _ns(cs, f"leaf_r_new (c_index={c})"):
        with _ns(cs, "label_d_new * rho"):
            prod = leaf_d_new.mul(cs, rho)
        with _ns(cs, "label_r_new"):
            leaf_r_new = Num.alloc(cs, None if not cs.needs_values else (leaf_r_old.value + prod.value) % cs.modulus)
        cs.enforce((leaf_r_old + prod).lc(), ONE, leaf_r_new.lc(), name="label_r_new == label_r_old + label_d_new * rho")
    shape = [a - 1 for a in cfg.arities]
    path = _alloc_path(cs, "path_r_old", c, _v(v, "path_r_old"), shape)
    with _ns(cs, f"por tree_r_old (c_index={c})"):
        tree_r_path(cs, cfg, c_bits, leaf_r_old, path, h.root_r_old)
    path = _alloc_path(cs, "path_r_new", c, _v(v, "path_r_new"), shape)
    with _ns(cs, f"por tree_r_new (c_index={c})"):
        tree_r_path(cs, cfg, c_bits, leaf_r_new, path, h.root_r_new)
    L = cfg.path_to_apex_len
    with _ns(cs, f"select_apex_leaf (c_index={c})"):
        apex_leaf = select(cs, h.apex_leaves, c_bits[L : L + cfg.apex_leaf_bit_len])
    sibs = []
    for row in range(L):
        with _ns(cs, f"path_to_apex_leaf sibling (c_index={c}, tree_row={row})"):
            sibs.append(Num.alloc(cs, _at(_v(v, "path_d"), row)))
    return c_bits, leaf_d_new, sibs, apex_leaf


def synthesize_gadgets(cs, cfg: SnapConfig, x=None, challenges=None, public: list[int] | None = None) -> None:
    """The partition gadget by gadget (the reference; TestCS names a failing constraint).
    x: `SnapInputs` (witness modes); challenges: which challenges to synthesize (default all; a
    subset is not the partition's R1CS); public: the 4 public inputs as a verifier derives them
    (default: the ones `x` implies)."""
    values = None
    if x is not None:
        vals = x.public_ints() if public is None else [int(p) for p in public]
        if len(vals) != cfg.num_public_inputs:
            raise ValueError(f"{cfg.name}: {len(vals)} public inputs, the circuit has {cfg.num_public_inputs}")
        values = fr().from_ints(vals)
    pub = cs.alloc_input_many(cfg.num_public_inputs, values).tolist()
    h = header(cs, cfg, pub, None if x is None else x.header_values())
    for c in range(cfg.challenges) if challenges is None else challenges:
        challenge(cs, cfg, h, c, None if x is None else x.challenge_values(c))


# ---- counts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SnapCounts:
    constraints: int  # per partition, as bellperson counts them
    inputs: int  # public inputs with ONE
    aux: int


def _sha_pair() -> tuple[int, int]:
    """(constraints, aux) of a tree D hash of two allocated leaves (to_bits_le x2, SHA-256, pack)."""
    d = tree_d_pieces()
    return d.hash.num_constraints + d.pack.num_constraints, d.hash.num_aux + d.pack.num_aux


def counts(cfg: SnapConfig) -> SnapCounts:
    """Sizes of one partition from the gadgets' sizes (Poseidon by neptune's formula, the tree D hash
    from its recorded template); nothing else is built."""
    P2 = hash_size(2)  # also Poseidon_genrand: same permutation shape
    sr, sa = _sha_pair()
    ins2 = insert_aux(2)
    Pb, A = cfg.partition_bit_len, cfg.apex_leaves
    B = Pb + H_BITS
    rows = aux = 0
    # header
    rows += 1 + B + 1 + 1 + 3  # k input, bits, decomposition, partition pack, 3 inputs
    aux += 1 + B + 1 + 3
    rows += P2
    aux += P2 + 3 + A + Pb  # phi, comm_c, roots, apex leaves, partition path
    rows += 2 * (P2 + 1)
    aux += 2 * P2
    rows += (A - 1) * sr + Pb * (ins2 + sr) + 1  # apex tree, partition path, root
    aux += (A - 1) * sa + Pb * (ins2 + sa)
    dpp = cfg.digests_per_partition
    rows += dpp * (1 + P2 + NUM_BITS + 1)
    aux += dpp * (1 + P2 + NUM_BITS)
    # per challenge
    por_r_rows = sum(insert_aux(a) + hash_size(a) for a in cfg.arities) + 1
    por_r_aux = sum((a - 1) + insert_aux(a) + hash_size(a) for a in cfg.arities)
    L = cfg.path_to_apex_len
    cr = H_BITS * 2 + 1 + P2 + 2 + 2 * por_r_rows + (A - 1) + L * (ins2 + sr) + 1
    ca = H_BITS * 2 + 1 + P2 + 2 + 2 + 2 * por_r_aux + (A - 1) + L * (1 + ins2 + sa)
    C = cfg.challenges
    return SnapCounts(rows + C * cr, 1 + cfg.num_public_inputs, aux + C * ca)


# ---- challenges and encoding randomness (challenges.rs, vanilla.rs) ------------------------------


def derive_challenges(cfg: SnapConfig, comm_r_new: int, k: int) -> np.ndarray:
    """Challenges::new(sector_nodes, comm_r_new, k): uint64[challenges] leaf indices of partition k."""
    if not 0 <= k < cfg.partitions:
        raise ValueError(f"{cfg.name}: partition {k} is not below {cfg.partitions}")
    dpp, per, nb = cfg.digests_per_partition, cfg.challenges_per_digest, cfg.rand_bits
    first = k * dpp
    pairs = fr().from_ints([v for j in range(dpp) for v in (int(comm_r_new), first + j)]).reshape(dpp, 2, 4)
    bits = np.unpackbits(from_mont(genrand_hash(pairs)), axis=-1, bitorder="little")[:, : per * nb]
    weights = (np.uint64(1) << np.arange(nb, dtype=np.uint64))
    c = (bits.reshape(dpp, per, nb).astype(np.uint64) * weights).sum(axis=-1).reshape(-1)[: cfg.challenges]
    return c | np.uint64(k << nb)


def phi(comm_d_new: int, comm_r_old: int) -> int:
    """phi = Poseidon_genrand(comm_d_new, comm_r_old)."""
    return genrand_ints(comm_d_new, comm_r_old)


def rhos(cfg: SnapConfig, phi_value: int, h: int, nodes: np.ndarray) -> np.ndarray:
    """rho(phi, node >> (log2(nodes) - h)) of each node index, Montgomery uint64[N, 4]."""
    high = np.asarray(nodes, dtype=np.uint64) >> np.uint64(cfg.challenge_bit_len - h)
    uniq, inv = np.unique(high, return_inverse=True)
    pairs = np.empty((len(uniq), 2, 4), dtype=np.uint64)
    pairs[:, 0] = fr().from_ints([int(phi_value)])[0]
    pairs[:, 1] = fr().from_ints([int(u) for u in uniq])
    return genrand_hash(pairs)[inv.reshape(-1)]


# ---- the partition's inputs as arrays ------------------------------------------------------------


@dataclass
class SnapInputs:
    """One partition's witness inputs: Montgomery uint64[..., 4] field elements (C challenges,
    A apex leaves, Pb partition bits, L tree D levels below the apex leaves)."""

    k: int
    h: int
    comm_r_old: np.ndarray  # [4]
    comm_d_new: np.ndarray
    comm_r_new: np.ndarray
    comm_c: np.ndarray
    root_r_old: np.ndarray
    root_r_new: np.ndarray
    apex_leaves: np.ndarray  # [A, 4]
    partition_path: np.ndarray  # [Pb, 4]
    challenges: np.ndarray  # uint64[C] (from the proof's tree R old paths)
    leaf_r_old: np.ndarray  # [C, 4]
    leaf_d_new: np.ndarray  # [C, 4]
    path_r_old: tuple[np.ndarray, ...]  # per level [C, a - 1, 4]
    path_r_new: tuple[np.ndarray, ...]
    path_d: np.ndarray  # [C, L, 4]
    kh: int = 0  # k_and_h_select

    @classmethod
    def from_proof(cls, cfg: SnapConfig, proof, k: int, h: int, comm_r_old, comm_d_new, comm_r_new) -> "SnapInputs":
        """From `snap_proof.SnapPartitionProof` and the partition's public values (32-byte nodes
        or ints); ValueError on a node >= r."""
        def one(v):
            if isinstance(v, (int, np.integer)):
                return fr().from_ints([int(v)])[0]
            return to_mont(np.asarray(v, dtype=np.uint8))

        sib_d = np.stack([s[:, 0] for s in proof.d_new.siblings], axis=1) if proof.d_new.siblings else None
        L = cfg.path_to_apex_len
        top = cfg.challenge_bit_len - cfg.partition_bit_len
        return cls(k, h, one(comm_r_old), one(comm_d_new), one(comm_r_new), one(proof.comm_c),
                   to_mont(proof.r_old.roots[0]), to_mont(proof.r_new.roots[0]), to_mont(proof.apex_leaves),
                   to_mont(sib_d[0, top:]).reshape(-1, 4), proof.challenges, to_mont(proof.r_old.leaves),
                   to_mont(proof.d_new.leaves), tuple(to_mont(s) for s in proof.r_old.siblings),
                   tuple(to_mont(s) for s in proof.r_new.siblings), to_mont(sib_d[:, :L]).reshape(-1, L, 4),
                   cfg.k_and_h_select(k, h))

    def public_ints(self) -> list[int]:
        """generate_public_inputs: [k_and_h_select, comm_r_old, comm_d_new, comm_r_new]."""
        return [self.kh] + ints(np.stack([self.comm_r_old, self.comm_d_new, self.comm_r_new]))

    def header_values(self) -> HeaderValues:
        a, b, c, d, e, f = ints(np.stack([self.comm_r_old, self.comm_d_new, self.comm_r_new, self.comm_c,
                                          self.root_r_old, self.root_r_new]))
        return HeaderValues(self.kh, a, b, c, d, e, f, ints(self.apex_leaves), ints(self.partition_path))

    def challenge_values(self, c: int) -> ChallengeValues:
        lo, ld = ints(np.stack([self.leaf_r_old[c], self.leaf_d_new[c]]))
        return ChallengeValues(lo, ld, [ints(s[c]) for s in self.path_r_old], [ints(s[c]) for s in self.path_r_new],
                               ints(self.path_d[c]))
