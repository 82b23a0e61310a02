"""SnarkPack aggregation of n Groth16 proofs of one circuit.

Steps (bellperson's `aggregate_proofs`): commit to A, B (pair) and C
(single); hcom = H("hcom", commitments); r = H("random-r", hcom, statement
digest); B_i <- B_i^(r^i) and w <- w^(r^-i) (the commitment is unchanged);
ip_ab = prod e(A_i, B_i^(r^i)) and agg_c = sum r^i C_i; GIPA for TIPP and
MIPP together; z = H("random-z", extra, final keys, final A, B, C); KZG
openings of the final keys at z. n is padded to a power of two (at least 2)
by repeating the last proof; its public inputs are repeated the same way.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cuzk.backend.timing import Laps
from cuzk.curve import endo_mul

from . import encoding, gipa, gt, kzg, srs
from .pairings import SharedPairs
from .errors import AggregateInputError
from .proof_format import AggregateProof
from .transcript import Transcript


def pad(arr: np.ndarray, n: int) -> np.ndarray:
    """arr with its last row repeated up to n rows."""
    if len(arr) == n:
        return np.ascontiguousarray(arr)
    return np.concatenate([arr, np.repeat(arr[-1:], n - len(arr), axis=0)])


def hcom_challenge(curve, coms: bytes) -> int:
    """coms: the bytes of com_ab then com_c."""
    return Transcript(curve, "hcom").bytes(coms).challenge()


def r_challenge(curve, hcom: int, include: bytes) -> int:
    return Transcript(curve, "random-r").fr(hcom).bytes(include).challenge()


def z_challenge(curve, extra: int, keys: bytes, finals: bytes) -> int:
    """keys: final_vkey then final_wkey; finals: final A, B, C."""
    return Transcript(curve, "random-z").fr(extra).bytes(keys).bytes(finals).challenge()


def _powers(fr, s: int, n: int) -> np.ndarray:
    return kzg._powers_mont(fr, s, n)


def aggregate(pk: srs.ProverKey, a: np.ndarray, b: np.ndarray, c: np.ndarray, include: bytes, backend,
              timings: dict | None = None) -> AggregateProof:
    """Aggregate proofs given as arrays A (G1[m]), B (G2[m]), C (G1[m]), m <= pk.n, padded here.
    The points must lie in the prime-order subgroups (decoders check it): the folds use
    endomorphism-split scalar multiplication (cuzk.curve.endo_mul)."""
    curve, n = pk.curve, pk.n
    fr, g1, g2 = curve.fr, curve.g1, curve.g2
    m = len(a)
    if not (len(b) == len(c) == m) or m == 0:
        raise AggregateInputError("A, B and C must hold the same number (>= 1) of points")
    if srs.padded_count(m) != n:
        raise AggregateInputError(f"{m} proofs pad to {srs.padded_count(m)}, the prover key is for {n}")
    laps = Laps(timings)
    t, lap = laps.t, laps.lap

    a, b, c = pad(a, n), pad(b, n), pad(c, n)
    v, w = (pk.v1, pk.v2), (pk.w1, pk.w2)
    sp = SharedPairs(curve.name, 4, backend)  # pair(v, w, A, B) and single(v, C), grouped by G2 point
    sp.add(v[0], [(a, 0), (c, 2)])
    sp.add(v[1], [(a, 1), (c, 3)])
    sp.add(b, [(w[0], 0), (w[1], 1)])
    coms = sp.products()
    com_ab, com_c = coms[0:2], coms[2:4]
    lap("commit")
    hcom = hcom_challenge(curve, gt.encode(curve.name, coms))
    r = r_challenge(curve, hcom, include)
    r_vec = _powers(fr, r, n)
    rinv_can = fr.from_mont(_powers(fr, pow(r, -1, fr.p), n))
    b_r = endo_mul.mul_add(g2, b, fr.from_mont(r_vec))
    w_r = (endo_mul.mul_add(g1, pk.w1, rinv_can), endo_mul.mul_add(g1, pk.w2, rinv_can))
    lap("rescale")
    agg_c = backend.msm(curve, "g1", c, fr.from_mont(r_vec))
    lap("ip_ab_agg_c")  # ip_ab is computed by GIPA's first round (its pairs share B_L's and B_R's steps)
    agg_c_bytes = encoding.encode_points(g1, agg_c[None])

    def seed(ip_ab):
        return gipa.seed_challenge(curve, hcom, gt.encode(curve.name, ip_ab) + agg_c_bytes, r)

    res = gipa.prove(curve, backend, a, b_r, c, r_vec, v, w_r, seed, t)
    ip_ab = res.ip_ab
    lap("gipa")
    keys = encoding.encode_points(g2, res.final_vkey) + encoding.encode_points(g1, res.final_wkey)
    z = z_challenge(curve, res.extra, keys, gipa.finals_bytes(curve, res.final_a, res.final_b, res.final_c))
    xs_rev, xs_inv_rev = res.challenges[::-1], res.challenges_inv[::-1]
    f_v = kzg.product_form_coeffs(fr, xs_inv_rev, 1)
    f_w = np.concatenate([fr.zeros(n), kzg.product_form_coeffs(fr, xs_rev, pow(r, -1, fr.p))])
    vkey_opening = kzg.open_at(backend, curve, "g2", pk.h_alpha, pk.h_beta, f_v, z)
    wkey_opening = kzg.open_at(backend, curve, "g1", pk.g_alpha, pk.g_beta, f_w, z)
    lap("kzg")
    gipa_proof = {f.name: getattr(res, f.name) for f in dataclasses.fields(gipa.GipaProof)}
    return AggregateProof(**gipa_proof, curve=curve, com_ab=com_ab, com_c=com_c, ip_ab=ip_ab, agg_c=agg_c, nproofs=n,
                          vkey_opening=vkey_opening, wkey_opening=wkey_opening)
