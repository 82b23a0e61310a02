"""The GIPA rounds of TIPP (e(A, B) under pair commitments) and MIPP
(sum r^i C_i under single commitments), run together with shared
challenges as in bellperson's `gipa_tipp_mipp` (its version 2 transcript).

Round with vectors of length m, halves L = [:m/2], R = [m/2:]:
  tab_l = pair(v_L, w_R, A_R, B_L)    tab_r = pair(v_R, w_L, A_L, B_R)
  zab_l = prod e(A_R, B_L)            zab_r = prod e(A_L, B_R)
  tuc_l = single(v_L, C_R)            tuc_r = single(v_R, C_L)
  zc_l  = sum r_L C_R                 zc_r  = sum r_R C_L
  x^-1 = H("gipa-<i>", previous x^-1, zab_l, zab_r, zc_l, zc_r, tab_l, tab_r, tuc_l, tuc_r)
then A <- A_L + x A_R, B <- B_L + x^-1 B_R, C <- C_L + x C_R, r <- r_L + x^-1 r_R,
v <- v_L + x^-1 v_R, w <- w_L + x w_R. The first x^-1 is seeded by
H("gipa-0", hcom, ip_ab, agg_c, r). The verifier folds the commitments the
same way: T' = T * L^x * R^(x^-1) for every committed value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.backend.cpu import miller
from cuzk.backend.timing import Laps
from cuzk.curve import endo_mul

from .pairings import SharedPairs
from . import encoding, gt
from .transcript import Transcript


@dataclass
class GipaProof:
    """What GIPA sends the verifier: each round's commitments and the folded values at the end."""
    comms_ab: np.ndarray  # GT[l, 2 (L, R), 2 (T, U)]
    comms_c: np.ndarray  # GT[l, 2, 2]
    z_ab: np.ndarray  # GT[l, 2]
    z_c: np.ndarray  # G1[l, 2]
    final_a: np.ndarray
    final_b: np.ndarray
    final_c: np.ndarray
    final_vkey: np.ndarray  # G2[2]
    final_wkey: np.ndarray  # G1[2]


@dataclass
class GipaResult(GipaProof):
    """The proof and the challenges the prover goes on with."""
    challenges: list[int]  # x_j
    challenges_inv: list[int]  # x_j^-1
    extra: int  # the "gipa-extra-link" challenge
    ip_ab: np.ndarray | None = None  # prod e(A_i, B_i), when `prove` computed it (seed given as a function)


def seed_challenge(curve, hcom: int, ip_ab_agg_c: bytes, r: int) -> int:
    """ip_ab_agg_c: the bytes of ip_ab then agg_c."""
    return Transcript(curve, "gipa-0").fr(hcom).bytes(ip_ab_agg_c).fr(r).challenge()


def round_bytes(curve, comm_ab, comm_c, z_ab, z_c) -> bytes:
    """What round i's challenge hashes after the previous challenge: z_ab, z_c, comms_ab, comms_c
    (the same bytes as proof_format.Wire.round)."""
    n = curve.name
    return (gt.encode(n, z_ab) + encoding.encode_points(curve.g1, z_c)
            + gt.encode(n, comm_ab.reshape((4,) + comm_ab.shape[2:]))
            + gt.encode(n, comm_c.reshape((4,) + comm_c.shape[2:])))


def finals_bytes(curve, a, b, c) -> bytes:
    return (encoding.encode_points(curve.g1, a[None]) + encoding.encode_points(curve.g2, b[None])
            + encoding.encode_points(curve.g1, c[None]))


def round_challenge(curve, i: int, prev_inv: int, data: bytes) -> int:
    return Transcript(curve, f"gipa-{i}").fr(prev_inv).bytes(data).challenge()


def extra_challenge(curve, last: int, finals: bytes, last_round: bytes) -> int:
    return Transcript(curve, "gipa-extra-link").fr(last).bytes(finals).bytes(last_round).challenge()


def round_products(curve, backend, aL, aR, bL, bR, cL, cR, vL, vR, wL, wR, with_ip: bool = False,
                   lap=lambda name: None) -> np.ndarray:
    """GT[10]: tab_l (T, U), tab_r (T, U), zab_l, zab_r, tuc_l (T, U), tuc_r (T, U),
    with the pairs grouped by their G2 point (pairings.SharedPairs); with_ip: an
    eleventh, prod e(A, B) over both halves, whose pairs share B_L's and B_R's steps.
    `lap(name)` is called after the Miller loops ("miller") and the final exponentiations."""
    sp = SharedPairs(curve.name, 11 if with_ip else 10, backend)
    sp.add(bL, [(wR[0], 0), (wR[1], 1), (aR, 4)] + ([(aL, 10)] if with_ip else []))
    sp.add(bR, [(wL[0], 2), (wL[1], 3), (aL, 5)] + ([(aR, 10)] if with_ip else []))
    sp.add(vL[0], [(aR, 0), (cR, 6)])
    sp.add(vL[1], [(aR, 1), (cR, 7)])
    sp.add(vR[0], [(aL, 2), (cL, 8)])
    sp.add(vR[1], [(aL, 3), (cL, 9)])
    ml = sp.miller_loops()
    lap("miller")
    out = miller.final_exponentiations(curve.name, ml)
    lap("final_exp")
    return out


