"""Bincode `MerkleProof`s (storage-proofs-core merkle/proof.rs) as numpy records.

What the PoSt and SnapDeals vanilla proofs share: every MerkleProof of a registered proof has
one shape (variant, path blocks, arities), so many of them are one record array. Here are the
record's fields, the vectorized check of its tags, lengths and indices, the field-by-field walk
that names the first wrong field, and the conversions to and from (leaves, roots, siblings,
indices). Field names carry a prefix where one record holds several proofs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.codec.bincode import Reader

VARIANTS = ("Single", "Sub", "Top")
_BLOCKS = ("base path", "sub-tree path", "top-tree path")


@dataclass(frozen=True)
class MerkleShape:
    variant: int  # 0 Single, 1 Sub, 2 Top
    blocks: tuple[tuple[int, ...], ...]  # path levels of each block, e.g. ((0..8), (9,))
    arities: tuple[int, ...]


def merkle_shape(variant: int, arities: tuple[int, ...], base_levels: int) -> MerkleShape:
    blocks = [tuple(range(base_levels))] + [(lv,) for lv in range(base_levels, len(arities))]
    return MerkleShape(variant, tuple(blocks), tuple(arities))


def record_fields(t: MerkleShape, prefix: str = "") -> list:
    """numpy dtype fields of one MerkleProof of shape `t`."""
    fields = [(f"{prefix}tag", "<u4")]
    root_leaf = [(f"{prefix}root", "u1", (32,)), (f"{prefix}leaf", "u1", (32,))]
    if t.variant == 0:
        fields += root_leaf
    for j, levels in enumerate(t.blocks):
        fields.append((f"{prefix}len{j}", "<u8"))
        for lv in levels:
            fields += [(f"{prefix}cnt{lv}", "<u8"), (f"{prefix}sib{lv}", "u1", (t.arities[lv] - 1, 32)),
                       (f"{prefix}idx{lv}", "<u8")]
    if t.variant:
        fields += root_leaf
    return fields


def records_ok(recs: np.ndarray, t: MerkleShape, prefix: str = "") -> np.ndarray:
    """bool[n]: each record's tag, path lengths and indices fit shape `t`."""
    ok = recs[f"{prefix}tag"] == t.variant
    for j, levels in enumerate(t.blocks):
        ok &= recs[f"{prefix}len{j}"] == len(levels)
        for lv in levels:
            ok &= (recs[f"{prefix}cnt{lv}"] == t.arities[lv] - 1) & (recs[f"{prefix}idx{lv}"] < t.arities[lv])
    return ok


def walk_proof(r: Reader, t: MerkleShape, p: str) -> None:
    """Read one MerkleProof field by field (`p` names it); raises at the first wrong field."""
    tag = r.u32(f"{p}: merkle proof variant")
    if tag != t.variant:
        got = VARIANTS[tag] if tag < len(VARIANTS) else "unknown"
        raise r.error(f"{p}: merkle proof variant", f"expected {t.variant} ({VARIANTS[t.variant]}) for this "
                                                    f"sector size, got {tag} ({got})")
    if t.variant == 0:
        r.skip(64, f"{p}: root and leaf")
    for j, levels in enumerate(t.blocks):
        n = r.u64(f"{p}: {_BLOCKS[j]} length")
        r.expect(n, len(levels), f"{p}: {_BLOCKS[j]}", "levels")
        for lv in levels:
            a = t.arities[lv]
            r.expect(r.u64(f"{p}: path level {lv}: siblings length"), a - 1, f"{p}: path level {lv}", "siblings")
            r.skip(32 * (a - 1), f"{p}: path level {lv}: siblings")
            idx = r.u64(f"{p}: path level {lv}: index")
            if idx >= a:
                raise r.error(f"{p}: path level {lv}", f"index {idx} is not below the arity {a}")
    if t.variant:
        r.skip(64, f"{p}: root and leaf")


def record_arrays(recs: np.ndarray, t: MerkleShape, prefix: str = ""):
    """(leaves, roots, siblings per level, indices uint64[n, levels]) of the records (copies)."""
    n = len(t.arities)
    return (np.array(recs[f"{prefix}leaf"]), np.array(recs[f"{prefix}root"]),
            tuple(np.array(recs[f"{prefix}sib{lv}"]) for lv in range(n)),
            np.stack([recs[f"{prefix}idx{lv}"] for lv in range(n)], axis=1).astype(np.uint64).reshape(len(recs), n))


def fill_records(recs: np.ndarray, t: MerkleShape, leaves, roots, siblings, indices, prefix: str = "") -> None:
    """Write proofs of shape `t` into the records (the inverse of record_arrays)."""
    recs[f"{prefix}tag"] = t.variant
    recs[f"{prefix}root"] = roots
    recs[f"{prefix}leaf"] = leaves
    for j, levels in enumerate(t.blocks):
        recs[f"{prefix}len{j}"] = len(levels)
        for lv in levels:
            recs[f"{prefix}cnt{lv}"] = t.arities[lv] - 1
            recs[f"{prefix}sib{lv}"] = siblings[lv]
            recs[f"{prefix}idx{lv}"] = indices[:, lv]
