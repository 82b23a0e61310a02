"""Verification of a SnarkPack aggregate in O(log n): one multi-Miller loop,
one final exponentiation, one GT multi-exponentiation.

The checks (bellperson's `verify_aggregate_proof`), each given a random
128-bit weight rho_k and merged into a single pairing equation:

  rho1  TIPP  e(A', B') = Z_AB'               (primes: values folded by GIPA)
  rho2  TIPP  e(A', v1') e(w1', B') = T_AB'
  rho3  TIPP  e(A', v2') e(w2', B') = U_AB'
  rho4  MIPP  e(C', v1') = T_C'
  rho5  MIPP  e(C', v2') = U_C'
  rho6,7  KZG  e(g, v1' / h^y_v) = e(g^a / g^z, pi_v1), same with b
  rho8,9  KZG  e(w1' / g^y_w, h) = e(pi_w1, h^a / h^z), same with b
  1     Groth16  ip_ab = e(alpha * sum r^i, beta) e(sum r^i IC_i, gamma) e(agg_c, delta)

Pairs sharing a G2 point are merged on the G1 side, so the Miller loop has
11 pairs whatever n is. The folded GT values T' = T prod L^x R^(1/x) are
never formed: their weighted product is one multi-exponentiation over the
5 + 10 log n GT elements of the aggregate. The MIPP value is checked
directly in G1: agg_c + sum (x zc_l + zc_r / x) = final_r * C'.
"""

from __future__ import annotations

import secrets

import numpy as np

from cuzk.backend.timing import Laps
from cuzk.curve.pairing import final_exponentiation
from cuzk.field.threads import threads_for
from cuzk.field.tower import towers_of

from . import g1_sums, gipa, gt, kzg, pairings, proof_format, side_task, srs
from .errors import AggregateInputError
from .prover import hcom_challenge, r_challenge, z_challenge


# Thread-seconds of the G1 sums, Miller loop and final exponentiation, in GT
# bases of the multi-exponentiation (~0.2 ms each; measured on the 2-core VM).
MAIN_TASK_BASES = 40


