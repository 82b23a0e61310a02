"""The SnapDeals vanilla proofs Curio sends: bincode `PartitionProof<TreeR>`, one per partition.

Curio's ProveUpdate request carries `vanilla_proofs`, one entry per partition, each the bincode
bytes of storage-proofs-update vanilla.rs `PartitionProof<TreeR>` (Curio extern/cuzk prover.rs
wraps each in `PartitionProofBytes`). Layout (serde derives + bincode 1.x defaults: u64 lengths and
usize, u32 enum tags, domains as 32 raw bytes; storage-proofs-core merkle/proof.rs):

    comm_c               [32]                          PoseidonDomain
    apex_leafs           u64 count A, then A x [32]    Vec<Sha256Domain>
    challenge_proofs     u64 count C, then C x ChallengeProof:
      proof_r_old        MerkleProof<Poseidon, 8, sub, top> (the sector's tree R shape)
      proof_d_new        MerkleProof<Sha256, 2>            (always Single)
      proof_r_new        as proof_r_old
    a MerkleProof:       u32 variant: 0 Single, 1 Sub, 2 Top
      Single:            root [32], leaf [32], path
      Sub:               base path, sub path, root [32], leaf [32]
      Top:               base path, sub path, top path, root [32], leaf [32]
      a path:            u64 element count, then per element:
                         u64 sibling count (arity - 1), siblings [32] each, index u64

Every length and tag is fixed by the update proof's shape, so a partition proof has an exact size:
the decoder views the C challenge proofs as one numpy record array and checks all their tags,
lengths and indices at once; only when something is off does it walk the bytes to name the first
wrong field. Every node must encode an Fr element (below r). At decode every Merkle path is
hashed up to its root (Poseidon for tree R, sha254 for tree D) and must reach the root the proof
states; the three proofs of a challenge must open the same leaf and every challenge must share
challenge 0's roots. Errors are FormatError (a ValueError) naming partition, challenge and field.

`check_partition_proof` is the verifier's semantic check (vanilla.rs `EmptySectorUpdate::verify`):
challenges derived from comm_r_new, comm_r_old / comm_r_new from comm_c and the roots, tree D's root
comm_d_new, the encoding label_r_new = label_r_old + label_d_new * rho, and the apex leaves.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from .circuit import derive_challenges, phi, rhos
from .config import SnapConfig, snap_config
from .vanilla_proof import SnapPartitionProof, TreeProofs
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, insert_at, path_roots
from cuzk.circuits.filecoin.common.fr_bytes import fr, to_mont
from cuzk.errors import FormatError
from cuzk.gadgets.sha256.filecoin import sha254_many

from cuzk.codec.bincode import Reader, Writer
from cuzk.circuits.filecoin.common.merkle_records import (
    MerkleShape, fill_records, merkle_shape, record_arrays, record_fields, records_ok, walk_proof,
)

__all__ = ["decode_partition_proof", "decode_partition_proofs", "encode_partition_proof",
           "check_partition_proof", "partition_proof_size"]

TREES = ("proof_r_old", "proof_d_new", "proof_r_new")
_PREFIXES = ("ro_", "dn_", "rn_")  # their fields in a challenge proof's record


@functools.lru_cache(maxsize=None)
def _layout(cfg: SnapConfig) -> tuple[tuple[MerkleShape, MerkleShape, MerkleShape], np.dtype]:
    r = merkle_shape(cfg.merkle_variant, cfg.arities, cfg.base_levels)
    d = merkle_shape(0, (2,) * cfg.challenge_bit_len, cfg.challenge_bit_len)
    fields = []
    for name, t in zip(_PREFIXES, (r, d, r)):
        fields += record_fields(t, name)
    return (r, d, r), np.dtype(fields)


def partition_proof_size(cfg: SnapConfig) -> int:
    """Bytes of one well-formed PartitionProof of this update proof."""
    return 32 + 8 + 32 * cfg.apex_leaves + 8 + cfg.challenges * _layout(cfg)[1].itemsize


def _where(partition) -> str:
    return "partition proof" if partition is None else f"partition {partition}"


def _walk(r: Reader, trees, count: int) -> None:
    """Read `count` challenge proofs field by field; raises at the first wrong one."""
    for c in range(count):
        for tname, t in zip(TREES, trees):
            walk_proof(r, t, f"challenge {c}: {tname}")


def _records_ok(recs: np.ndarray, trees) -> bool:
    ok = np.ones(len(recs), dtype=bool)
    for prefix, t in zip(_PREFIXES, trees):
        ok &= records_ok(recs, t, prefix)
    return bool(ok.all())


def _tree_proofs(recs: np.ndarray, prefix: str, t: MerkleShape) -> TreeProofs:
    return TreeProofs(*record_arrays(recs, t, prefix))


def _non_canonical(nodes: np.ndarray) -> np.ndarray:
    """Indices of rows (flattened over all but the last axis) that are not below r."""
    b = np.ascontiguousarray(nodes, dtype=np.uint8).reshape(-1, 32)
    if not len(b):
        return np.zeros(0, dtype=np.int64)
    ok = fr().is_canonical(b.view("<u8").astype(np.uint64))
    return np.flatnonzero(~ok)


def _hex(node) -> str:
    return "0x" + bytes(np.asarray(node, dtype=np.uint8)).hex()[:16] + "..."


def _check_canonical(p: SnapPartitionProof, where: str) -> None:
    if _non_canonical(p.comm_c).size:
        raise FormatError(f"{where}: comm_c: not a field element (>= r)")
    bad = _non_canonical(p.apex_leaves)
    if bad.size:
        raise FormatError(f"{where}: apex_leafs[{int(bad[0])}]: not a field element (>= r)")
    C = p.num_challenges
    for tname, t in zip(TREES, (p.r_old, p.d_new, p.r_new)):
        first = None
        for field, arr in (("leaf", t.leaves), ("root", t.roots)):
            bad = _non_canonical(arr)
            if bad.size:
                first = min(first or (C, ""), (int(bad[0]), field))
        for lv, s in enumerate(t.siblings):
            bad = _non_canonical(s)
            if bad.size:
                per = s.shape[1]
                cand = (int(bad[0]) // per, f"path level {lv}: sibling {int(bad[0]) % per}")
                first = cand if first is None else min(first, cand)
        if first is not None:
            raise FormatError(f"{where}: challenge {first[0]}: {tname}: {first[1]}: not a field element (>= r)")


def _sha_roots(leaves: np.ndarray, siblings, indices: np.ndarray) -> np.ndarray:
    cur = np.asarray(leaves, dtype=np.uint8)
    for lv, sib in enumerate(siblings):
        kids = insert_at(cur, np.asarray(sib, dtype=np.uint8), indices[:, lv])
        cur = sha254_many(kids.reshape(kids.shape[0], 64))
    return cur


def _check_paths(p: SnapPartitionProof, where: str) -> None:
    """Each path reaches its stated root, the three proofs of a challenge open the same leaf, and
    every challenge states challenge 0's roots."""
    comp = {"proof_r_old": path_roots(p.r_old.leaves, p.r_old.siblings, p.r_old.indices),
            "proof_d_new": _sha_roots(p.d_new.leaves, p.d_new.siblings, p.d_new.indices),
            "proof_r_new": path_roots(p.r_new.leaves, p.r_new.siblings, p.r_new.indices)}
    idx = [t.leaf_index() for t in (p.r_old, p.d_new, p.r_new)]
    problems = []  # (challenge, order, message)
    for k, (tname, t) in enumerate(zip(TREES, (p.r_old, p.d_new, p.r_new))):
        bad = np.flatnonzero(~(comp[tname] == t.roots).all(axis=1))
        if bad.size:
            i = int(bad[0])
            problems.append((i, k, f"challenge {i}: {tname}: leaf and path hash to {_hex(comp[tname][i])}, not to "
                                   f"the proof's root {_hex(t.roots[i])}"))
        bad = np.flatnonzero(~(t.roots == t.roots[:1]).all(axis=1))
        if bad.size:
            i = int(bad[0])
            problems.append((i, 3 + k, f"challenge {i}: {tname}: root {_hex(t.roots[i])} is not challenge 0's "
                                       f"root {_hex(t.roots[0])}"))
    for k, tname in ((1, "proof_d_new"), (2, "proof_r_new")):
        bad = np.flatnonzero(idx[k] != idx[0])
        if bad.size:
            i = int(bad[0])
            problems.append((i, 6 + k, f"challenge {i}: {tname}: path opens leaf {int(idx[k][i])}, proof_r_old "
                                       f"opens leaf {int(idx[0][i])}"))
    if problems:
        raise FormatError(f"{where}: {min(problems)[2]}")


