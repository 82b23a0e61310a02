"""rust-fil-proofs v28's StackedDRG PoRep circuit (seal commit, C2), constraint for constraint.

One partition (storage-proofs-porep stacked/circuit/proof.rs `StackedCircuit::synthesize`):

header      replica_id allocated, made public (`inputize`: input * 1 = replica_id) and decomposed
            (`AllocatedNum::to_bits_le`: 255 bits and the unpacking constraint); comm_d and comm_r
            allocated and made public; comm_r_last and comm_c allocated; Poseidon(comm_c,
            comm_r_last) = comm_r.
challenge   (circuit/params.rs `Proof::synthesize`), for each of the partition's challenges:
            the data leaf, its tree D path (binary SHA-256: per level an index bit, the sibling, the
            insertion, both children decomposed (`to_bits_le`) into a 512-bit message, SHA-256, the
            first 254 little-endian digest bits packed into one number), its packed index public;
            the 6 DRG and 8 expander parents: each its column of L labels, their Poseidon hash
            (arity L), the hash's tree C path (Poseidon, the sector shape's arities); the challenge
            as 64 allocated bits packed into a public input; per layer the label: the parents' labels
            of that layer (DRG) and the previous one (expander) decomposed, SHA-256 of replica_id ||
            layer (u32 BE) || node (u64 BE) || 20 zero bytes || 37 parents, packed; the encoding
            key + data (the last label plus the data leaf) and its tree R-last path; the Poseidon
            hash of the L labels and its tree C path.

Public inputs are allocated in bellperson's order (`porep_challenges`) and made first (inputs and
aux are separate index spaces, so this changes neither). The gadget-level circuit (`header`,
`challenge`) runs in any constraint-system mode and is the reference. The stamped partition
(`stamped`) follows it piece by piece: per challenge a fixed sequence of recorded templates (the tree D level
in three pieces, a parent column, the challenge bits, per layer the parents' bits, the SHA-256
blocks (`sha_blocks`) and the packing, the tail), each stamped in bellperson's order; their
witnesses are computed for all challenges at once (bit-sliced tapes for the SHA-256 blocks,
neptune's kernel for Poseidon) before stamping, and the tests check that the stamped witness is
the gadget-level one.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuzk.gadgets.boolean import FALSE, Boolean
from cuzk.gadgets.insertion import enforce_equal, insert, pack_bits_into_input
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_gadget import poseidon_hash
from cuzk.gadgets.sha256.filecoin import flip_byte_bits, num_to_bits_le
from cuzk.gadgets.sha256.gadget import sha256
from cuzk.r1cs import LC, ONE

from cuzk.circuits.filecoin.common.fr_bytes import fr
from cuzk.circuits.filecoin.common.tree_d import pack_digest, sha_leaves, tree_d_level
from .challenges import PER_CHALLENGE_INPUTS
from .config import BASE_DEGREE, DEGREE, TOTAL_PARENTS, PorepConfig


# ---- values of the gadget-level circuit (canonical ints) ---------------------------------------


@dataclass
class HeaderValues:
    replica_id: int
    comm_d: int
    comm_r: int
    comm_r_last: int
    comm_c: int


@dataclass
class ChallengeValues:
    challenge: int
    parents: list[int]  # [14]
    data_leaf: int
    data_siblings: list[int]  # [Dd]
    parent_columns: list[list[int]]  # [14][L]
    parent_siblings: list[list[list[int]]]  # [14][level][a - 1]
    replica_siblings: list[list[int]]  # [level][a - 1]
    column_siblings: list[list[int]]  # [level][a - 1]


@dataclass
class Header:
    replica_le: list[Boolean]  # the 255 bits of to_bits_le
    replica_bits: list[Boolean]  # reverse_bit_numbering: the 32 LE bytes as SHA-256 message bits
    comm_d: Num
    comm_r_last: Num
    comm_c: Num


def _ns(cs, name):
    return cs.namespace(name)


def _v(values, attr):
    return None if values is None else getattr(values, attr)


# ---- the gadget-level circuit ------------------------------------------------------------------


def header(cs, pub: list[int], v: HeaderValues | None = None) -> Header:
    """The once-per-partition part; pub: the input variables of replica_id, comm_d, comm_r."""
    with _ns(cs, "replica_id"):
        rid = Num.alloc(cs, _v(v, "replica_id"))
    with _ns(cs, "replica_id_input"):
        cs.enforce(LC.of(pub[0]), ONE, rid.lc(), name="enforce input is correct")
    with _ns(cs, "replica_id_bits"):
        le = num_to_bits_le(cs, rid)
    with _ns(cs, "comm_d"):
        comm_d = Num.alloc(cs, _v(v, "comm_d"))
    with _ns(cs, "comm_d_input"):
        cs.enforce(LC.of(pub[1]), ONE, comm_d.lc(), name="enforce input is correct")
    with _ns(cs, "comm_r"):
        comm_r = Num.alloc(cs, _v(v, "comm_r"))
    with _ns(cs, "comm_r_input"):
        cs.enforce(LC.of(pub[2]), ONE, comm_r.lc(), name="enforce input is correct")
    with _ns(cs, "comm_r_last"):
        comm_r_last = Num.alloc(cs, _v(v, "comm_r_last"))
    with _ns(cs, "comm_c"):
        comm_c = Num.alloc(cs, _v(v, "comm_c"))
    with _ns(cs, "H_comm_c_comm_r_last"):
        h = poseidon_hash(cs, [comm_c, comm_r_last])
    enforce_equal(cs, comm_r, h, name="enforce comm_r = H(comm_c || comm_r_last)")
    return Header(le, flip_byte_bits(le), comm_d, comm_r_last, comm_c)


def challenge(cs, cfg: PorepConfig, h: Header, pub: list[int], v: ChallengeValues | None = None) -> None:
    """`Proof::synthesize` for one challenge; pub: its 18 public input variables."""
    with _ns(cs, "data_leaf"):
        data_leaf = Num.alloc(cs, _v(v, "data_leaf"))
    with _ns(cs, "comm_d_inclusion"):
        tree_d_inclusion(cs, cfg, data_leaf, h.comm_d, pub[0], v)
    rows = []
    for i in range(DEGREE):
        name = f"drg_parent_{i}" if i < BASE_DEGREE else f"exp_parent_{i - BASE_DEGREE}"
        pv = None if v is None else (v.parent_columns[i], v.parents[i], v.parent_siblings[i])
        rows.append(column_parent(cs, cfg, h.comm_c, pub[1 + i], pv, name))
    node = challenge_bits(cs, pub[1 + DEGREE], _v(v, "challenge"))
    labels = []
    for layer in range(1, cfg.layers + 1):
        with _ns(cs, f"labeling_{layer}"):
            parents = label_parent_bits(cs, *layer_rows(rows, layer))
            with _ns(cs, "create_label"):
                msg = label_message(h.replica_bits, layer, node, parents)
                with _ns(cs, "hash"):
                    digest = sha256(cs, msg)
                with _ns(cs, "result_num"):
                    labels.append(pack_digest(cs, digest))
    tail(cs, cfg, labels, data_leaf, h.comm_r_last, h.comm_c, pub[2 + DEGREE], pub[3 + DEGREE],
         None if v is None else (v.challenge, v.replica_siblings, v.column_siblings))


def tree_d_inclusion(cs, cfg: PorepConfig, leaf: Num, root: Num, pub: int, v: ChallengeValues | None) -> None:
    """PoRCircuit over tree D (binary, Sha256Hasher), leaf and root already allocated."""
    cur, bits = leaf, []
    with _ns(cs, "base"):
        for i in range(cfg.tree_d_depth):
            with _ns(cs, f"merkle tree hash {i}"):
                bit, preimage = tree_d_level(cs, cur, None if v is None else (v.challenge >> i) & 1,
                                             None if v is None else v.data_siblings[i])
                with _ns(cs, "computation of commitment hash"):
                    digest = sha_leaves(cs, preimage)
                    with _ns(cs, "pack_le"):
                        cur = pack_digest(cs, digest)
            bits.append(bit)
    path_end(cs, bits, pub, cur, root)


def path_end(cs, bits: list[Boolean], pub: int, cur: Num, root: Num) -> None:
    """The end of a PoRCircuit with a private root: the path bits packed into the public input,
    the computed root equal to the root."""
    with _ns(cs, "path"):
        pack_bits_into_input(cs, bits, pub, name="packing constraint 0")
    enforce_equal(cs, cur, root, name="enforce root is correct")


def _digits(index: int, arities) -> list[int]:
    out = []
    for a in arities:
        out.append(index % a)
        index //= a
    return out


def poseidon_inclusion(cs, cfg: PorepConfig, leaf: Num, root: Num, pub: int, index: int | None,
                       siblings: list[list[int]] | None) -> None:
    """PoRCircuit over a Poseidon tree of the sector shape (tree C, tree R-last), private root."""
    groups = [("base", cfg.base_arity, cfg.base_levels), ("sub", cfg.sub_arity, 1 if cfg.sub_arity else 0),
              ("top", cfg.top_arity, 1 if cfg.top_arity else 0)]
    digits = None if index is None else _digits(index, cfg.arities)
    cur, bits, level = leaf, [], 0
    for gname, arity, count in groups:
        with _ns(cs, gname):
            for i in range(count):
                nb = arity.bit_length() - 1
                with _ns(cs, f"merkle tree hash {i}"):
                    lb = []
                    for k in range(nb):
                        with _ns(cs, f"index bit {k}"):
                            lb.append(Boolean.alloc(cs, None if digits is None else (digits[level] >> k) & 1))
                    sibs = []
                    for k in range(arity - 1):
                        with _ns(cs, f"path element {k}"):
                            sibs.append(Num.alloc(cs, None if siblings is None else siblings[level][k]))
                    preimage = insert(cs, cur, lb, sibs)
                    with _ns(cs, "computation of commitment hash"):
                        cur = poseidon_hash(cs, preimage)
                bits += lb
                level += 1
    path_end(cs, bits, pub, cur, root)


def column_parent(cs, cfg: PorepConfig, comm_c: Num, pub: int, v, name: str) -> list[Num]:
    """A parent's column (ColumnProof::alloc), its hash (hash_single_column) and tree C path.
    v: (column [L], parent index, siblings [level][a - 1]) or None."""
    with _ns(cs, f"{name}_num"), _ns(cs, "column"):
        rows = []
        for r in range(cfg.layers):
            with _ns(cs, f"column_num_row_{r}"):
                rows.append(Num.alloc(cs, None if v is None else v[0][r]))
    with _ns(cs, f"{name}_constraint"):
        h = poseidon_hash(cs, rows)
    with _ns(cs, f"{name}_inclusion"):
        poseidon_inclusion(cs, cfg, h, comm_c, pub, None if v is None else v[1], None if v is None else v[2])
    return rows


def challenge_bits(cs, pub: int, value: int | None) -> list[Boolean]:
    """UInt64::alloc (64 bits, least significant first) and pack_into_input."""
    bits = []
    with _ns(cs, "challenge"):
        for i in range(64):
            with _ns(cs, f"allocated bit {i}"):
                bits.append(Boolean.alloc(cs, None if value is None else (value >> i) & 1))
    with _ns(cs, "challenge input"):
        pack_bits_into_input(cs, bits, pub, name="packing constraint 0")
    return bits


def layer_rows(rows: list[list[Num]], layer: int) -> tuple[list, list]:
    """The labels a layer hashes: the DRG parents' of this layer, from layer 2 on the expander
    parents' of the previous layer (AllocatedColumn::get_value, 1-indexed)."""
    drg = [r[layer - 1] for r in rows[:BASE_DEGREE]]
    exp = [r[layer - 2] for r in rows[BASE_DEGREE:]] if layer > 1 else []
    return drg, exp


