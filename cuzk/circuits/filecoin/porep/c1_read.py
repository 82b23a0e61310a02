"""C1 output bytes -> C1Output: Curio's envelope or a bare SealCommitPhase1Output, read against
the skeleton its registered proof implies (c1_layout). Structure only: the semantic check is
c1_verify.check_c1, which callers that need both call after decoding."""

from __future__ import annotations

import base64
import binascii
import bisect

import numpy as np

from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES
from cuzk.circuits.filecoin.common.fr_bytes import non_canonical_rows
from cuzk.codec.json_reader import JsonReader
from cuzk.errors import FormatError

from .c1_layout import (
    API_NAMES, ENVELOPE_KEYS, SERDE_ORDER, WHERE, _BY_NAME, _BYTE, _BYTES_FIELDS, _FR_FIELDS, _NUM, C1Output,
    _array_skeleton, _col_name, _column_hashes, _digits, _first_bad, _hex, _labeling_parents, _template, vanilla_tag,
)
from .config import DEGREE, PorepConfig, porep_config
from .vanilla_proof import PorepPartitionProof

def _config(number: int, r: "JsonReader") -> PorepConfig:
    cfg = porep_config(number)
    if cfg.sector_size not in SIZE_NAMES:
        raise r.error("registered_proof", f"no sector shape for {number}")
    return cfg


def _check_tag(tag: str, cfg: PorepConfig, number: int, r: "JsonReader") -> None:
    if tag != vanilla_tag(cfg):
        raise r.error("vanilla_proofs", f"variant {tag[:40]!r}, expected {vanilla_tag(cfg)!r} for {API_NAMES[number]}")


# ---------------------------------------------------------------- decoding


def _as_bytes(data, where: str) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise FormatError(f"{where}: expected bytes, got {type(data).__name__}")


def decode_c1(data, *, registered_proof: int | None = None) -> C1Output:
    """Curio's envelope or a bare SealCommitPhase1Output JSON -> C1Output.

    registered_proof: the request's number, when known (a document of another proof is refused).
    Structure only: `c1_verify.check_c1` is the semantic check. Raises FormatError (a ValueError)
    naming the field (and partition and challenge) of the first problem."""
    doc = _as_bytes(data, WHERE)
    r = JsonReader(doc, WHERE)
    if r.peek("document") != ord("{"):
        raise r.error("document", "expected a JSON object")
    sector_number = sector_size = None
    # the first key tells the envelope from the bare output
    save = r.pos
    r.pos += 1
    first = r.string("document key") if r.peek("document") == ord('"') else None
    r.pos = save
    if first in ENVELOPE_KEYS:
        env: dict = {}

        def value(key):
            if key in ("SectorNum", "SectorSize"):
                env[key] = r.uint(key)
            elif key == "Phase1Out":
                env[key] = r.raw_string(key)
            else:
                raise r.error(key, f"unknown envelope field (expected {', '.join(ENVELOPE_KEYS)})")

        r.object_keys("envelope", value)
        r.end()
        for k in ENVELOPE_KEYS:
            if k not in env:
                raise r.error(k, "missing envelope field")
        try:
            inner = base64.b64decode(env["Phase1Out"], validate=True)
        except (binascii.Error, ValueError):
            raise r.error("Phase1Out", "not valid base64 (standard alphabet, padded)") from None
        sector_number, sector_size = env["SectorNum"], env["SectorSize"]
        out = _decode_inner(inner, f"{WHERE} (Phase1Out)", registered_proof)
        if sector_size != out.config.sector_size:
            raise r.error("SectorSize", f"{sector_size} is not {out.proof_name}'s sector size "
                                        f"{out.config.sector_size}")
        out.sector_number, out.sector_size = sector_number, sector_size
    else:
        out = _decode_inner(doc, WHERE, registered_proof)
    return out