def decode_partition_proof(data, cfg: SnapConfig | int, partition: int | None = None,
                           check_paths: bool = True) -> SnapPartitionProof:
    """One bincode PartitionProof -> SnapPartitionProof (arrays are copies). cfg: a SnapConfig or a
    RegisteredUpdateProof number; partition: the proof's index, for error messages."""
    if not isinstance(cfg, SnapConfig):
        cfg = snap_config(cfg)
    r = Reader(data, _where(partition))
    comm_c = np.frombuffer(r.take(32, "comm_c"), dtype=np.uint8).copy()
    a = r.u64("apex_leafs length")
    r.expect(a, cfg.apex_leaves, "apex_leafs", f"apex leaves for {cfg.name}")
    apex = np.frombuffer(r.take(32 * a, "apex_leafs"), dtype=np.uint8).reshape(a, 32).copy()
    c = r.u64("challenge_proofs length")
    r.expect(c, cfg.challenges, "challenge_proofs", f"challenge proofs for {cfg.name}")
    trees, dtype = _layout(cfg)
    recs = None
    if r.remaining == c * dtype.itemsize:
        recs = np.frombuffer(r.data, dtype=dtype, count=c, offset=r.pos)
        if not _records_ok(recs, trees):
            recs = None
    if recs is None:
        _walk(r, trees, c)  # raises at the first wrong field
        r.end()
        raise FormatError(f"{r.where}: malformed partition proof")  # unreachable: the walk names it
    proof = SnapPartitionProof(comm_c, apex, *(_tree_proofs(recs, prefix, t)
                                                 for prefix, t in zip(_PREFIXES, trees)))
    _check_canonical(proof, r.where)
    if check_paths:
        _check_paths(proof, r.where)
    return proof


