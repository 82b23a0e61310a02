"""neptune v11 Poseidon constants on BLS12-381 Fr, as Filecoin instantiates them.

Filecoin (rust-fil-proofs, filecoin-hashers) uses neptune's
`PoseidonConstants::<Fr, A>::new()`: Strength::Standard, HashType::MerkleTree.
That parameter set is not the reference instance of `params.py`:

* round numbers: `neptune_rounds` (neptune's own f32 port, no rounding of
  R_P to a multiple of t);
* round constants: the Grain LFSR seeded with sbox = 1 (the reference uses
  0 for x^alpha) and n = 255, rejection of draws >= r;
* MDS matrix: the Cauchy matrix 1/(x_i + y_j) with x = 0..t-1, y = t..2t-1
  (symmetric; no Grain draws, no security re-draws);
* domain tag (state element 0): 2^arity - 1; output: state element 1.

neptune's circuit and fast hash run on preprocessed constants, derived here
exactly as neptune's preprocessing.rs / mds.rs do (matrices are lists of
rows; neptune multiplies state vectors from the left, v^T A, see `vec_mat`):
round constants compressed so a constant is only added after an S-box, and
the partial rounds' MDS factored into a dense "pre-sparse" matrix followed by
one sparse matrix per partial round. The circuit's linear combinations are
built from these numbers, so they must be neptune's to the last bit.

Generation takes seconds in Python (matrix inversions up to 36x36, R_P
times), so results are cached in memory and on disk beside `params.py`'s
cache, keyed by a version tag.
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
from .neptune_rounds import STRENGTHS, neptune_round_numbers

CURVE = "bls12_381"
ARITIES = (2, 4, 8, 11, 16, 24, 36)  # the arities filecoin-hashers instantiates
_CACHE_VERSION = "neptune11-v1"
_SBOX = 1  # neptune's Grain seed value for x^5
_FIELD = 1  # GF(p)

Matrix = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, eq=False)
class SparseMatrix:
    """neptune's M'': identity except a dense first column `w_hat` (t entries,
    w_hat[0] the corner) and first row `v_rest` (the t - 1 entries after the corner)."""

    w_hat: tuple[int, ...]
    v_rest: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class NeptuneConstants:
    """neptune's PoseidonConstants: the raw parameters (for the textbook permutation)
    and the preprocessed ones its fast hash and its circuit consume."""

    arity: int
    strength: str
    R_F: int
    R_P: int
    domain_tag: int
    round_constants: tuple[int, ...]  # flat [(R_F + R_P) * t], canonical ints
    mds: Matrix  # [t][t]
    mds_inv: Matrix
    compressed_round_constants: tuple[int, ...]  # flat [R_F * t + R_P]
    pre_sparse_matrix: Matrix  # the MDS of round R_F/2 - 1
    sparse_matrices: tuple[SparseMatrix, ...]  # [R_P], one per partial round
    p: int

    @property
    def t(self) -> int:
        return self.arity + 1

    @property
    def half_full_rounds(self) -> int:
        return self.R_F // 2

    def round_keys(self, r: int) -> tuple[int, ...]:
        return self.round_constants[r * self.t : (r + 1) * self.t]

    # ---- Montgomery arrays for the kernels --------------------------------
    @functools.cached_property
    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """(tag uint64[4], compressed constants [R_F t + R_P, 4], mds [t, t, 4],
        pre_sparse [t, t, 4], w_hat [R_P, t, 4], v_rest [R_P, t - 1, 4]), Montgomery."""
        fr = fields_of(CURVE)[0]
        t, rp = self.t, self.R_P

        def mont(values, shape):
            return np.ascontiguousarray(fr.from_ints(list(la.flatten(values))).reshape(shape + (fr.limbs,)))

        return (
            mont([self.domain_tag], (1,))[0].copy(),
            mont(self.compressed_round_constants, (len(self.compressed_round_constants),)),
            mont(self.mds, (t, t)),
            mont(self.pre_sparse_matrix, (t, t)),
            mont([s.w_hat for s in self.sparse_matrices], (rp, t)),
            mont([s.v_rest for s in self.sparse_matrices], (rp, t - 1)),
        )


# ---- neptune's matrix helpers (matrix.rs / mds.rs semantics) -----------------


def vec_mat(v, m, p):
    """neptune's `apply_matrix(m, v)`: the row vector v times m, [sum_i v_i m[i][j]]_j."""
    n = len(v)
    return [sum(v[i] * m[i][j] for i in range(n)) % p for j in range(n)]


def cauchy_mds(t: int, p: int) -> list[list[int]]:
    return [[pow(x + y, -1, p) for y in range(t, 2 * t)] for x in range(t)]


def _factor(curr, p):
    """(M', M'') of neptune's `derive_mds_matrices`: M' = diag(1, M_hat);
    M'' = [[m00, m[0][1:]], [w_hat, I]] with w_hat = w^T M_hat^-1, w = m[1:][0]."""
    t = len(curr)
    m_hat = [row[1:] for row in curr[1:]]
    w_hat = vec_mat([row[0] for row in curr[1:]], la.mat_inv(m_hat, p), p)
    m_prime = [[1] + [0] * (t - 1)] + [[0] + list(row) for row in m_hat]
    m_double_prime = [[curr[0][0]] + list(curr[0][1:])]
    for i in range(1, t):
        row = [0] * t
        row[0], row[i] = w_hat[i - 1], 1
        m_double_prime.append(row)
    return m_prime, m_double_prime