def _decode_inner(doc: bytes, where: str, expected: int | None) -> C1Output:
    r = JsonReader(doc, where)
    vals: dict = {}

    def value(key):
        if key in _BYTES_FIELDS:
            vals[key] = r.bytes32(key)
        elif key == "registered_proof":
            name = r.string(key)
            if name not in _BY_NAME:
                raise r.error(key, f"unknown RegisteredSealProof {name[:60]!r}")
            vals[key] = _BY_NAME[name]
        elif key == "vanilla_proofs":
            tags = []

            def variant(tag):
                tags.append(tag)
                r.peek(f"vanilla_proofs.{tag[:40]}")
                start = r.pos
                if "registered_proof" in vals and not tags[1:]:  # serde's and Go's orders: the usual case
                    cfg = _config(vals["registered_proof"], r)
                    _check_tag(tag, cfg, vals["registered_proof"], r)
                    vals["vp"] = _decode_proofs(np.frombuffer(doc, dtype=np.uint8)[start:], cfg,
                                                f"{where}: vanilla_proofs")
                    r.pos = start + vals["vp"][1]
                else:
                    vals["vp_span"] = r.span(f"vanilla_proofs.{tag[:40]}")

            r.object_keys(key, variant)
            if len(tags) != 1:
                raise r.error(key, f"expected one VanillaSealProof variant, got {len(tags)}")
            vals["vp_tag"] = tags[0]
        else:
            raise r.error(key, "unknown field of SealCommitPhase1Output")

    order = tuple(r.object_keys("document", value))
    r.end()
    for k in SERDE_ORDER:
        if k not in order:
            raise r.error(k, "missing field")
    number = vals["registered_proof"]
    if expected is not None and int(expected) != number:
        raise r.error("registered_proof", f"{API_NAMES[number]} ({number}), but the request is for "
                                          f"{API_NAMES.get(int(expected), expected)} ({expected})")
    cfg = _config(number, r)
    _check_tag(vals["vp_tag"], cfg, number, r)
    for k in _FR_FIELDS:
        if non_canonical_rows(vals[k]).size:
            raise r.error(k, "not a field element (>= r)")
    if "vp" in vals:
        arrays = vals["vp"][0]
    else:  # vanilla_proofs came before registered_proof
        s, e = vals["vp_span"]
        arrays, used = _decode_proofs(np.frombuffer(doc, dtype=np.uint8)[s:e], cfg, f"{where}: vanilla_proofs")
        if used != e - s:
            raise r.error("vanilla_proofs", f"{e - s - used} bytes after the partitions' array")
    c1 = C1Output(number, vals["comm_r"], vals["comm_d"], vals["replica_id"], vals["seed"], vals["ticket"],
                  [], key_order=order)
    c1.partitions = _partitions(c1, cfg, arrays, f"{where}: vanilla_proofs")
    return c1


def _locate(cfg: PorepConfig, i: int) -> tuple[str, int | None]:
    """A position in the array skeleton -> (description, offset in the proof template or None)."""
    tpl = _template(cfg)
    T, C, P = len(tpl.skeleton), cfg.challenges, cfg.partitions
    if i == 0:
        return "the partitions' array", None
    Bp = 2 + C * T + (C - 1)
    q = i - 1
    p, rem = divmod(q, Bp + 1)
    if p >= P:
        return f"more than {P} partitions", None
    if rem == 0:
        return f"partition {p}", None
    if rem >= Bp - 1:
        return f"partition {p}: expected {C} challenges", None
    c, o = divmod(rem - 1, T + 1)
    if o == T:
        return f"partition {p}, challenge {c}: expected {C} challenges per partition", None
    k = bisect.bisect_right(tpl.mark_pos, o) - 1
    name = tpl.mark_names[k] if k >= 0 else "the proof"
    return f"partition {p}, challenge {c}: {name}", o


