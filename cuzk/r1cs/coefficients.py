"""Coefficients of linear combinations as int64 codes (no per-term objects).

A coefficient is any Python int at the API edge (small ints, field elements,
negative values). Inside a LinearCombination and in the recorder it is an
int64 *code*:

* |c| < 2**62: the code is c itself (the common case: +-1, powers of two);
* otherwise the code is BIG + k, where k indexes a process-wide table of the
  distinct big values seen (circuit constants such as Poseidon's; the table
  is bounded by the number of distinct constants, not by circuit size).

Codes are meaningful only inside one process; values are reduced modulo the
field only when a circuit is compiled (an LC does not know its field).
"""

from __future__ import annotations

import threading

import numpy as np

BIG = 1 << 62

_big_ids: dict[int, int] = {}
_big_values: list[int] = []
_lock = threading.Lock()


def encode(c: int) -> int:
    c = int(c)
    if -BIG < c < BIG:
        return c
    k = _big_ids.get(c)
    if k is None:
        with _lock:
            k = _big_ids.get(c)
            if k is None:
                k = len(_big_values)
                _big_values.append(c)
                _big_ids[c] = k
    return BIG + k


def decode(code: int) -> int:
    code = int(code)
    return _big_values[code - BIG] if code >= BIG else code


DENSE = 1 << 16  # codes in [-DENSE, DENSE] are deduplicated by direct lookup


def codes_to_field(codes: np.ndarray, p: int) -> tuple[np.ndarray, list[int]]:
    """Distinct codes of `codes` -> (inverse index per code, canonical value per distinct code).

    Circuits use few distinct coefficients and most are tiny (+-1, 2^k), so
    tiny codes and big-table codes go through dense lookup tables; only the
    rest (e.g. 2^40) is sorted."""
    codes = np.asarray(codes, dtype=np.int64)
    inverse = np.empty(len(codes), dtype=np.int64)
    classes = [(codes >= -DENSE) & (codes <= DENSE), codes >= BIG]
    classes.append(~(classes[0] | classes[1]))
    uniq_parts = []
    n = 0
    for k, mask in enumerate(classes):
        sel = codes[mask]
        if not len(sel):
            continue
        if k < 2:
            lo = -DENSE if k == 0 else BIG
            present = np.zeros(int(sel.max()) - lo + 1, dtype=bool)
            present[sel - lo] = True
            uniq = np.flatnonzero(present) + lo
            lookup = np.cumsum(present, dtype=np.int64) - 1
            inverse[mask] = lookup[sel - lo] + n
        else:
            uniq, inv = np.unique(sel, return_inverse=True)
            inverse[mask] = inv.reshape(-1) + n
        uniq_parts.append(uniq)
        n += len(uniq)
    values = [decode(u) % p for part in uniq_parts for u in part.tolist()]
    return inverse, values
