"""The numba kernels that read a .zkey's section 4 (the A and B coefficients, 44-byte records) and
check its points against the field modulus: they scan the records once for their shape, then fill
the CSR matrices (zkey.py's ZKey.matrices and its point checks call them)."""

from __future__ import annotations

import numpy as np
from numba import njit


# ---- section 4 kernels (records are 44 bytes, so their u64 values sit unaligned: read byte-wise) ----


@njit(cache=True, nogil=True, inline="always")
def _rec_u32(buf, q):
    return np.int64(buf[q]) | (np.int64(buf[q + 1]) << 8) | (np.int64(buf[q + 2]) << 16) | (np.int64(buf[q + 3]) << 24)


@njit(cache=True, nogil=True, inline="always")
def _rec_u64(buf, q):
    v = np.uint64(0)
    for b in range(8):
        v |= np.uint64(buf[q + b]) << np.uint64(8 * b)
    return v


@njit(cache=True, nogil=True)
def _first_not_below(limbs, p):
    """The first row of uint64[n, L] that is not an integer below p (limbs little-endian), or -1."""
    for i in range(limbs.shape[0]):
        below = False
        for j in range(limbs.shape[1] - 1, -1, -1):
            if limbs[i, j] != p[j]:
                below = limbs[i, j] < p[j]
                break
        if not below:
            return i
    return -1


@njit(cache=True, nogil=True)
def _gather_rows(words, keep, out, p, limbs):
    """out[k] = words[keep[k]] (keep sorted ascending); returns the first row that is kept with a
    coordinate not below p or not kept but non-zero, else -1. `words` may sit unaligned in the mmap."""
    k = 0
    n_keep = keep.shape[0]
    for i in range(words.shape[0]):
        if k < n_keep and keep[k] == i:
            for c in range(0, words.shape[1], limbs):
                below = False
                for j in range(limbs - 1, -1, -1):
                    v = words[i, c + j]
                    if v != p[j]:
                        below = v < p[j]
                        break
                if not below:
                    return i
                for j in range(limbs):
                    out[k, c + j] = words[i, c + j]
            k += 1
        else:
            for j in range(words.shape[1]):
                if words[i, j] != 0:
                    return i
    return -1


@njit(cache=True, nogil=True)
def _coeff_scan(buf, start, count, domain, n_vars, p4, stored_pm1, first_bad, cls, per_row):
    """Check every record (first bad one per kind into first_bad: matrix, row, signal, value),
    classify its value (0: +1, 1: -1, 2: other), count terms per (matrix, row); returns max row + 1."""
    rows = 0
    v = np.empty(4, np.uint64)
    for i in range(count):
        q = start + 44 * i
        mat, row, sig = _rec_u32(buf, q), _rec_u32(buf, q + 4), _rec_u32(buf, q + 8)
        ok = True
        if mat > 1:
            ok = False
            if first_bad[0] < 0:
                first_bad[0] = i
        if row >= domain:
            ok = False
            if first_bad[1] < 0:
                first_bad[1] = i
        if sig >= n_vars:
            ok = False
            if first_bad[2] < 0:
                first_bad[2] = i
        for j in range(4):
            v[j] = _rec_u64(buf, q + 12 + 8 * j)
        below = False  # v < p, comparing from the top limb
        for j in range(3, -1, -1):
            if v[j] != p4[j]:
                below = v[j] < p4[j]
                break
        if not below:
            ok = False
            if first_bad[3] < 0:
                first_bad[3] = i
        c = 2
        for k in range(2):
            same = True
            for j in range(4):
                if v[j] != stored_pm1[k, j]:
                    same = False
                    break
            if same:
                c = k
                break
        cls[i] = c
        if ok:
            per_row[mat, row] += 1
            if row + 1 > rows:
                rows = row + 1
    return rows


@njit(cache=True, nogil=True)
def _coeff_fill(buf, start, count, positions, num_rows, cls, cursor, cols, idx, others, a_seen, b_seen):
    """Place record i at the next free slot of its row: signal, table index (0, 1, or 2 + its rank
    among the other values, whose stored limbs go to `others`)."""
    k = 0
    for i in range(count):
        q = start + 44 * i
        mat, row, sig = _rec_u32(buf, q), _rec_u32(buf, q + 4), _rec_u32(buf, q + 8)
        key = mat * num_rows + positions[row]
        slot = cursor[key]
        cursor[key] = slot + 1
        cols[slot] = sig
        if cls[i] == 2:
            for j in range(4):
                others[k, j] = _rec_u64(buf, q + 12 + 8 * j)
            idx[slot] = 2 + k
            k += 1
        else:
            idx[slot] = cls[i]
        if mat == 0:
            a_seen[sig] = True
        else:
            b_seen[sig] = True
