"""C1Output -> bytes: the SealCommitPhase1Output JSON (c1_layout), bare or in Curio's envelope, byte
for byte what rust-fil-proofs' serde (or Curio's Go re-encoding) writes."""

from __future__ import annotations

import base64

import numpy as np

from cuzk.errors import FormatError

from .c1_layout import (
    SERDE_ORDER, WHERE, _BYTES_FIELDS, C1Output, _column_hashes, _digits, _labeling_parents, _template, vanilla_tag,
)
from .config import DEGREE, PorepConfig

# ---------------------------------------------------------------- encoding


def _slot_values(c1: C1Output, cfg: PorepConfig) -> np.ndarray:
    """uint64[P * C, K]: every number of every proof, derived from the partitions' arrays."""
    tpl = _template(cfg)
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    if len(c1.partitions) != P:
        raise FormatError(f"{WHERE}: {len(c1.partitions)} partitions, {c1.proof_name} has {P}")

    def cat(name, f):
        return np.concatenate([np.asarray(f(p)) for p in c1.partitions])

    ch = cat("challenges", lambda p: p.challenges).astype(np.uint64)
    if ch.shape != (P * C,):
        raise FormatError(f"{WHERE}: expected {C} challenges per partition")
    parents = cat("parents", lambda p: p.parents).astype(np.uint64).reshape(P * C, DEGREE)
    col_index = np.concatenate([ch[:, None], parents], axis=1)
    rows = np.concatenate([cat("columns", lambda p: np.asarray(p.columns)[:, None]),
                           cat("parent_columns", lambda p: p.parent_columns)], axis=1)  # [N, 15, L, 32]
    x = {"d_root": np.broadcast_to(cat("comm_d", lambda p: np.repeat(np.asarray(p.comm_d)[None], C, 0)),
                                   (P * C, 32)),
         "d_leaf": cat("data_leaves", lambda p: p.data_leaves),
         "d_idx": _digits(ch, (2,) * cfg.tree_d_depth),
         "r_root": cat("comm_r_last", lambda p: np.repeat(np.asarray(p.comm_r_last)[None], C, 0)),
         "r_leaf": cat("replica_leaves", lambda p: p.replica_leaves),
         "r_idx": _digits(ch, ar),
         "col_index": col_index, "col_rows": rows,
         "col_root": cat("comm_c", lambda p: np.repeat(np.asarray(p.comm_c)[None, None], C * (DEGREE + 1), 0)
                         ).reshape(P * C, DEGREE + 1, 32),
         "col_leaf": _column_hashes(rows),
         "col_idx": _digits(col_index.reshape(-1), ar).reshape(P * C, DEGREE + 1, len(ar))}
    dpaths = cat("data_paths", lambda p: p.data_paths)
    for lv in range(cfg.tree_d_depth):
        x[f"d_sib{lv}"] = dpaths[:, lv][:, None]
    for lv in range(len(ar)):
        x[f"r_sib{lv}"] = cat("replica_paths", lambda p: p.replica_paths[lv])
        x[f"col_sib{lv}"] = np.concatenate([cat("column_paths", lambda p: np.asarray(p.column_paths[lv])[:, None]),
                                            cat("parent_paths", lambda p: p.parent_paths[lv])], axis=1)
    lab = _labeling_parents(rows)
    x["lab_parents"] = lab
    x["lab_layer"] = np.broadcast_to(np.arange(1, L + 1, dtype=np.uint64), (P * C, L))
    x["lab_node"] = np.broadcast_to(ch[:, None], (P * C, L))
    x["enc_parents"] = lab[:, L - 1]
    x["enc_layer"] = np.full(P * C, L, dtype=np.uint64)
    x["enc_node"] = ch
    v = np.empty((P * C, tpl.K), dtype=np.uint64)
    for key, idx in tpl.slots.items():
        arr = np.asarray(x[key])
        want = (P * C,) + idx.shape
        if arr.shape != want:
            raise FormatError(f"{WHERE}: {key}: shape {arr.shape}, expected {want} for {c1.proof_name}")
        v[:, idx] = arr
    return v