def decode_partition_proofs(vanilla_proofs: Sequence, cfg: SnapConfig | int) -> list[SnapPartitionProof]:
    """A request's `vanilla_proofs` (bytes each, one per partition, in partition order)."""
    if not isinstance(cfg, SnapConfig):
        cfg = snap_config(cfg)
    if len(vanilla_proofs) != cfg.partitions:
        raise FormatError(f"vanilla_proofs: expected {cfg.partitions} partition proofs for {cfg.name}, "
                          f"got {len(vanilla_proofs)}")
    return [decode_partition_proof(b, cfg, partition=k) for k, b in enumerate(vanilla_proofs)]


def encode_partition_proof(proof: SnapPartitionProof, cfg: SnapConfig | int) -> bytes:
    """The bincode bytes rust-fil-proofs would write for `proof` (inverse of decode)."""
    if not isinstance(cfg, SnapConfig):
        cfg = snap_config(cfg)
    trees, dtype = _layout(cfg)
    C = proof.num_challenges
    recs = np.zeros(C, dtype=dtype)
    for prefix, t, tp in zip(_PREFIXES, trees, (proof.r_old, proof.d_new, proof.r_new)):
        if tp.arities != t.arities:
            raise FormatError(f"{prefix[:-1]}: path arities {tp.arities}, expected {t.arities}")
        fill_records(recs, t, tp.leaves, tp.roots, tp.siblings, tp.indices, prefix)
    apex = np.asarray(proof.apex_leaves, dtype=np.uint8)
    w = Writer().raw(np.asarray(proof.comm_c, dtype=np.uint8)).u64(apex.shape[0]).raw(apex.tobytes())
    return w.u64(C).raw(recs.tobytes()).getvalue()