def label_parent_bits(cs, drg: list[Num], exp: list[Num]) -> list[list[Boolean]]:
    """Each parent label's to_bits_le, its bytes as SHA-256 message bits (reverse_bit_numbering)."""
    parents = []
    for kind, nums in (("drg", drg), ("exp", exp)):
        for num in nums:
            with _ns(cs, f"{kind}_parent_{len(parents)}_bits"):
                parents.append(flip_byte_bits(num_to_bits_le(cs, num)))
    return parents


def expand_parents(parents: list) -> list:
    """The 37 hashed parents (Proof::synthesize's duplication)."""
    if len(parents) == BASE_DEGREE:
        out = parents * 6 + [parents[0]]
    elif len(parents) == DEGREE:
        out = parents * 2 + parents[:9]
    else:
        raise ValueError(f"a layer hashes {BASE_DEGREE} or {DEGREE} parents, not {len(parents)}")
    assert len(out) == TOTAL_PARENTS
    return out


def label_message(replica_bits: list[Boolean], layer: int, node: list[Boolean], parents: list) -> list[Boolean]:
    """create_label_circuit's message: replica_id (32 bytes) || layer (u32 BE) || node (u64 BE)
    padded to 64 bytes, then the 37 parents, 32 bytes each."""
    msg = list(replica_bits) + [Boolean.constant((layer >> (31 - i)) & 1) for i in range(32)]
    msg += list(node)[::-1]
    msg += [FALSE] * (512 - len(msg))
    for p in expand_parents(parents):
        msg += list(p)
    assert len(msg) == (2 + TOTAL_PARENTS) * 256
    return msg


