"""Poseidon parameter sets: x^5, 128-bit security, width t = arity + 1.

R_F = 8 and R_P come from the reference round-number script
(`round_numbers`), with R_P rounded up to a multiple of t as the reference
parameter script's header prescribes ("R_P is increased to the closest
multiple of t"); this reproduces the published instances x5_255_3 (57),
x5_255_5 (60), x5_254_3 (57), x5_254_5 (60) and circomlib's BN254 table.
Round constants and the MDS matrix come from the Grain LFSR (`grain`), with
field size n = bit length of r (255 for BLS12-381, 254 for BN254).

Generation runs in Python once per (curve, arity) and is cached in memory
and on disk (next to the compiled kernels), keyed by a version tag.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from cuzk.field import fields_of
from cuzk.user_dirs import build_cache_dir

from . import fp_linalg as la
from . import grain
from .round_numbers import round_numbers

ARITIES = (2, 4, 8, 11)
ALPHA = 5
SECURITY_BITS = 128
_CACHE_VERSION = "grain-v1"


@dataclass(frozen=True, eq=False)
class PoseidonParams:
    curve: str
    t: int
    R_F: int
    R_P: int
    round_constants: tuple[tuple[int, ...], ...]  # [R_F + R_P][t], canonical ints
    mds: tuple[tuple[int, ...], ...]  # [t][t]; new_state[i] = sum_j mds[i][j] * state[j]
    p: int

    @property
    def arity(self) -> int:
        return self.t - 1

    @property
    def rounds(self) -> int:
        return self.R_F + self.R_P

    def is_full_round(self, r: int) -> bool:
        half = self.R_F // 2
        return r < half or r >= half + self.R_P

    @functools.cached_property
    def rc_mont(self) -> np.ndarray:
        """uint64[R_F + R_P, t, 4] Montgomery round constants."""
        fr = fields_of(self.curve)[0]
        flat = [c for row in self.round_constants for c in row]
        return np.ascontiguousarray(fr.from_ints(flat).reshape(self.rounds, self.t, fr.limbs))

    @functools.cached_property
    def sparse(self) -> "SparsePartialRounds":
        """The sparse-matrix form of the partial rounds (for the native kernels)."""
        return sparse_partial_rounds(self)

    @functools.cached_property
    def mds_mont(self) -> np.ndarray:
        """uint64[t, t, 4] Montgomery MDS matrix."""
        fr = fields_of(self.curve)[0]
        flat = [c for row in self.mds for c in row]
        return np.ascontiguousarray(fr.from_ints(flat).reshape(self.t, self.t, fr.limbs))


@dataclass(frozen=True, eq=False)
class SparsePartialRounds:
    """The partial rounds rewritten with sparse matrices (Montgomery arrays).

    Each dense matrix D met going backwards through the partial rounds (M,
    then A_{r+1} M) is factored D = B_r A_r, with A_r = diag(1, D[1:,1:])
    and B_r = [[d00, D[0,1:] A^-1], [D[1:,0], I]]. A_r commutes with an
    S-box on element 0 only, so it moves into the round constants
    (c_r -> A_r c_r) and, for r = 0, into the last full round before the
    partial rounds (M -> A_0 M). Element 0, the only S-box input, is
    unchanged; a partial round costs 2t - 1 multiplications instead of t^2.
    """

    first_mds: np.ndarray  # uint64[t, t, 4]: A_0 M, the MDS of round R_F/2 - 1
    constants: np.ndarray  # uint64[R_P, t, 4]: A_r c_r
    b00: np.ndarray  # uint64[R_P, 4]
    row: np.ndarray  # uint64[R_P, t - 1, 4]: B_r[0, 1:]
    col: np.ndarray  # uint64[R_P, t - 1, 4]: B_r[1:, 0]


def sparse_partial_rounds(P: PoseidonParams) -> SparsePartialRounds:
    p, t, half = P.p, P.t, P.R_F // 2
    M = [list(r) for r in P.mds]
    D = M
    consts, b00, rows, cols = [None] * P.R_P, [None] * P.R_P, [None] * P.R_P, [None] * P.R_P
    for r in range(P.R_P - 1, -1, -1):
        A_hat = [row[1:] for row in D[1:]]
        A = [[1] + [0] * (t - 1)] + [[0] + row for row in A_hat]
        rows[r] = la.mat_vec([list(c) for c in zip(*la.mat_inv(A_hat, p))], D[0][1:], p)  # D0^T A^-1
        cols[r] = [row[0] for row in D[1:]]
        b00[r] = D[0][0]
        consts[r] = la.mat_vec(A, P.round_constants[half + r], p)
        D = la.mat_mul(A, M, p)
    fr = fields_of(P.curve)[0]
    L = fr.limbs

    def mont(values, shape):
        return np.ascontiguousarray(fr.from_ints(list(la.flatten(values))).reshape(shape + (L,)))

    return SparsePartialRounds(
        mont(D, (t, t)), mont(consts, (P.R_P, t)), mont(b00, (P.R_P,)),
        mont(rows, (P.R_P, t - 1)), mont(cols, (P.R_P, t - 1)),
    )


def partial_rounds(p: int, t: int) -> int:
    r_p = round_numbers(p, t, ALPHA, SECURITY_BITS)[1]
    return -(-r_p // t) * t


@functools.cache
def poseidon_params(curve: str, arity: int) -> PoseidonParams:
    """The parameter set for `arity` inputs on `curve`'s scalar field."""
    p = fields_of(curve)[0].p
    t = arity + 1
    R_F = round_numbers(p, t, ALPHA, SECURITY_BITS)[0]
    R_P = partial_rounds(p, t)
    rc, mds = _load_or_generate(p, t, R_F, R_P)
    return PoseidonParams(
        curve, t, R_F, R_P,
        tuple(tuple(rc[r * t : (r + 1) * t]) for r in range(R_F + R_P)),
        tuple(tuple(row) for row in mds), p,
    )


def _load_or_generate(p: int, t: int, R_F: int, R_P: int):
    path = build_cache_dir() / "poseidon" / f"{_CACHE_VERSION}_{p:x}_{t}_{R_F}_{R_P}.json"
    try:
        data = json.loads(path.read_text())
        return [int(x, 16) for x in data["rc"]], [[int(x, 16) for x in row] for row in data["mds"]]
    except (OSError, ValueError, KeyError):
        pass
    rc, mds = grain.generate(p, t, R_F, R_P, ALPHA)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump({"rc": [hex(x) for x in rc], "mds": [[hex(x) for x in row] for row in mds]}, fh)
        os.replace(tmp, path)
    except OSError:
        pass
    return rc, mds
