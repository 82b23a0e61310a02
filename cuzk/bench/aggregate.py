"""`cuzk bench aggregate`: SnarkPack aggregation and verification next to
batch verification (cuzk.groth16.verifier.verify_batch) of the same proofs.

The proofs are of a tiny circuit (y = x^3 + x + 5): one is made by the
prover, the others are its re-randomizations (A/t, t B + t s delta, C + s A
for random t, s), which are valid, distinct proofs for the same inputs;
the costs measured here do not depend on the circuit. One SRS for the
largest n serves every size. Verification times (parsing included) are
medians of --repeat runs after one warm-up run, on --verify-threads numba
threads; batch verification runs once on the same threads.
"""

from __future__ import annotations

import json
import statistics
import time

import numba
import numpy as np

from cuzk.aggregate import proof_format, prover, srs, transcript, verifier
from cuzk.backend import get_backend
from cuzk.circuits.textbook_cubic import cube_circuit
from cuzk.curve import get_curve
from cuzk.groth16 import prover as gprover
from cuzk.groth16 import setup
from cuzk.groth16.keys import Proof
from cuzk.groth16.verifier import PreparedVerifyingKey, verify_batch
from cuzk.r1cs import RecordingCS, WitnessCS
from cuzk.r1cs.evaluation import evaluate


def rerandomized_proofs(pk, proof, n: int, rng: np.random.Generator):
    """n valid proofs (arrays A, B, C) from one: A/t, t B + t s delta, C + s A."""
    curve = pk.vk.curve
    fr, g1, g2 = curve.fr, curve.g1, curve.g2
    t = fr.random(n, rng)
    s = fr.random(n, rng)
    a = g1.scalar_mul(np.repeat(proof.a[None], n, 0), fr.from_mont(fr.inv(t)))
    b = g2.add(g2.scalar_mul(np.repeat(proof.b[None], n, 0), fr.from_mont(t)),
               g2.scalar_mul(np.repeat(pk.vk.delta_g2[None], n, 0), fr.from_mont(fr.mul(t, s))))
    c = g1.add(np.repeat(proof.c[None], n, 0), g1.scalar_mul(np.repeat(proof.a[None], n, 0), fr.from_mont(s)))
    return a, b, c


def _warm_up(be, curve, generic, nmax, pk, proof, pvk, inputs, rng) -> None:
    """Load every kernel outside the timings: the CPU MSM picks other kernels
    for large inputs, so both KZG MSM sizes of the largest n run once here,
    and one aggregate of 2 proofs is made and verified."""
    fr = curve.fr
    n = srs.padded_count(nmax)
    for grp, bases in (("g1", generic.g_alpha[: 2 * n]), ("g2", generic.h_alpha[:n])):
        for m in sorted({min(64, len(bases)), len(bases)}):
            be.msm(curve, grp, bases[:m], fr.from_mont(fr.random(m, rng)))
    a, b, c = rerandomized_proofs(pk, proof, 2, rng)
    canon = np.stack([fr.canonical_from_ints(inputs)] * 2)
    include = transcript.statement_digest(pk.vk, canon, 2)
    agg = prover.aggregate(srs.prover_key(generic, 2), a, b, c, include, be)
    pm = fr.to_mont(canon.reshape(-1, 4)).reshape(canon.shape)
    parsed = proof_format.from_bytes(curve, proof_format.to_bytes(agg))
    assert verifier.verify(srs.verifier_key(generic), pvk, pm, parsed, include, be)[0]


def run(curve_name: str, sizes, backend_name: str = "cpu", repeat: int = 3, json_path=None, out=None,
        verify_threads: int | None = None) -> int:
    """Print one line per n (and write the records to json_path after each n).
    verify_threads: numba threads for the two verifications (default: all)."""
    out = out or (lambda line: print(line, flush=True))
    be = get_backend(backend_name)
    curve = get_curve(curve_name)
    rec = RecordingCS(curve.name)
    cube_circuit(rec, 0)
    cc = rec.compile()
    pk = setup.generate(cc, backend=be)
    ws = WitnessCS(curve.name)
    cube_circuit(ws, 3)
    w = ws.witness()
    proof = gprover.prove(pk, w, evaluate(cc, w), backend=be)
    pvk = PreparedVerifyingKey(pk.vk)
    inputs = [(27 + 3 + 5) % curve.fr.p]
    rng = np.random.default_rng(1)
    t = time.perf_counter()
    generic = srs.generate(curve.name, max(sizes), backend=be)
    out(f"{curve.name}, backend {be.describe()}: SRS for {generic.max_proofs} proofs in "
        f"{time.perf_counter() - t:.1f} s")
    vkey = srs.verifier_key(generic)
    t = time.perf_counter()
    _warm_up(be, curve, generic, max(sizes), pk, proof, pvk, inputs, rng)
    out(f"warm-up (kernels loaded or compiled) {time.perf_counter() - t:.1f} s")
    out(f"{'n':>6} {'aggregate s':>12} {'verify ms':>10} {'size B':>8} {'batch verify ms':>16} {'verify x':>9}")
    records = []
    for n in sizes:
        a, b, c = rerandomized_proofs(pk, proof, n, rng)
        canon = np.stack([curve.fr.canonical_from_ints(inputs)] * n)
        pm = curve.fr.to_mont(canon.reshape(-1, 4)).reshape(canon.shape)
        include = transcript.statement_digest(pk.vk, canon, n)
        pkey = srs.prover_key(generic, srs.padded_count(n))
        phases: dict = {}
        t = time.perf_counter()
        agg = prover.aggregate(pkey, a, b, c, include, be, phases)
        t_agg = time.perf_counter() - t
        data = proof_format.to_bytes(agg)
        parsed = proof_format.from_bytes(curve, data)
        times = []
        threads = numba.get_num_threads()
        numba.set_num_threads(min(verify_threads or threads, threads))
        for _ in range(repeat + 1):
            t = time.perf_counter()
            ok, why = verifier.verify(vkey, pvk, pm, proof_format.from_bytes(curve, data), include, be)
            times.append(time.perf_counter() - t)
            if not ok:
                raise RuntimeError(f"aggregate of {n} did not verify: {why}")
        t_ver = statistics.median(times[1:])
        proofs = [Proof(curve, a[i], b[i], c[i]) for i in range(n)]
        t = time.perf_counter()
        assert verify_batch(pvk, proofs, [inputs] * n)
        t_batch = time.perf_counter() - t
        numba.set_num_threads(threads)
        del parsed
        rec_ = dict(curve=curve.name, backend=be.describe(), n=n, verify_threads=verify_threads or threads,
                    aggregate_s=t_agg, verify_ms=t_ver * 1e3,
                    size_bytes=len(data), batch_verify_ms=t_batch * 1e3, phases_ms=phases)
        records.append(rec_)
        out(f"{n:>6} {t_agg:>12.2f} {t_ver * 1e3:>10.1f} {len(data):>8} {t_batch * 1e3:>16.1f} "
            f"{t_batch / t_ver:>9.1f}")
        if json_path:
            with open(json_path, "w") as fh:
                json.dump(records, fh, indent=1)
    return 0