def fold(group, fr, left, right, x: int):
    """left + [x] right, elementwise (one kernel: endomorphism-split scalar multiplication
    with the addition of left fused, cuzk.curve.endo_mul)."""
    return endo_mul.mul_add(group, right, x % fr.p, left)


def prove(curve, backend, a, b, c, r_vec, v, w, seed, timings: dict | None = None) -> GipaResult:
    """Run GIPA on A (G1), B^r (G2), C (G1), r powers (Montgomery Fr), keys v = (v1, v2),
    w = (w1 r^-i, w2 r^-i); `seed` is the "gipa-0" challenge, or a function of
    ip_ab = prod e(A_i, B_i) giving it: ip_ab is then computed with the first round's
    products (sharing its G2 points' Miller-loop steps) and returned in the result.
    `timings` gets the rounds' summed sub-phases (ms), as "gipa/miller", "gipa/final_exp",
    "gipa/zc_msm", "gipa/transcript" and "gipa/folds", once all rounds are done."""
    laps = Laps()
    sub, lap = laps.t, laps.lap

    fr, g1, g2 = curve.fr, curve.g1, curve.g2
    v1, v2 = v
    w1, w2 = w
    comms_ab, comms_c, z_ab, z_c, xs, xs_inv = [], [], [], [], [], []
    with_ip = callable(seed)
    x_inv = None if with_ip else seed
    ip_ab = None
    last_round = b""
    i = 0
    while len(a) > 1:
        h = len(a) // 2
        aL, aR, bL, bR, cL, cR = a[:h], a[h:], b[:h], b[h:], c[:h], c[h:]
        rL, rR = r_vec[:h], r_vec[h:]
        vL, vR = (v1[:h], v2[:h]), (v1[h:], v2[h:])
        wL, wR = (w1[:h], w2[:h]), (w1[h:], w2[h:])
        lap("folds")  # the slicing above, with the previous round's folds
        vals = round_products(curve, backend, aL, aR, bL, bR, cL, cR, vL, vR, wL, wR, with_ip and i == 0, lap)
        if x_inv is None:
            ip_ab = vals[10]
            x_inv = seed(ip_ab)
        comm_ab = vals[0:4].reshape((2, 2) + vals.shape[1:])
        zab = vals[4:6]
        comm_c = vals[6:10].reshape((2, 2) + vals.shape[1:])
        lap("transcript")
        zc = np.stack([backend.msm(curve, "g1", cR, fr.from_mont(rL)), backend.msm(curve, "g1", cL, fr.from_mont(rR))])
        lap("zc_msm")
        last_round = round_bytes(curve, comm_ab, comm_c, zab, zc)
        x_inv = round_challenge(curve, i, x_inv, last_round)
        x = pow(x_inv, -1, fr.p)
        lap("transcript")
        a = fold(g1, fr, aL, aR, x)
        b = fold(g2, fr, bL, bR, x_inv)
        c = fold(g1, fr, cL, cR, x)
        r_vec = fr.add(rL, fr.mul(rR, np.broadcast_to(fr.from_int(x_inv), rR.shape)))
        v1, v2 = fold(g2, fr, vL[0], vR[0], x_inv), fold(g2, fr, vL[1], vR[1], x_inv)
        w1, w2 = fold(g1, fr, wL[0], wR[0], x), fold(g1, fr, wL[1], wR[1], x)
        comms_ab.append(comm_ab)
        comms_c.append(comm_c)
        z_ab.append(zab)
        z_c.append(zc)
        xs.append(x)
        xs_inv.append(x_inv)
        i += 1
    lap("folds")
    extra = extra_challenge(curve, xs[-1], finals_bytes(curve, a[0], b[0], c[0]), last_round)
    lap("transcript")
    if timings is not None:
        for name in ("miller", "final_exp", "zc_msm", "transcript", "folds"):
            timings[f"gipa/{name}"] = sub.get(name, 0.0)
    return GipaResult(np.stack(comms_ab), np.stack(comms_c), np.stack(z_ab), np.stack(z_c), a[0], b[0], c[0],
                      np.stack([v1[0], v2[0]]), np.stack([w1[0], w2[0]]), xs, xs_inv, extra, ip_ab)


def verifier_challenges(agg, wire, seed: int) -> tuple[list[int], list[int], int]:
    """The round challenges x_j, x_j^-1 and the extra-link challenge of a parsed
    aggregate, hashing its own bytes (`wire`: proof_format.Wire)."""
    curve = agg.curve
    xs, xs_inv = [], []
    x_inv = seed
    for i in range(agg.rounds):
        x_inv = round_challenge(curve, i, x_inv, wire.round(i))
        xs_inv.append(x_inv)
        xs.append(pow(x_inv, -1, curve.fr.p))
    extra = extra_challenge(curve, xs[-1], wire.span("final_a", "final_c"), wire.round(agg.rounds - 1))
    return xs, xs_inv, extra
