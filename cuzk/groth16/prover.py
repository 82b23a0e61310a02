"""Groth16 prover (bellperson's algorithm; snarkjs keys through qap.py).

Inputs per proof (a ProofJob): the full witness w = [1, inputs..., aux...]
(Montgomery Fr) and the evaluations a, b, c of every constraint row, including
the one row per input that both bellperson and snarkjs append (A = input_i),
or the compiled circuit that gives them. With fresh random r, s:

    A = alpha + sum w_i A_i + r delta
    B = beta + sum w_i B_i + s delta            (in G2, and in G1 for C)
    C = sum_aux w_i L_i + sum h_i H_i + s A + r B_g1 - r s delta
"""

from __future__ import annotations

import secrets
import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from cuzk.backend import get_backend
from cuzk.backend.cpu.msm import msm as cpu_msm
from cuzk.backend.timing import Laps

from cuzk.r1cs.compiled import CompiledCircuit

from . import qap
from .keys import Proof, ProvingKey
from .lookahead import Lookahead


def _rand_fr(curve) -> int:
    return secrets.randbelow(curve.fr.p - 1) + 1


@dataclass(frozen=True)
class ProofJob:
    """One proof's input: the witness and its constraint rows, given either as `rows` (a, b, c,
    input rows included, evaluated by the caller: the engine's synthesis threads run ahead of
    the prover) or as the compiled `circuit`, which the backend evaluates where the witness is
    (on a GPU only the witness crosses the bus). The caller picks; the prover asks `rows_for`."""

    w: np.ndarray
    rows: tuple | None = None
    circuit: CompiledCircuit | None = None

    def __post_init__(self):
        if (self.rows is None) == (self.circuit is None):
            raise ValueError("a proof job gives either its rows or its compiled circuit")

    def rows_for(self, backend, w) -> tuple:
        """(a, b, c) for `w`, the witness where `backend` computes (from `backend.witness`)."""
        return self.rows if self.circuit is None else backend.evaluate(self.circuit, w)


def prove(pk: ProvingKey, w: np.ndarray, abc, backend=None, r: int | None = None, s: int | None = None) -> Proof:
    """One proof from evaluated rows `abc` = (a, b, c): shorthand for a prove_batch of one ProofJob."""
    return prove_batch(pk, [ProofJob(w, rows=abc)], backend, rs=[(r, s)])[0]