def _int(node) -> int:
    return int.from_bytes(bytes(np.asarray(node, dtype=np.uint8)), "little")


def check_partition_proof(proof: SnapPartitionProof, cfg: SnapConfig | int, k: int, h: int, comm_r_old,
                          comm_d_new, comm_r_new) -> None:
    """EmptySectorUpdate::verify for partition k (public values as 32-byte nodes or ints); raises
    FormatError naming the partition, challenge and field; returns None."""
    if not isinstance(cfg, SnapConfig):
        cfg = snap_config(cfg)
    where = _where(k)
    if h not in cfg.hs:
        raise FormatError(f"{where}: h: {h} is not allowed for {cfg.name} (allowed: {cfg.hs})")
    if not 0 <= k < cfg.partitions:
        raise FormatError(f"{where}: k: not below the {cfg.partitions} partitions of {cfg.name}")
    pub = {n: (v if isinstance(v, (int, np.integer)) else _int(v)) for n, v in
           (("comm_r_old", comm_r_old), ("comm_d_new", comm_d_new), ("comm_r_new", comm_r_new))}
    _check_canonical(proof, where)
    _check_paths(proof, where)
    # the commitments first: a wrong public value also moves the challenges (derived from comm_r_new)
    for name, root in (("comm_r_old", proof.r_old.roots[0]), ("comm_r_new", proof.r_new.roots[0])):
        calc = _int(comm_r_of(proof.comm_c, root)[0])
        if calc != pub[name]:
            raise FormatError(f"{where}: comm_c: Poseidon(comm_c, {'root_r_old' if 'old' in name else 'root_r_new'}) "
                              f"is not the public {name}")
    if _int(proof.d_new.roots[0]) != pub["comm_d_new"]:
        raise FormatError(f"{where}: challenge 0: proof_d_new: root is not the public comm_d_new")
    ch = derive_challenges(cfg, pub["comm_r_new"], k)
    bad = np.flatnonzero(proof.challenges != ch)
    if bad.size:
        i = int(bad[0])
        raise FormatError(f"{where}: challenge {i}: proof_r_old: path opens leaf {int(proof.challenges[i])}, "
                          f"but the challenged leaf is {int(ch[i])}")
    f = fr()
    rho = rhos(cfg, phi(pub["comm_d_new"], pub["comm_r_old"]), h, ch)
    calc = f.add(to_mont(proof.r_old.leaves), f.mul(to_mont(proof.d_new.leaves), rho))
    bad = np.flatnonzero(~(calc == to_mont(proof.r_new.leaves)).all(axis=1))
    if bad.size:
        raise FormatError(f"{where}: challenge {int(bad[0])}: proof_r_new: leaf is not label_r_old + "
                          f"label_d_new * rho")
    # apex leaves: the apex tree's rows must hold each challenge's tree D siblings at those heights
    if proof.apex_leaves.shape[0] != cfg.apex_leaves:
        raise FormatError(f"{where}: apex_leafs: expected {cfg.apex_leaves}, got {proof.apex_leaves.shape[0]}")
    L = cfg.path_to_apex_len
    row, rows = proof.apex_leaves, []
    for _ in range(cfg.apex_leaf_bit_len):
        rows.append(row)
        row = sha254_many(row.reshape(-1, 64))
    for i in range(cfg.challenges):
        for j, apex_row in enumerate(rows):
            sib = proof.d_new.siblings[L + j][i, 0]
            if not (apex_row == sib).all(axis=1).any():
                raise FormatError(f"{where}: challenge {i}: proof_d_new: path level {L + j}: sibling is not in "
                                  f"the apex tree")