def _render(pieces: np.ndarray, table: list[bytes], v: np.ndarray) -> bytes:
    """Interleave literal pieces and numbers: table[pieces[0]], v[0], table[pieces[1]], ..., table[pieces[M]].

    pieces: int[M + 1] indices into table; v: uint64[M]. Vectorized: lengths and offsets, then the
    pieces' bytes in one ragged gather and each digit position in one assignment."""
    M = len(v)
    tb = np.frombuffer(b"".join(table), dtype=np.uint8)
    tlen = np.array([len(s) for s in table], dtype=np.int64)
    toff = np.concatenate([[0], np.cumsum(tlen)[:-1]]).astype(np.int64)
    llen = tlen[pieces]
    nlen = np.ones(M, dtype=np.int64)
    p10 = 10
    vmax = int(v.max()) if M else 0
    while p10 <= vmax:
        nlen += v >= np.uint64(p10)
        p10 *= 10
    seg = np.empty(2 * M + 1, dtype=np.int64)
    seg[0::2] = llen
    seg[1::2] = nlen
    off = np.zeros(2 * M + 2, dtype=np.int64)
    np.cumsum(seg, out=off[1:])
    out = np.empty(int(off[-1]), dtype=np.uint8)
    lstart, nstart = off[0:-1:2], off[1:-1:2]
    # the pieces: a ragged copy
    total = int(llen.sum())
    first = np.repeat(np.cumsum(llen) - llen, llen)
    within = np.arange(total, dtype=np.int64) - first
    out[np.repeat(lstart, llen) + within] = tb[np.repeat(toff[pieces], llen) + within]
    # the numbers, digit position by digit position
    for k in range(int(nlen.max()) if M else 0):
        m = np.flatnonzero(nlen > k)
        power = (nlen[m] - 1 - k).astype(np.uint64)
        out[nstart[m] + k] = (v[m] // (np.uint64(10) ** power) % np.uint64(10)).astype(np.uint8) + 48
    return out.tobytes()


def _encode_proofs(c1: C1Output, cfg: PorepConfig) -> bytes:
    """The partitions' array [[P,...],...] as serde_json writes it."""
    tpl = _template(cfg)
    v = _slot_values(c1, cfg)
    N, K = v.shape
    C = cfg.challenges
    lits = [s.encode() for s in tpl.lits]
    first, last = lits[0], lits[-1]
    table = list(dict.fromkeys(lits[1:K] + [b"[[" + first, last + b"," + first, last + b"],[" + first,
                                             last + b"]]"]))
    ids = {s: i for i, s in enumerate(table)}
    grid = np.empty((N, K), dtype=np.int64)
    grid[:, :K - 1] = [ids[s] for s in lits[1:K]]  # the pieces between a proof's numbers
    nxt = np.arange(1, N + 1)  # after a proof's last number: its closing, the next one's separator
    grid[:, K - 1] = np.where(nxt % C == 0, ids[last + b"],[" + first], ids[last + b"," + first])
    grid[N - 1, K - 1] = ids[last + b"]]"]
    pieces = np.concatenate([[ids[b"[[" + first]], grid.reshape(-1)])
    return _render(pieces, table, v.reshape(-1))


def _json_bytes32(a) -> str:
    a = np.asarray(a, dtype=np.uint8).reshape(-1)
    if a.shape != (32,):
        raise FormatError(f"{WHERE}: a 32-byte field has {a.size} bytes")
    return "[" + ",".join(str(int(b)) for b in a) + "]"


def encode_c1(c1: C1Output, *, envelope: bool | None = None, key_order: tuple[str, ...] | None = None) -> bytes:
    """The JSON rust-fil-proofs (serde_json::to_vec) writes for `c1`, in Curio's envelope when
    `envelope` (default: when c1 has a sector number). key_order: top-level key order (default
    c1.key_order: serde's, or Go's for documents Curio re-encoded)."""
    cfg = c1.config
    order = tuple(key_order or c1.key_order)
    if sorted(order) != sorted(SERDE_ORDER):
        raise FormatError(f"{WHERE}: key_order must be a permutation of {', '.join(SERDE_ORDER)}")
    parts = {k: _json_bytes32(getattr(c1, k)).encode() for k in _BYTES_FIELDS}
    parts["registered_proof"] = f'"{c1.proof_name}"'.encode()
    parts["vanilla_proofs"] = b'{"' + vanilla_tag(cfg).encode() + b'":' + _encode_proofs(c1, cfg) + b"}"
    inner = b"{" + b",".join(b'"' + k.encode() + b'":' + parts[k] for k in order) + b"}"
    if envelope is None:
        envelope = c1.sector_number is not None
    if not envelope:
        return inner
    num = 0 if c1.sector_number is None else int(c1.sector_number)
    size = cfg.sector_size if c1.sector_size is None else int(c1.sector_size)
    return (b'{"SectorNum":' + str(num).encode() + b',"Phase1Out":"' + base64.b64encode(inner) +
            b'","SectorSize":' + str(size).encode() + b"}")
