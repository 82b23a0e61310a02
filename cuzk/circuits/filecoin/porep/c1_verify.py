"""The vanilla Proof::verify of a decoded C1 output (storage-proofs-porep stacked/vanilla
proof.rs): challenges, parents, every path to its root, comm_r, the labels and the encoding."""

from __future__ import annotations

import numpy as np

from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, non_canonical_rows, to_mont
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, path_roots
from cuzk.errors import ValidationError
from cuzk.gadgets.sha256.filecoin import sha254_many

from .c1_layout import WHERE, _FR_FIELDS, C1Output, _col_name, _column_hashes, _digits, _first_bad, _hex, _labeling_parents
from .challenges import interactive_challenges
from .config import DEGREE, TOTAL_PARENTS
from .sdr import SdrGraph

# ---------------------------------------------------------------- the semantic check


def check_c1(c1: C1Output) -> None:
    """Vanilla Proof::verify for every partition and challenge, batched (one hash call per tree
    level for all paths): challenges derived from replica_id and seed (interactive PoRep; synthetic
    and non-interactive PoRep draw theirs otherwise and are only range-checked), parents from the
    graph, tree D paths (sha254) to comm_d, tree C paths (Poseidon, the shape's arities) of the
    columns' hashes to comm_c, tree R-last paths to comm_r_last, Poseidon2(comm_c, comm_r_last) =
    comm_r, each layer's label of the challenged column, and replica = data + last label.
    Raises ValidationError (a ValueError) naming partition, challenge and field."""
    cfg = c1.config
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    parts = c1.partitions
    if len(parts) != P:
        raise ValidationError(f"{WHERE}: {len(parts)} partitions, {c1.proof_name} has {P}")

    def fail(n, name, problem):
        p, c = divmod(int(n), C)
        return ValidationError(f"{WHERE}: partition {p}, challenge {c}: {name}: {problem}")

    for k in _FR_FIELDS:
        if non_canonical_rows(getattr(c1, k)).size:
            raise ValidationError(f"{WHERE}: {k}: not a field element (>= r)")
    for p, part in enumerate(parts):
        for k in ("replica_id", "comm_d", "comm_r"):
            if not np.array_equal(getattr(part, k), getattr(c1, k)):
                raise ValidationError(f"{WHERE}: partition {p}: {k} is not the output's")
    try:
        ch = np.concatenate([np.asarray(p.challenges, dtype=np.uint64) for p in parts])
        parents = np.concatenate([np.asarray(p.parents, dtype=np.uint64) for p in parts]).reshape(P * C, DEGREE)
    except ValueError:
        raise ValidationError(f"{WHERE}: challenges/parents: shapes do not match {c1.proof_name}") from None
    if ch.shape != (P * C,):
        raise ValidationError(f"{WHERE}: expected {C} challenges per partition")
    # challenges and parents
    bad = np.flatnonzero((ch == 0) | (ch >= np.uint64(cfg.nodes)))
    if bad.size:
        raise fail(bad[0], "challenge", f"{int(ch[bad[0]])} is not in 1..{cfg.nodes - 1}")
    if cfg.flavour == "interactive":
        want = np.concatenate([interactive_challenges(cfg, bytes(c1.replica_id), bytes(c1.seed), p)
                               for p in range(P)])
        bad = np.flatnonzero(ch != want)
        if bad.size:
            n = bad[0]
            raise fail(n, "replica_column_proofs.c_x.column.index", f"challenge {int(ch[n])}, but replica_id and "
                                                                    f"seed derive {int(want[n])}")
    graph = SdrGraph.for_proof(c1.registered_proof)
    want = graph.parents(ch.astype(np.int64)).astype(np.uint64)
    ok = parents == want
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j + 1) + ".column.index", f"{int(parents[n, j])} is not the graph's parent "
                                                          f"{int(want[n, j])}")
    # tree D (sha254, binary) to comm_d
    cur = np.concatenate([p.data_leaves for p in parts]).astype(np.uint8)
    dpaths = np.concatenate([p.data_paths for p in parts])
    for lv in range(cfg.tree_d_depth):
        bit = ((ch >> np.uint64(lv)) & np.uint64(1)).astype(bool)[:, None]
        sib = dpaths[:, lv]
        cur = sha254_many(np.concatenate([np.where(bit, sib, cur), np.where(bit, cur, sib)], axis=1))
    n = _first_bad(cur == c1.comm_d)
    if n is not None:
        raise fail(n, "comm_d_proofs", f"the data leaf and path hash to {_hex(cur[n])}, not comm_d {_hex(c1.comm_d)}")
    # tree C and tree R-last (Poseidon)
    rows = np.concatenate([np.concatenate([np.asarray(p.columns)[:, None], p.parent_columns], axis=1)
                           for p in parts])  # [N, 15, L, 32]
    leaves = _column_hashes(rows).reshape(-1, 32)
    col_index = np.concatenate([ch[:, None], parents], axis=1).reshape(-1)
    sibs = [np.concatenate([np.concatenate([np.asarray(p.column_paths[lv])[:, None], p.parent_paths[lv]], axis=1)
                            for p in parts]).reshape(-1, ar[lv] - 1, 32) for lv in range(len(ar))]
    rleaves = np.concatenate([p.replica_leaves for p in parts])
    rsibs = [np.concatenate([p.replica_paths[lv] for p in parts]) for lv in range(len(ar))]
    roots = path_roots(np.concatenate([leaves, rleaves]), [np.concatenate([s, r]) for s, r in zip(sibs, rsibs)],
                       _digits(np.concatenate([col_index, ch]), ar))
    croots = roots[:len(leaves)].reshape(P * C, DEGREE + 1, 32)
    rroots = roots[len(leaves):]
    comm_c = np.repeat(np.stack([p.comm_c for p in parts]), C * (DEGREE + 1), axis=0).reshape(P * C, DEGREE + 1, 32)
    ok = (croots == comm_c).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j), f"the column's hash and tree C path hash to {_hex(croots[n, j])}, not "
                                    f"comm_c {_hex(comm_c[n, j])}")
    comm_r_last = np.repeat(np.stack([p.comm_r_last for p in parts]), C, axis=0)
    n = _first_bad(rroots == comm_r_last)
    if n is not None:
        raise fail(n, "comm_r_last_proof", f"the replica leaf and path hash to {_hex(rroots[n])}, not "
                                           f"comm_r_last {_hex(comm_r_last[n])}")
    calc = comm_r_of(np.stack([p.comm_c for p in parts]), np.stack([p.comm_r_last for p in parts]))
    for p in range(P):
        if not np.array_equal(calc[p], c1.comm_r):
            raise ValidationError(f"{WHERE}: partition {p}: comm_r: Poseidon(comm_c, comm_r_last) = "
                                  f"{_hex(calc[p])} is not comm_r {_hex(c1.comm_r)}")
    # labels (labeling_proof.rs create_label) and the encoding (encoding_proof.rs verify)
    lab = _labeling_parents(rows)  # [N, L, 37, 32]
    N = P * C
    head = np.zeros((N, L, 64), dtype=np.uint8)
    head[:, :, :32] = np.asarray(c1.replica_id, dtype=np.uint8)
    head[:, :, 32:36] = np.arange(1, L + 1, dtype=">u4").view(np.uint8).reshape(L, 4)
    head[:, :, 36:44] = ch.astype(">u8").view(np.uint8).reshape(N, 1, 8)
    msgs = np.concatenate([head, lab.reshape(N, L, TOTAL_PARENTS * 32)], axis=2).reshape(N * L, -1)
    labels = sha254_many(msgs).reshape(N, L, 32)
    ok = (labels == rows[:, 0]).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        layer = int(np.argmin(ok[n]))
        raise fail(n, f"replica_column_proofs.c_x.column.rows[{layer}]", f"is not the label its parents give "
                                                                         f"({_hex(labels[n, layer])})")
    data = np.concatenate([p.data_leaves for p in parts])
    enc = from_mont(fr().add(to_mont(rows[:, 0, L - 1]), to_mont(data)))
    n = _first_bad(enc == rleaves)
    if n is not None:
        raise fail(n, "comm_r_last_proof.leaf", f"{_hex(rleaves[n])} is not the data leaf encoded with the last "
                                                f"label ({_hex(enc[n])})")
