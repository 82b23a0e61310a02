"""The PoSt vanilla proofs Curio sends: bincode `FallbackPoStSectorProof<Tree>`, one per sector.

Layout (serde + bincode 1.x: u64 lengths and usize, u32 enum tags, domains
as 32 raw bytes; rust-fil-proofs storage-proofs-post fallback/vanilla.rs and
storage-proofs-core merkle/proof.rs; Curio lib/proof/post_vproof_bin_decode.go):

    sector_id            u64
    comm_r               [32]
    vanilla_proof.sectors: u64 count (1), then that SectorProof:
      inclusion_proofs:  u64 count K (window 10, winning 66), then K MerkleProofs:
        variant          u32: 0 Single, 1 Sub, 2 Top (by the sector's tree shape)
        Single:          root [32], leaf [32], path
        Sub:             base path, sub path, root [32], leaf [32]
        Top:             base path, sub path, top path, root [32], leaf [32]
          a path:        u64 element count, then per element:
                         u64 sibling count (arity - 1), siblings [32] each, index u64
      comm_c             [32]
      comm_r_last        [32]

Every length and tag is fixed by the registered proof's tree shape, so one
sector proof has an exact size: the decoder views the K inclusion proofs as
one numpy record array and checks all their tags, lengths and indices at
once. Only when something is off does it walk the bytes field by field, to
name the first wrong field. Every node must encode an Fr element (below r),
as Rust's conversions to Fr require.

`check_sector_proofs` is the semantic check: path indices equal the derived
challenges, each path hashes to its root, every root is comm_r_last, and
Poseidon(comm_c, comm_r_last) = comm_r.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from .challenges import PublicSectors, as_randomness, vanilla_challenges
from .partition import PartitionSlots, partition_slots
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig, post_config
from cuzk.circuits.filecoin.common.fr_bytes import non_canonical_rows
from .vanilla_proof import PostSectorProof
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, path_roots
from cuzk.errors import FormatError

from cuzk.codec.bincode import Reader, Writer
from cuzk.circuits.filecoin.common.merkle_records import (
    MerkleShape, fill_records, merkle_shape, record_arrays, record_fields, records_ok, walk_proof,
)

__all__ = ["PostSectorProof", "decode_sector_proof", "decode_sector_proofs", "encode_sector_proof",
           "check_sector_proof", "check_sector_proofs", "load_partition", "sector_proof_size"]


@functools.lru_cache(maxsize=None)
def _layout(config: PostConfig) -> tuple[MerkleShape, np.dtype]:
    """The inclusion proofs' shape and the record dtype of one."""
    t = merkle_shape(config.merkle_variant, config.arities, config.base_levels)
    return t, np.dtype(record_fields(t))


_HEAD = 8 + 32 + 8 + 8  # sector_id, comm_r, sectors count, inclusion proofs count
_TAIL = 64  # comm_c, comm_r_last


def sector_proof_size(config: PostConfig) -> int:
    """Bytes of one well-formed FallbackPoStSectorProof of this registered proof (24,960 for 32 GiB window)."""
    return _HEAD + config.vanilla_challenges * _layout(config)[1].itemsize + _TAIL


def _where(sector_id, position) -> str:
    if position is None:
        return f"sector {sector_id}" if sector_id is not None else "sector proof"
    return f"vanilla_proofs[{position}]" + (f" (sector {sector_id})" if sector_id is not None else "")