def factor_to_sparse(mds, n: int, p: int):
    """neptune's `factor_to_sparse_matrixes`: (pre-sparse matrix, [SparseMatrix] * n)."""
    curr, sparse = mds, []
    for _ in range(n):
        m_prime, m_double_prime = _factor(curr, p)
        sparse.append(m_double_prime)
        curr = la.mat_mul(mds, m_prime, p)
    sparse.reverse()
    return curr, [SparseMatrix(tuple(row[0] for row in m), tuple(m[0][1:])) for m in sparse]


def compress_round_constants(rc, t: int, R_F: int, R_P: int, mds_inv, p: int) -> list[int]:
    """neptune's `compress_round_constants` with every partial round preprocessed:
    the first round's keys as they are, then one post-S-box key per S-box."""
    keys = lambda r: rc[r * t : (r + 1) * t]  # noqa: E731
    half = R_F // 2
    res = list(keys(0))
    for i in range(half - 1):
        res += vec_mat(keys(i + 1), mds_inv, p)
    final_round = half + R_P
    acc = list(keys(final_round))
    partial_keys = []
    for i in range(R_P):
        inverted = vec_mat(acc, mds_inv, p)
        partial_keys.append(inverted[0])
        inverted[0] = 0
        acc = [(a + b) % p for a, b in zip(keys(final_round - i - 1), inverted)]
    res += vec_mat(acc, mds_inv, p)
    res += partial_keys[::-1]
    for i in range(1, half):
        res += vec_mat(keys(i + final_round), mds_inv, p)
    return res


# ---- generation and caching --------------------------------------------------------


def _generate(arity: int, strength: str) -> dict:
    p = fields_of(CURVE)[0].p
    t = arity + 1
    R_F, R_P = neptune_round_numbers(arity, strength)
    n = p.bit_length()
    rc = grain.round_constants(grain.Grain(_FIELD, _SBOX, n, t, R_F, R_P), n, t, R_F, R_P, p)
    mds = cauchy_mds(t, p)
    mds_inv = la.mat_inv(mds, p)
    pre_sparse, sparse = factor_to_sparse(mds, R_P, p)
    return {
        "R_F": R_F, "R_P": R_P, "rc": rc, "mds": mds, "mds_inv": mds_inv,
        "compressed": compress_round_constants(rc, t, R_F, R_P, mds_inv, p),
        "pre_sparse": pre_sparse,
        "w_hat": [list(s.w_hat) for s in sparse], "v_rest": [list(s.v_rest) for s in sparse],
    }


def _to_json(x):
    return [_to_json(y) for y in x] if isinstance(x, (list, tuple)) else (hex(x) if isinstance(x, int) else x)


def _from_json(x):
    return [_from_json(y) for y in x] if isinstance(x, list) else int(x, 16)


def _cache_path(arity: int, strength: str):
    return build_cache_dir() / "poseidon" / f"{_CACHE_VERSION}_{strength}_{arity}.json"


def _load_or_generate(arity: int, strength: str) -> dict:
    path = _cache_path(arity, strength)
    t = arity + 1
    try:
        raw = json.loads(path.read_text())
        data = {k: (v if k in ("R_F", "R_P") else _from_json(v)) for k, v in raw.items()}
        if (data["R_F"], data["R_P"]) == neptune_round_numbers(arity, strength) and \
                len(data["compressed"]) == data["R_F"] * t + data["R_P"] and len(data["w_hat"]) == data["R_P"]:
            return data
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    data = _generate(arity, strength)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump({k: (v if k in ("R_F", "R_P") else _to_json(v)) for k, v in data.items()}, fh)
        os.replace(tmp, path)
    except OSError:
        pass
    return data


def _matrix(rows) -> Matrix:
    return tuple(tuple(r) for r in rows)


@functools.cache
def neptune_constants(arity: int, strength: str = "standard") -> NeptuneConstants:
    """neptune's PoseidonConstants<Fr, U{arity}> (HashType::MerkleTree) for BLS12-381 Fr."""
    if arity not in ARITIES:
        raise ValueError(f"arity {arity} not supported; expected one of {ARITIES}")
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r}; expected one of {STRENGTHS}")
    d = _load_or_generate(arity, strength)
    return NeptuneConstants(
        arity=arity, strength=strength, R_F=d["R_F"], R_P=d["R_P"], domain_tag=(1 << arity) - 1,
        round_constants=tuple(d["rc"]), mds=_matrix(d["mds"]), mds_inv=_matrix(d["mds_inv"]),
        compressed_round_constants=tuple(d["compressed"]), pre_sparse_matrix=_matrix(d["pre_sparse"]),
        sparse_matrices=tuple(SparseMatrix(tuple(w), tuple(v)) for w, v in zip(d["w_hat"], d["v_rest"])),
        p=fields_of(CURVE)[0].p,
    )