def _skeleton_error(cfg: PorepConfig, skel: np.ndarray, exp: np.ndarray, where: str) -> FormatError:
    n = min(len(skel), len(exp))
    diff = np.flatnonzero(skel[:n] != exp[:n])
    i = int(diff[0]) if diff.size else n
    what, _ = _locate(cfg, i)
    got = bytes(skel[i:i + 24]).decode("latin-1")
    want = bytes(exp[i:i + 24]).decode("latin-1")
    if i >= len(skel):
        return FormatError(f"{where}: {what}: the proofs end early (expected {want!r}...)")
    return FormatError(f"{where}: {what}: expected {want!r}..., got {got!r}... ('#' a number)")


def _slot_error(cfg: PorepConfig, flat: int, problem: str, where: str) -> FormatError:
    tpl = _template(cfg)
    n, k = divmod(int(flat), tpl.K)
    p, c = divmod(n, cfg.challenges)
    return FormatError(f"{where}: partition {p}, challenge {c}: {tpl.names[k]}: {problem}")


_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True
_WS = (9, 10, 13, 32)


def _decode_proofs(a: np.ndarray, cfg: PorepConfig, where: str) -> tuple[dict[str, np.ndarray], int]:
    """The partitions' array at the start of `a` (uint8; what follows it is ignored) ->
    ({slot array name: values [P * C, ...]}, the array's length in bytes)."""
    tpl = _template(cfg)
    exp = _array_skeleton(cfg)
    counts = np.bincount(a, minlength=256)
    digit = _DIGIT[a]
    start = digit.copy()
    start[1:] &= ~digit[:-1]
    keep = ~digit
    keep |= start
    if sum(int(counts[c]) for c in _WS):  # JSON allows whitespace between tokens; none inside strings
        in_str = (np.cumsum(a == 34, dtype=np.int32) & 1).astype(bool)
        keep &= ~(np.isin(a, _WS) & ~in_str)
    b = a.copy()
    if counts[35]:
        b[a == 35] = 1  # a literal '#' never matches a number
    b[start] = 35
    kept = np.flatnonzero(keep)
    E = len(exp)
    skel = b[kept[:E]]
    if len(skel) < E or not np.array_equal(skel, exp):
        if counts[92]:
            i = int(np.argmax(a == 92))
            raise FormatError(f"{where}: escape sequences are not supported (offset {i})")
        raise _skeleton_error(cfg, skel, exp, where)
    used = int(kept[E - 1]) + 1
    if counts[92] and (a[:used] == 92).any():  # unreachable: the skeleton holds no backslash
        raise FormatError(f"{where}: escape sequences are not supported")

    # the numbers, in bulk: runs of digits inside the array
    starts = np.flatnonzero(start[:used])
    end = digit[:used].copy()
    end[:-1] &= ~digit[1:used]
    lens = np.flatnonzero(end) - starts + 1
    n = len(a)
    d0 = a[starts].astype(np.uint16) - 48
    d1 = a[np.minimum(starts + 1, n - 1)].astype(np.uint16) - 48
    d2 = a[np.minimum(starts + 2, n - 1)].astype(np.uint16) - 48
    v16 = np.where(lens == 1, d0, np.where(lens == 2, d0 * 10 + d1, d0 * 100 + d1 * 10 + d2))
    bad = np.flatnonzero((lens > 1) & (d0 == 0))
    if bad.size:
        raise _slot_error(cfg, bad[0], "a number with a leading zero", where)
    long_ = np.flatnonzero(lens > 3)
    if long_.size and int(lens[long_].max()) > 19:
        raise _slot_error(cfg, long_[np.argmax(lens[long_] > 19)], "number out of range", where)
    vlong = np.zeros(len(long_), dtype=np.uint64)
    for k in range(int(lens[long_].max()) if long_.size else 0):
        m = np.flatnonzero(lens[long_] > k)
        vlong[m] = vlong[m] * np.uint64(10) + (a[starts[long_[m]] + k] - 48).astype(np.uint64)
    v16[long_] = 0xFFFF
    N = cfg.partitions * cfg.challenges
    K = tpl.K
    V = v16.reshape(N, K)
    byte_slots = np.flatnonzero(tpl.kinds == _BYTE)
    num_slots = np.flatnonzero(tpl.kinds == _NUM)
    big = V[:, byte_slots] > 255
    if big.any():
        i, j = np.unravel_index(int(np.argmax(big)), big.shape)
        flat = i * K + int(byte_slots[j])
        value = int(V.reshape(-1)[flat]) if V.reshape(-1)[flat] != 0xFFFF else int(vlong[np.searchsorted(long_, flat)])
        raise _slot_error(cfg, flat, f"{value} is not a byte", where)
    Vn = V[:, num_slots].astype(np.uint64)
    to_num = np.full(K, -1, dtype=np.int64)
    to_num[num_slots] = np.arange(len(num_slots))
    if long_.size:
        row, col = np.divmod(long_, K)
        Vn[row, to_num[col]] = vlong  # every long run is a number slot (bytes were refused above)
    out = {}
    for key, idx in tpl.slots.items():
        if tpl.kinds[idx.reshape(-1)[0]] == _BYTE if idx.size else False:
            out[key] = V[:, idx].astype(np.uint8)
        else:
            out[key] = Vn[:, to_num[idx]]
    # every node an Fr element (Rust converts each to Fr)
    for key, idx in tpl.slots.items():
        if out[key].dtype != np.uint8:
            continue
        rows = non_canonical_rows(out[key])
        if rows.size:
            per = int(np.prod(idx.shape[:-1])) if idx.ndim > 1 else 1
            i = int(rows[0]) // per
            slot = int(idx.reshape(-1, 32)[int(rows[0]) % per, 0])
            raise _slot_error(cfg, i * K + slot, "not a field element (>= r)", where)
    return out, used