def _check_canonical(proof: PostSectorProof, where: str) -> None:
    """Refuse nodes >= r, naming the first (header fields, then per inclusion proof)."""
    for name in ("comm_r", "comm_c", "comm_r_last"):
        if non_canonical_rows(getattr(proof, name)).size:
            raise FormatError(f"{where}: {name}: not a field element (>= r)")
    k = proof.num_inclusion_proofs
    bad = np.zeros(k, dtype=bool)
    for arr in (proof.leaves, proof.roots, *proof.siblings):
        rows = non_canonical_rows(arr)
        if rows.size:
            per = int(np.prod(arr.shape[1:-1])) if arr.ndim > 2 else 1
            bad[rows // per] = True
    if bad.any():
        i = int(np.argmax(bad))
        for name, arr in (("leaf", proof.leaves[i:i + 1]), ("root", proof.roots[i:i + 1])):
            if non_canonical_rows(arr).size:
                raise FormatError(f"{where}: inclusion proof {i}: {name}: not a field element (>= r)")
        for lv, sib in enumerate(proof.siblings):
            rows = non_canonical_rows(sib[i])
            if rows.size:
                raise FormatError(f"{where}: inclusion proof {i}: path level {lv}: sibling {int(rows[0])}: "
                                  f"not a field element (>= r)")


def _check_canonical_many(proofs: Sequence[PostSectorProof], where: Sequence[str]) -> None:
    """_check_canonical of every proof, in one pass over all their nodes (a full WindowPoSt partition
    is 2349 sectors of 14 node arrays: one call each cost 1.9 s); the first failing proof is then found
    and named as _check_canonical names it."""
    if not proofs:
        return
    nodes = np.concatenate([a.reshape(-1, 32) for p in proofs
                            for a in (p.comm_r, p.comm_c, p.comm_r_last, p.leaves, p.roots, *p.siblings)])
    if non_canonical_rows(nodes).size:
        for p, w in zip(proofs, where):
            _check_canonical(p, w)


def decode_sector_proof(data, config: PostConfig, position: int | None = None,
                        canonical: bool = True) -> PostSectorProof:
    """One bincode FallbackPoStSectorProof -> PostSectorProof (arrays are copies).

    position: the proof's index in the request, for error messages. canonical: refuse nodes >= r
    here (False: the caller checks them, as decode_sector_proofs does for all proofs at once)."""
    r = Reader(data, _where(None, position))
    sector_id = r.u64("sector_id")
    r.where = _where(sector_id, position)
    comm_r = np.frombuffer(r.take(32, "comm_r"), dtype=np.uint8).copy()
    n_sectors = r.u64("vanilla_proof.sectors length")
    r.expect(n_sectors, 1, "vanilla_proof.sectors", "sector proof")
    k = r.u64("inclusion_proofs length")
    r.expect(k, config.vanilla_challenges, "inclusion_proofs", f"inclusion proofs for {config.name}")
    t, dtype = _layout(config)
    size = k * dtype.itemsize
    recs = None
    if r.remaining == size + _TAIL:
        recs = np.frombuffer(r.data, dtype=dtype, count=k, offset=r.pos)
        if not records_ok(recs, t).all():
            recs = None
    if recs is None:
        for i in range(k):  # raises at the first wrong field
            walk_proof(r, t, f"inclusion proof {i}")
        r.take(32, "comm_c")
        r.take(32, "comm_r_last")
        r.end()
        raise FormatError(f"{r.where}: malformed sector proof")  # unreachable: the walk names the problem
    r.skip(size, "inclusion_proofs")
    comm_c = np.frombuffer(r.take(32, "comm_c"), dtype=np.uint8).copy()
    comm_r_last = np.frombuffer(r.take(32, "comm_r_last"), dtype=np.uint8).copy()
    r.end()
    leaves, roots, siblings, indices = record_arrays(recs, t)
    proof = PostSectorProof(
        sector_id=int(sector_id), comm_r=comm_r, comm_c=comm_c, comm_r_last=comm_r_last,
        leaves=leaves, roots=roots, siblings=siblings, indices=indices,
    )
    if canonical:
        _check_canonical(proof, r.where)
    return proof


def decode_sector_proofs(vanilla_proofs: Sequence, config: PostConfig) -> list[PostSectorProof]:
    """A request's `vanilla_proofs` (bytes each), errors naming the request position."""
    proofs = [decode_sector_proof(b, config, position=i, canonical=False) for i, b in enumerate(vanilla_proofs)]
    _check_canonical_many(proofs, [_where(p.sector_id, i) for i, p in enumerate(proofs)])
    return proofs


def encode_sector_proof(proof: PostSectorProof, config: PostConfig) -> bytes:
    """The bincode bytes rust-fil-proofs would write for `proof` (inverse of decode_sector_proof)."""
    t, dtype = _layout(config)
    k = proof.num_inclusion_proofs
    if proof.arities != t.arities:
        raise FormatError(f"sector {proof.sector_id}: path arities {proof.arities}, expected {t.arities}")
    recs = np.zeros(k, dtype=dtype)
    fill_records(recs, t, proof.leaves, proof.roots, proof.siblings, proof.indices)
    w = Writer().u64(proof.sector_id).raw(np.asarray(proof.comm_r, dtype=np.uint8)).u64(1).u64(k)
    w.raw(recs.tobytes()).raw(np.asarray(proof.comm_c, dtype=np.uint8))
    w.raw(np.asarray(proof.comm_r_last, dtype=np.uint8))
    return w.getvalue()


def _hex(node) -> str:
    return "0x" + bytes(np.asarray(node, dtype=np.uint8)).hex()[:16] + "..."


def check_sector_proofs(proofs: Sequence[PostSectorProof], config: PostConfig, randomness,
                        sector_indices: Sequence[int], comm_r: Sequence | None = None,
                        positions: Sequence[int | None] | None = None) -> None:
    """The semantic check of several sector proofs at once (one batched hash call per level).

    sector_indices: each sector's index in the whole PoSt's sector list, which the challenge
    derivation uses (window: partition_index * sectors_per_partition + request position;
    winning: 0). comm_r: optional expected sealed commitments (e.g. from the chain), one per
    proof. Raises FormatError naming the first failing sector and field; returns None."""
    proofs = list(proofs)
    if not proofs:
        return
    positions = list(positions) if positions is not None else [None] * len(proofs)
    where = [_where(p.sector_id, pos) for p, pos in zip(proofs, positions)]
    rand = as_randomness(randomness)
    for p, w in zip(proofs, where):
        if p.num_inclusion_proofs != config.vanilla_challenges:
            raise FormatError(f"{w}: inclusion_proofs: expected {config.vanilla_challenges}, "
                              f"got {p.num_inclusion_proofs}")
        if p.arities != config.arities:
            raise FormatError(f"{w}: path: arities {p.arities}, expected {config.arities} for {config.name}")
    _check_canonical_many(proofs, where)
    if comm_r is not None:
        want = PublicSectors.of(([p.sector_id for p in proofs], comm_r)).comm_r
        for p, w, c in zip(proofs, where, want):
            if not np.array_equal(p.comm_r, c):
                raise FormatError(f"{w}: comm_r: the proof's {_hex(p.comm_r)} is not the sector's sealed "
                                  f"commitment {_hex(c)}")
    ids = np.array([p.sector_id for p in proofs], dtype=np.uint64)
    expected = vanilla_challenges(config, rand, ids, np.asarray(sector_indices, dtype=np.uint64))
    for p, w, exp in zip(proofs, where, expected):
        got = p.leaf_index()
        bad = np.flatnonzero(got != exp)
        if bad.size:
            i = int(bad[0])
            raise FormatError(f"{w}: inclusion proof {i}: path indices open leaf {int(got[i])}, "
                              f"but the challenged leaf is {int(exp[i])}")
    k = config.vanilla_challenges
    roots = path_roots(np.concatenate([p.leaves for p in proofs]),
                       [np.concatenate([p.siblings[lv] for p in proofs]) for lv in range(config.path_length)],
                       np.concatenate([p.indices for p in proofs]))
    comm_r_calc = comm_r_of(np.stack([p.comm_c for p in proofs]), np.stack([p.comm_r_last for p in proofs]))
    for s, (p, w) in enumerate(zip(proofs, where)):
        mine = roots[s * k:(s + 1) * k]
        bad = np.flatnonzero(~(mine == p.roots).all(axis=1))
        if bad.size:
            i = int(bad[0])
            raise FormatError(f"{w}: inclusion proof {i}: leaf and path siblings hash to {_hex(mine[i])}, "
                              f"not to the proof's root {_hex(p.roots[i])}")
        bad = np.flatnonzero(~(p.roots == p.comm_r_last).all(axis=1))
        if bad.size:
            raise FormatError(f"{w}: comm_r_last: {_hex(p.comm_r_last)} is not the root of inclusion proof "
                              f"{int(bad[0])} ({_hex(p.roots[bad[0]])})")
        if not np.array_equal(comm_r_calc[s], p.comm_r):
            raise FormatError(f"{w}: comm_c: Poseidon(comm_c, comm_r_last) = {_hex(comm_r_calc[s])} is not "
                              f"comm_r {_hex(p.comm_r)}")


def check_sector_proof(proof: PostSectorProof, config: PostConfig, randomness, sector_index: int = 0,
                       comm_r=None, position: int | None = None) -> None:
    """check_sector_proofs for one sector (sector_index as there; comm_r: optional 32 bytes)."""
    check_sector_proofs([proof], config, randomness, [sector_index],
                        None if comm_r is None else [bytes(comm_r)], [position])


def load_partition(config: PostConfig | int, vanilla_proofs: Sequence, randomness, partition_index: int = 0,
                   check: bool = True) -> PartitionSlots:
    """A Curio SubmitProofRequest's PoSt payload -> the circuit's slots (decoded, checked, arranged).

    config: a PostConfig or the request's registered_proof number."""
    if not isinstance(config, PostConfig):
        config = post_config(config)
    proofs = decode_sector_proofs(vanilla_proofs, config)
    slots = partition_slots(config, proofs, partition_index)
    if check:
        if config.kind == "winning":
            indices = [0] * len(proofs)
        else:
            base = partition_index * config.sectors_per_partition
            indices = [base + i for i in range(len(proofs))]
        check_sector_proofs(proofs, config, randomness, indices, positions=range(len(proofs)))
    return slots