def tail(cs, cfg: PorepConfig, labels: list[Num], data_leaf: Num, comm_r_last: Num, comm_c: Num,
         pub_r: int, pub_c: int, v) -> None:
    """Encoding, tree R-last path of the replica node, the column hash and its tree C path.
    v: (challenge, replica siblings, column siblings) or None."""
    key = labels[-1]
    with _ns(cs, "encode_node"):
        with _ns(cs, "add_num"):
            enc = Num.alloc(cs, None if key.value is None or data_leaf.value is None else key.value + data_leaf.value)
        cs.enforce((key + data_leaf).lc(), ONE, enc.lc(), name="sum constraint")
    with _ns(cs, "comm_r_last_data_inclusion"):
        poseidon_inclusion(cs, cfg, enc, comm_r_last, pub_r, None if v is None else v[0], None if v is None else v[1])
    with _ns(cs, "c_x_column_hash"):
        ch = poseidon_hash(cs, labels)
    with _ns(cs, "c_x_inclusion"):
        poseidon_inclusion(cs, cfg, ch, comm_c, pub_c, None if v is None else v[0], None if v is None else v[2])


def synthesize_gadgets(cs, cfg: PorepConfig, x: "PorepInputs | None" = None, challenges=None,
                       public: list[int] | None = None) -> None:
    """The partition gadget by gadget (the reference; TestCS names a failing constraint).
    challenges: which of the partition's challenges to synthesize (default all; a subset is not
    the partition's R1CS, but checks those challenges faster); public: the public inputs as a
    verifier derives them (default: the ones `x` implies)."""
    C = cfg.challenges
    n = 3 + C * PER_CHALLENGE_INPUTS
    values = None
    if x is not None:
        values = x.public_values() if public is None else fr().from_ints([int(v) for v in public])
        if len(values) != n:
            raise ValueError(f"{cfg.name}: {len(values)} public inputs, the circuit has {n}")
    pub = cs.alloc_input_many(n, values).tolist()
    h = header(cs, pub[:3], None if x is None else x.header_values())
    for c in range(C) if challenges is None else challenges:
        with _ns(cs, f"challenge_{c}"):
            challenge(cs, cfg, h, pub[3 + PER_CHALLENGE_INPUTS * c : 3 + PER_CHALLENGE_INPUTS * (c + 1)],
                      None if x is None else x.challenge_values(c))
