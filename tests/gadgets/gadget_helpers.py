"""Shared helpers of the gadget tests: satisfaction through the compiled
circuit (PCE) path and the 'flip one aux value' corruption check."""

from __future__ import annotations

import numpy as np

from cuzk.r1cs import check_satisfied, evaluate


def corrupted_value(v: int) -> int:
    """0 <-> 1 for bits, v + 1 otherwise."""
    return 1 - v if v in (0, 1) else v + 1


def _column_entries(matrix, num_rows, targets):
    """{column: [(row, coeff index)]} for the target columns of a CSR matrix."""
    indptr = np.asarray(matrix.indptr[: num_rows + 1], dtype=np.int64)
    end = int(indptr[-1])
    cols = np.asarray(matrix.cols[:end], dtype=np.int64)
    rows = np.repeat(np.arange(num_rows, dtype=np.int64), np.diff(indptr))
    hit = np.isin(cols, targets)
    out: dict[int, list[tuple[int, int]]] = {}
    for r, c, k in zip(rows[hit].tolist(), cols[hit].tolist(), np.asarray(matrix.coeff_idx[:end])[hit].tolist()):
        out.setdefault(c, []).append((r, k))
    return out


def assert_satisfied_and_tamper_evident(cs, aux_indices=None, rng=None, samples: int | None = None):
    """The honest witness satisfies the compiled circuit, and changing any one
    chosen aux value (default: all, or `samples` random ones) makes some
    constraint fail. Only the rows that touch the changed column are
    re-evaluated (with Python ints), so checking every aux stays cheap."""
    cc, w = cs.compile(), cs.witness()
    assert check_satisfied(cc, w) is None
    if aux_indices is None:
        aux_indices = np.arange(cs.num_aux)
        if samples is not None and samples < cs.num_aux:
            rng = rng or np.random.default_rng(0)
            aux_indices = rng.choice(cs.num_aux, size=samples, replace=False)
    cols = np.asarray(aux_indices, dtype=np.int64) + cc.num_inputs
    p, fr = cs.modulus, cs.fr
    table = cc.coefficient_ints()
    values = [fr.to_ints(x) for x in evaluate(cc, w)]  # honest a, b, c per row
    entries = [_column_entries(m, cc.num_rows, cols) for m in cc.matrices]
    wcols = fr.to_ints(w[cols])
    for col, old in zip(cols.tolist(), wcols):
        delta = corrupted_value(old) - old
        rows = {r for e in entries for r, _ in e.get(col, ())}
        new = [{r: values[m][r] for r in rows} for m in range(3)]
        for m in range(3):
            for r, k in entries[m].get(col, ()):
                new[m][r] = (new[m][r] + table[k] * delta) % p
        broken = any((new[0][r] * new[1][r] - new[2][r]) % p for r in rows)
        assert broken, f"aux {col - cc.num_inputs} is unconstrained"
