"""Groth16 prover (bellperson's algorithm; snarkjs keys through qap.py).

Inputs per proof: the full witness w = [1, inputs..., aux...] (Montgomery
Fr) and the evaluations a, b, c of every constraint row, including the one
row per input that both bellperson and snarkjs append (A = input_i). With
fresh random r, s:

    A = alpha + sum w_i A_i + r delta
    B = beta + sum w_i B_i + s delta            (in G2, and in G1 for C)
    C = sum_aux w_i L_i + sum h_i H_i + s A + r B_g1 - r s delta
"""

from __future__ import annotations

import secrets
import time

import numpy as np

from cuzk.backend import get_backend

from . import qap
from .keys import Proof, ProvingKey


class _Clock:
    def __init__(self):
        self.t = {}
        self._last = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + (now - self._last) * 1e3
        self._last = now


def _rand_fr(curve) -> int:
    return secrets.randbelow(curve.fr.p - 1) + 1


def prove(pk: ProvingKey, w: np.ndarray, abc, backend=None, r: int | None = None, s: int | None = None) -> Proof:
    """One proof; `abc` = (a, b, c) row evaluations including the input rows."""
    return prove_batch(pk, [(w, abc)], backend, rs=[(r, s)])[0]


def prove_batch(pk: ProvingKey, jobs, backend=None, rs=None) -> list[Proof]:
    """Prove several (w, (a, b, c)) of one circuit, sharing decoded bases."""
    backend = backend or get_backend("auto")
    curve = pk.curve
    fr, g1, g2 = curve.fr, curve.g1, curve.g2
    n = pk.domain_size
    proofs = []
    for j, (w, (a, b, c)) in enumerate(jobs):
        clock = _Clock()
        t0 = clock._last
        w = np.ascontiguousarray(w, dtype=np.uint64)
        if w.shape != (pk.num_vars, 4):
            raise ValueError(f"witness has {w.shape[0]} variables, the key expects {pk.num_vars}")
        if a.shape[0] > n:
            raise ValueError(f"{a.shape[0]} constraint rows exceed the key's domain {n}")
        hc = qap.h_scalars(pk.h_convention, backend, curve, a, b, c, n)
        clock.lap("ntt_h")
        canon = fr.from_mont(w)
        clock.lap("scalars")
        if hc.shape[0] != pk.bases("h").shape[0]:
            raise ValueError(f"{hc.shape[0]} H scalars but the key has {pk.bases('h').shape[0]} H bases")
        h_acc = backend.msm(curve, "g1", pk.bases("h"), hc)
        clock.lap("msm_h")
        l_acc = backend.msm(curve, "g1", pk.bases("l"), canon[pk.num_inputs :])
        clock.lap("msm_l")
        a_acc = backend.msm(curve, "g1", pk.bases("a"), canon[pk.a_vars])
        clock.lap("msm_a")
        b1_acc = backend.msm(curve, "g1", pk.bases("b_g1"), canon[pk.b_vars])
        clock.lap("msm_b_g1")
        b2_acc = backend.msm(curve, "g2", pk.bases("b_g2"), canon[pk.b_vars])
        clock.lap("msm_b_g2")

        r, s = (rs[j] if rs and j < len(rs) else (None, None))
        r = _rand_fr(curve) if r is None else r
        s = _rand_fr(curve) if s is None else s
        vk = pk.vk
        A = _sum(g1, [vk.alpha_g1, a_acc, _mul(g1, pk.delta_g1, r)])
        B = _sum(g2, [vk.beta_g2, b2_acc, _mul(g2, vk.delta_g2, s)])
        B1 = _sum(g1, [pk.beta_g1, b1_acc, _mul(g1, pk.delta_g1, s)])
        C = _sum(g1, [l_acc, h_acc, _mul(g1, A, s), _mul(g1, B1, r),
                      g1.neg(_mul(g1, pk.delta_g1, r * s % fr.p)[None])[0]])
        clock.lap("assemble")
        clock.t["total"] = (time.perf_counter() - t0) * 1e3
        proofs.append(Proof(curve, A, B, C, clock.t))
    return proofs


def _mul(grp, pt, k: int):
    return grp.scalar_mul(pt[None], [k])[0]


def _sum(grp, pts):
    acc = pts[0]
    for p in pts[1:]:
        acc = grp.add(acc[None], p[None])[0]
    return acc