def _helper_share(nbases: int) -> int:
    """Bases for the side task so that both threads finish together."""
    return max(0, min(nbases, (nbases + MAIN_TASK_BASES) // 2))


def public_input_terms(pvk, publics_mont: np.ndarray, r: int, n: int):
    """The terms (IC_k, s_k) of sum_j r^j IC(x_j) over the padded inputs
    (Montgomery Fr uint64[n, k, 4]), and r_sum = sum_j r^j (the scalar of IC_0)."""
    curve, vk = pvk.curve, pvk.vk
    fr = curve.fr
    r_sum = (pow(r, n, fr.p) - 1) * pow(r - 1, -1, fr.p) % fr.p
    terms = [(vk.ic[0], r_sum)]
    if publics_mont.shape[1]:
        terms += list(zip(vk.ic[1:], fr.to_ints(kzg.evaluate(fr, publics_mont, r))))
    return terms, r_sum


def verify(vkey: srs.VerifierKey, pvk, publics_mont: np.ndarray, agg, include: bytes, backend,
           timings: dict | None = None) -> tuple[bool, str]:
    """(True, "") or (False, why). publics_mont: Montgomery Fr uint64[m, k, 4] for the m real proofs."""
    curve = agg.curve
    fr, g1 = curve.fr, curve.g1
    p = fr.p
    laps = Laps(timings)
    t, lap = laps.t, laps.lap

    m = publics_mont.shape[0]
    if m == 0:
        raise AggregateInputError("at least one set of public inputs is required")
    n = agg.nproofs
    if srs.padded_count(m) != n:
        return False, (f"the aggregate is of {n} (padded) proofs, but {m} sets of public inputs pad to "
                       f"{srs.padded_count(m)}")
    if n > vkey.max_proofs:
        return False, f"the aggregate is of {n} proofs, more than the SRS supports ({vkey.max_proofs})"
    if publics_mont.shape[1] != pvk.vk.num_public:
        raise AggregateInputError(f"expected {pvk.vk.num_public} public inputs per proof, got {publics_mont.shape[1]}")
    publics = np.concatenate([publics_mont, np.repeat(publics_mont[-1:], n - m, axis=0)])

    wire = agg.wire or proof_format.Wire(curve, proof_format.to_bytes(agg), n)
    hcom = hcom_challenge(curve, wire.span("com_ab", "com_c"))
    r = r_challenge(curve, hcom, include)
    seed = gipa.seed_challenge(curve, hcom, wire.span("ip_ab", "agg_c"), r)
    xs, xs_inv, extra = gipa.verifier_challenges(agg, wire, seed)
    z = z_challenge(curve, extra, wire.span("final_vkey", "final_wkey"), wire.span("final_a", "final_c"))
    lap("transcript")

    rho = [0] + [secrets.randbits(128) | 1 for _ in range(9)]
    bases = [agg.com_ab[0], agg.com_ab[1], agg.ip_ab, agg.com_c[0], agg.com_c[1]]
    exps = [rho[2], rho[3], rho[1] + 1, rho[4], rho[5]]
    for j in range(agg.rounds):
        x, xi = xs[j], xs_inv[j]
        (tl, ul), (tr, ur) = agg.comms_ab[j]
        (tcl, ucl), (tcr, ucr) = agg.comms_c[j]
        zl, zr = agg.z_ab[j]
        bases += [tl, tr, ul, ur, zl, zr, tcl, tcr, ucl, ucr]
        exps += [rho[2] * x, rho[2] * xi, rho[3] * x, rho[3] * xi, rho[1] * x, rho[1] * xi,
                 rho[4] * x, rho[4] * xi, rho[5] * x, rho[5] * xi]
    bases, exps = np.stack(bases), [e % p for e in exps]
    # Two single-threaded tasks, no parallel region (side_task says why): a side
    # task takes most of the GT multi-exponentiation while this thread does the
    # G1 sums, Miller loop and final exponentiation, then the other bases.
    split = _helper_share(len(bases))
    helper = side_task.start(lambda k=split: gt.multiexp(curve.name, bases[:k], exps[:k], parts=1), split > 0)
    split = split if helper else 0

    xs_rev, xs_inv_rev = xs[::-1], xs_inv[::-1]
    final_r = kzg.product_form_eval(p, xs_inv_rev, r, 1)
    y_v = kzg.product_form_eval(p, xs_inv_rev, z, 1)
    y_w = pow(z, n, p) * kzg.product_form_eval(p, xs_rev, z, pow(r, -1, p)) % p

    ic_terms, r_sum = public_input_terms(pvk, publics, r, n)
    lap("public_inputs")

    vk = pvk.vk
    A, B, C = agg.final_a, agg.final_b, agg.final_c
    fv1, fv2 = agg.final_vkey
    fw1, fw2 = agg.final_wkey
    pv1, pv2 = agg.vkey_opening
    pw1, pw2 = agg.wkey_opening
    g, h = vkey.g, vkey.h
    # G1 side of each merged pair: list of (point, scalar)
    combos = [
        (B, [(A, rho[1]), (fw1, rho[2]), (fw2, rho[3])]),
        (fv1, [(A, rho[2]), (C, rho[4]), (g, -rho[6])]),
        (fv2, [(A, rho[3]), (C, rho[5]), (g, -rho[7])]),
        (h, [(g, (rho[6] + rho[7]) * y_v + (rho[8] + rho[9]) * y_w), (fw1, -rho[8]), (fw2, -rho[9]),
             (pw1, -rho[8] * z), (pw2, -rho[9] * z)]),
        (pv1, [(vkey.g_alpha, rho[6]), (g, -rho[6] * z)]),
        (pv2, [(vkey.g_beta, rho[7]), (g, -rho[7] * z)]),
        (vkey.h_alpha, [(pw1, rho[8])]),
        (vkey.h_beta, [(pw2, rho[9])]),
        (vk.beta_g2, [(vk.alpha_g1, r_sum)]),
        (vk.gamma_g2, ic_terms),
        (vk.delta_g2, [(agg.agg_c, 1)]),
    ]
    # MIPP: agg_c + sum_j (x_j zc_l + x_j^-1 zc_r) - final_r C' must be the identity
    mipp = [(agg.agg_c, 1)] + list(zip(agg.z_c[:, 0], xs)) + list(zip(agg.z_c[:, 1], xs_inv)) + [(C, -final_r)]
    with threads_for(0):
        lhs1 = g1_sums.sums(curve, [parts for _, parts in combos] + [mipp])
        if lhs1[-1].any():
            if helper:
                helper.result()
            return False, "the MIPP check failed (sum r^i C_i does not match the folded C)"
        lhs1 = lhs1[:-1]
        lhs2 = np.stack([q for q, _ in combos])
        lap("g1_combinations")
        ml = pairings.miller_loops(curve.name, lhs1, lhs2, np.array([0, len(lhs2)], dtype=np.int64))
        lap("miller_loop")
        lhs = final_exponentiation(curve.name, ml)[0]
        lap("final_exponentiation")
        rhs = gt.multiexp(curve.name, bases[split:], exps[split:], parts=1)
    if helper:
        rhs = towers_of(curve.name)[1].mul(rhs, helper.result())
    lap("gt_multiexp")  # this thread's share and the wait for the side task's
    if not towers_of(curve.name)[1].equal(lhs, rhs):
        return False, "the pairing check failed (TIPP, MIPP commitments, KZG openings or the Groth16 equation)"
    return True, ""