def _partitions(c1: C1Output, cfg: PorepConfig, x: dict, where: str) -> list[PorepPartitionProof]:
    """Check that every value the arrays do not keep is the one the encoder derives; build them."""
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    N = P * C

    def fail(n, name, problem):
        p, c = divmod(n, C)
        return FormatError(f"{where}: partition {p}, challenge {c}: {name}: {problem}")

    col_index = x["col_index"]  # [N, 15]
    ch = col_index[:, 0]
    nodes = np.uint64(cfg.nodes)
    bad = np.flatnonzero(col_index >= nodes)
    if bad.size:
        n, j = divmod(int(bad[0]), DEGREE + 1)
        raise fail(n, _col_name(j) + ".column.index", f"{int(col_index[n, j])} is not a node (the sector has "
                                                      f"{cfg.nodes})")
    # tree D: the root is comm_d, indices the challenge's bits
    n = _first_bad(x["d_root"] == c1.comm_d)
    if n is not None:
        raise fail(n, "comm_d_proofs.root", f"{_hex(x['d_root'][n])} is not comm_d {_hex(c1.comm_d)}")
    n = _first_bad(x["d_idx"] == _digits(ch, (2,) * cfg.tree_d_depth))
    if n is not None:
        raise fail(n, "comm_d_proofs.path", f"indices {x['d_idx'][n].tolist()} do not open the challenged node "
                                            f"{int(ch[n])} (replica_column_proofs.c_x.column.index)")
    # tree R-last: one root per partition, indices the challenge's digits
    rr = x["r_root"].reshape(P, C, 32)
    n = _first_bad((rr == rr[:, :1]).reshape(N, 32))
    if n is not None:
        raise fail(n, "comm_r_last_proof.root", "differs from the partition's first challenge's (comm_r_last)")
    n = _first_bad(x["r_idx"] == _digits(ch, ar))
    if n is not None:
        raise fail(n, "comm_r_last_proof.path", f"indices {x['r_idx'][n].tolist()} do not open the challenged "
                                                f"node {int(ch[n])}")
    # tree C: one root per partition, indices the column's digits, leaves the columns' hashes
    cr = x["col_root"].reshape(P, C * (DEGREE + 1), 32)
    same = (cr == cr[:, :1]).reshape(N, DEGREE + 1, 32).all(axis=2)
    n = _first_bad(same)
    if n is not None:
        j = int(np.argmin(same[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.root", "differs from the partition's c_x root (comm_c)")
    want = _digits(col_index.reshape(-1), ar).reshape(N, DEGREE + 1, len(ar))
    ok = (x["col_idx"] == want).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.path", f"indices {x['col_idx'][n, j].tolist()} do not "
                                                              f"open column {int(col_index[n, j])}")
    try:
        leaves = _column_hashes(x["col_rows"])
    except ValueError as exc:  # a row >= r (the canonical check refuses these first)
        raise FormatError(f"{where}: column rows: {exc}") from None
    ok = (leaves == x["col_leaf"]).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.leaf", f"{_hex(x['col_leaf'][n, j])} is not the column's "
                                                              f"hash {_hex(leaves[n, j])}")
    # labeling and encoding proofs: made of the columns
    layer_no = np.arange(1, L + 1, dtype=np.uint64)
    n = _first_bad(x["lab_layer"] == layer_no)
    if n is not None:
        i = int(np.argmax(x["lab_layer"][n] != layer_no))
        raise fail(n, f"labeling_proofs[{i}].layer_index", f"{int(x['lab_layer'][n, i])}, expected {i + 1}")
    n = _first_bad(x["lab_node"] == ch[:, None])
    if n is not None:
        i = int(np.argmax(x["lab_node"][n] != ch[n]))
        raise fail(n, f"labeling_proofs[{i}].node", f"{int(x['lab_node'][n, i])} is not the challenge {int(ch[n])}")
    lab = _labeling_parents(x["col_rows"])
    ok = (lab == x["lab_parents"]).all(axis=3)  # [N, L, 37]
    n = _first_bad(ok)
    if n is not None:
        i, j = np.unravel_index(int(np.argmin(ok[n])), ok[n].shape)
        raise fail(n, f"labeling_proofs[{i}].parents[{j}]", "is not the parent's label in its column")
    n = _first_bad(x["enc_parents"] == lab[:, L - 1])
    if n is not None:
        raise fail(n, "encoding_proof.parents", "are not the last layer's labeling parents")
    n = _first_bad(x["enc_layer"] == np.uint64(L))
    if n is not None:
        raise fail(n, "encoding_proof.layer_index", f"{int(x['enc_layer'][n])}, expected {L}")
    n = _first_bad(x["enc_node"] == ch)
    if n is not None:
        raise fail(n, "encoding_proof.node", f"{int(x['enc_node'][n])} is not the challenge {int(ch[n])}")

    out = []
    for p in range(P):
        sl = slice(p * C, (p + 1) * C)
        rows = x["col_rows"][sl]
        out.append(PorepPartitionProof(
            replica_id=c1.replica_id.copy(), comm_d=c1.comm_d.copy(), comm_r=c1.comm_r.copy(),
            comm_c=x["col_root"][p * C, 0].copy(), comm_r_last=x["r_root"][p * C].copy(),
            challenges=ch[sl].astype(np.uint64), parents=col_index[sl, 1:].astype(np.uint64),
            data_leaves=x["d_leaf"][sl],
            data_paths=np.stack([x[f"d_sib{lv}"][sl, 0] for lv in range(cfg.tree_d_depth)], axis=1),
            parent_columns=rows[:, 1:], parent_paths=tuple(x[f"col_sib{lv}"][sl, 1:] for lv in range(len(ar))),
            columns=rows[:, 0], column_paths=tuple(x[f"col_sib{lv}"][sl, 0] for lv in range(len(ar))),
            replica_leaves=x["r_leaf"][sl], replica_paths=tuple(x[f"r_sib{lv}"][sl] for lv in range(len(ar))),
        ))
    return out
