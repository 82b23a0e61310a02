"""Circom-shaped circuits of any size, written as a .r1cs and a matching .wtns without circom.

The latency benchmark needs BN254 circuits of ~10k, 2^16 and 2^20
constraints; the circom fixtures stop at ~3k and there is no circom
compiler on the benchmark machines. This writes what circom would: wire
order [1, out, pub, private inputs, internal], rows whose A and B hold a
few terms and C one, plus purely linear rows (A = B = 0, circom's --O1
leftovers), coefficients +-1, small constants and full-size field elements.

The circuit is `lanes` chains advanced in lock step; per step, for lane j:

    mul:    (x_j + c_t) * (x_{j+1} - k_{j mod 4}) = x'_j       A 2 terms, B 2, C 1
    linear: 0 * 0 = x_j + 2 x_{j+1} - s_j  (s_j replaces x_j)  A 0, B 0, C 3

one linear step after every LINEAR_EVERY mul steps, and at the end
out = x_0 * pub. Rows are generated one step (all lanes) at a time with
numpy, and the witness with the field's vector kernels, so 2^20 rows take
seconds. `constraints` is exact: the last step may cover only some lanes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cuzk.curve import CURVES
from cuzk.formats.circom_r1cs import constraint_records, write_r1cs
from cuzk.formats.wtns import write_wtns

LINEAR_EVERY = 7
N_KEYS = 4


@dataclass(frozen=True)
class CircomLike:
    r1cs: Path
    wtns: Path
    constraints: int
    wires: int
    n_public: int  # outputs + public inputs


def default_lanes(constraints: int) -> int:
    return int(min(1024, max(8, constraints // 64)))


def generate(constraints: int, r1cs: Path, wtns: Path, curve: str = "bn254", lanes: int | None = None,
             seed: int = 1) -> CircomLike:
    """Write `r1cs` and `wtns` for a circuit of exactly `constraints` rows (>= 2)."""
    if constraints < 2:
        raise ValueError("circom_like: need at least 2 constraints")
    fr = CURVES[curve].fr
    lanes = min(lanes or default_lanes(constraints), constraints - 1)
    rng = np.random.default_rng(seed)
    n_out, n_pub, n_prv = 1, 1, lanes + N_KEYS
    W_OUT, W_PUB, W_X0 = 1, 2, 3
    W_KEY = W_X0 + lanes
    one_c = fr.canonical_from_ints([1])[0]
    minus_one_c = fr.canonical_from_ints([fr.p - 1])[0]
    two_c = fr.canonical_from_ints([2])[0]

    prv = fr.random(n_prv, rng)  # Montgomery
    pub = fr.random(1, rng)
    values = [fr.ones(1), None, pub, prv]  # out filled in at the end
    x_wire = np.arange(W_X0, W_X0 + lanes, dtype=np.uint32)
    x_val = prv[:lanes]
    keys = prv[lanes:]
    key_of_lane = np.arange(lanes) % N_KEYS
    next_wire = W_X0 + n_prv
    blocks, left, step = [], constraints - 1, 0

    def coeffs(rows: int, *cols) -> np.ndarray:
        out = np.empty((rows, len(cols), 4), dtype=np.uint64)
        for i, col in enumerate(cols):
            out[:, i] = col
        return out

    while left:
        r = min(lanes, left)
        nbr = (np.arange(r) + 1) % lanes
        new_wire = np.arange(next_wire, next_wire + r, dtype=np.uint32)
        if step % (LINEAR_EVERY + 1) == LINEAR_EVERY:  # s_j = x_j + 2 x_{j+1}
            new_val = fr.add(x_val[:r], fr.add(x_val[nbr], x_val[nbr]))
            empty = (np.zeros((r, 0), np.uint32), np.zeros((r, 0, 4), np.uint64))
            c = (np.stack([x_wire[:r], x_wire[nbr], new_wire], axis=1), coeffs(r, one_c, two_c, minus_one_c))
            blocks.append(constraint_records(empty, empty, c))
        else:  # x'_j = (x_j + c_t) * (x_{j+1} - k_j)
            ct_c = fr.random(1, rng)  # a full-size constant (canonical limbs below p)
            ct = fr.to_mont(ct_c)
            kj = keys[key_of_lane[:r]]
            new_val = fr.mul(fr.add(x_val[:r], np.broadcast_to(ct, (r, 4))), fr.sub(x_val[nbr], kj))
            a = (np.stack([x_wire[:r], np.zeros(r, np.uint32)], axis=1), coeffs(r, one_c, ct_c[0]))
            b = (np.stack([x_wire[nbr], W_KEY + key_of_lane[:r].astype(np.uint32)], axis=1),
                 coeffs(r, one_c, minus_one_c))
            c = (new_wire[:, None], coeffs(r, one_c))
            blocks.append(constraint_records(a, b, c))
        values.append(new_val)
        x_wire, x_val = x_wire.copy(), x_val.copy()
        x_wire[:r], x_val[:r] = new_wire, new_val
        next_wire += r
        left -= r
        step += 1

    out_val = fr.mul(x_val[:1], pub)  # out = x_0 * pub
    values[1] = out_val
    a = (np.array([[x_wire[0]]], np.uint32), coeffs(1, one_c))
    b = (np.array([[W_PUB]], np.uint32), coeffs(1, one_c))
    c = (np.array([[W_OUT]], np.uint32), coeffs(1, one_c))
    blocks.append(constraint_records(a, b, c))
    w = np.concatenate(values)
    assert len(w) == next_wire
    r1cs, wtns = Path(r1cs), Path(wtns)
    write_r1cs(r1cs, curve, next_wire, n_out, n_pub, n_prv, blocks)
    write_wtns(wtns, curve, fr.from_mont(w))
    return CircomLike(r1cs, wtns, constraints, next_wire, n_out + n_pub)