def prove_batch(pk: ProvingKey, jobs, backend=None, rs=None, device_lock=None) -> list[Proof]:
    """Prove several ProofJobs of one circuit, sharing decoded bases. `device_lock` is
    held around each proof's backend work only: decoding bases before it and
    assembling the proof after it are host work that overlaps another
    worker's kernels on the same GPU.

    With several jobs, job j+1's witness is checked and its upload started
    (`backend.prefetch`, one background thread, one job ahead) while job j
    runs, so the GPU does not idle during the host-to-device copy. With a
    `device_lock` (other workers share the device) even a single job's upload
    starts before the lock is taken, beside the kernels of the proof that holds
    it. A job whose witness is wrong raises its error at its turn, after the
    jobs before it."""
    backend = backend or get_backend("auto")
    jobs = list(jobs)
    prefetching = len(jobs) > 1 or device_lock is not None
    device_lock = device_lock if device_lock is not None else nullcontext()
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        pk.bases(name)
    # under a device-memory budget: which bases stay resident, chunk sizes (backend/memory_plan.py)
    plan = backend.prepare(pk, next((job.circuit for job in jobs if job.circuit is not None), None))
    prefetching = prefetching and (plan is None or plan.prefetch)
    curve = pk.curve
    n = pk.domain_size
    several = len(jobs) > 1

    def stage(j):
        w = np.ascontiguousarray(jobs[j].w, dtype=np.uint64)
        if w.shape != (pk.num_vars, 4):
            raise ValueError(f"witness has {w.shape[0] if w.ndim else 0} variables, the key expects {pk.num_vars}")
        return backend.prefetch(w) if prefetching else w

    proofs = []
    with Lookahead(stage, len(jobs), background=several) as ahead:
        for j, job in enumerate(jobs):
            clock = Laps()
            timer = backend.phase_timer()
            t0 = clock.last
            w = ahead.take(j)
            clock.lap("stage_wait")
            wait0 = time.perf_counter()
            with device_lock:
                clock.t["device_wait"] = (time.perf_counter() - wait0) * 1e3
                clock.last = time.perf_counter()
                w = backend.witness(w)
                a, b, c = job.rows_for(backend, w)
                if job.circuit is not None:  # the SpMV ran here, inside the proof: its own phase
                    clock.lap("spmv")
                if a.shape[0] > n:
                    raise ValueError(f"{a.shape[0]} constraint rows exceed the key's domain {n}")
                with timer.phase("h"):
                    hc = qap.h_scalars(pk.h_convention, backend, curve, a, b, c, n)
                del a, b, c
                clock.lap("ntt_h")
                with timer.phase("scalars"):
                    canon = backend.witness_scalars(curve, w)
                del w  # its scalars replace it: a device budget counts one of the two, not both
                clock.lap("scalars")
                if hc.shape[0] != pk.bases("h").shape[0]:
                    raise ValueError(f"{hc.shape[0]} H scalars but the key has {pk.bases('h').shape[0]} H bases")
                with timer.phase("msm_h"):
                    h_acc = backend.msm(curve, "g1", pk.bases("h"), hc)
                del hc  # the gathered scalars of A and B take its place under a device budget
                clock.lap("msm_h")
                with timer.phase("msm_l"):
                    l_acc = backend.msm(curve, "g1", pk.bases("l"), canon[pk.num_inputs :])
                clock.lap("msm_l")
                with timer.phase("msm_a"):
                    a_acc = backend.msm(curve, "g1", pk.bases("a"), backend.take(canon, pk.a_vars))
                clock.lap("msm_a")
                with timer.phase("msm_b_g1"):
                    b1_acc = backend.msm(curve, "g1", pk.bases("b_g1"), backend.take(canon, pk.b_vars))
                clock.lap("msm_b_g1")
                with timer.phase("msm_b_g2"):
                    b2_acc = backend.msm(curve, "g2", pk.bases("b_g2"), backend.take(canon, pk.b_vars))
                clock.lap("msm_b_g2")

            r, s = (rs[j] if rs and j < len(rs) else (None, None))
            r = _rand_fr(curve) if r is None else r
            s = _rand_fr(curve) if s is None else s
            vk = pk.vk
            # C = l + h + s A + r B1 - r s delta, with B1 = beta + b1 + s delta: the r s delta terms cancel
            A = _combine(curve, "g1", [vk.alpha_g1, a_acc, pk.delta_g1], [1, 1, r])
            B = _combine(curve, "g2", [vk.beta_g2, b2_acc, vk.delta_g2], [1, 1, s])
            C = _combine(curve, "g1", [l_acc, h_acc, A, pk.beta_g1, b1_acc], [1, 1, s, r, r])
            clock.lap("assemble")
            clock.t["total"] = (time.perf_counter() - t0) * 1e3
            clock.t.update({f"gpu:{k}": v for k, v in timer.results().items()})
            proofs.append(Proof(curve, A, B, C, clock.t, h2d_bytes=getattr(timer, "moved", 0)))
    return proofs


def _combine(curve, group: str, points, scalars: list[int]) -> np.ndarray:
    """sum scalars[i] * points[i] (affine, a few points) by the CPU MSM, on any backend: the kernels the
    CPU prover has compiled already (a first proof compiles no group-law kernels of its own for this),
    and on a GPU backend host work after the device's part, as before."""
    fr = curve.fr
    return cpu_msm(curve.name, group, np.stack(points), fr.canonical_from_ints([k % fr.p for k in scalars]))
