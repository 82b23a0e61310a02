"""Groth16 end to end on the CPU: setup, prove, verify, batches, bellperson files."""

import time

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.circuits.textbook_cubic import cube_circuit
from cuzk.curve import get_curve
from cuzk.errors import FormatError, ValidationError
from cuzk.groth16 import prover, setup
from cuzk.groth16.verifier import PreparedVerifyingKey, verify, verify_batch
from cuzk.r1cs import RecordingCS, WitnessCS
from cuzk.r1cs.evaluation import evaluate


def compiled(curve):
    rec = RecordingCS(curve)
    cube_circuit(rec, 0, double=True)
    return rec.compile()


def witness(curve, x):
    ws = WitnessCS(curve)
    cube_circuit(ws, x, double=True)
    return ws.witness()


@pytest.fixture(scope="module", params=["bls12_381", "bn254"])
def keyed(request):
    curve = request.param
    cc = compiled(curve)
    return curve, cc, setup.generate(cc, backend=get_backend("cpu"))


def assert_phases_add_up(timings: dict, wall_ms: float) -> None:
    """Every prover phase is there, and the host phases, laid end to end from the proof's start, add
    up to its total, which lies inside the wall time of the call that made it."""
    host = {k: v for k, v in timings.items() if ":" not in k and k != "total"}  # "gpu:..." are device-timed
    assert {"stage_wait", "device_wait", "ntt_h", "scalars", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2",
            "assemble"} <= set(host), timings
    assert all(v >= 0 for v in host.values()), timings
    assert sum(host.values()) == pytest.approx(timings["total"], rel=0.01, abs=0.2), timings
    assert 0 < timings["total"] <= wall_ms, (timings, wall_ms)


def public(curve, x):
    p = get_curve(curve).fr.p
    return [(x**3 + x + 5) % p, 2 * x % p]


def test_prove_and_verify(keyed):
    curve, cc, pk = keyed
    pvk = PreparedVerifyingKey(pk.vk)
    w = witness(curve, 3)
    abc = evaluate(cc, w)
    t0 = time.perf_counter()
    proof = prover.prove(pk, w, abc, backend=get_backend("cpu"))
    wall_ms = (time.perf_counter() - t0) * 1e3
    assert verify(pvk, proof, public(curve, 3))
    # wrong public input, swapped inputs, altered proof point
    assert not verify(pvk, proof, public(curve, 4))
    assert not verify(pvk, proof, public(curve, 3)[::-1])
    g1 = get_curve(curve).g1
    bad = prover.Proof(proof.curve, g1.add(proof.a[None], g1.generator[None])[0], proof.b, proof.c)
    assert not verify(pvk, bad, public(curve, 3))
    assert_phases_add_up(proof.timings, wall_ms)
    with pytest.raises(ValidationError):
        verify(pvk, proof, [get_curve(curve).fr.p, 0])  # public input not < r
    with pytest.raises(ValidationError):
        verify(pvk, proof, [1])


def test_prove_batch_and_verify_batch(keyed):
    curve, cc, pk = keyed
    pvk = PreparedVerifyingKey(pk.vk)
    xs = [2, 7, 11]
    jobs = [prover.ProofJob(w, rows=evaluate(cc, w)) for w in (witness(curve, x) for x in xs)]
    proofs = prover.prove_batch(pk, jobs, backend=get_backend("cpu"))
    inputs = [public(curve, x) for x in xs]
    assert all(verify(pvk, p, x) for p, x in zip(proofs, inputs))
    assert verify_batch(pvk, proofs, inputs)
    assert not verify_batch(pvk, proofs, [inputs[0], inputs[2], inputs[1]])
    # fresh randomness: two proofs of the same witness differ
    again = prover.prove(pk, jobs[0].w, jobs[0].rows, backend=get_backend("cpu"))
    assert not (again.a == proofs[0].a).all()


def test_bellperson_files_roundtrip(tmp_path):
    from cuzk.formats import bellperson

    cc = compiled("bls12_381")
    pk = setup.generate(cc, backend=get_backend("cpu"))
    bellperson.write_params(tmp_path / "c.params", pk)
    bellperson.write_vk(tmp_path / "c.vk", pk.vk)
    pk2 = bellperson.open_params(tmp_path / "c.params", cc)
    assert not any(pk2.is_decoded(n) for n in ("h", "l", "a", "b_g1", "b_g2"))  # lazy
    vk = bellperson.read_vk(tmp_path / "c.vk")
    w = witness("bls12_381", 5)
    proof = prover.prove(pk2, w, evaluate(cc, w), backend=get_backend("cpu"))
    raw = bellperson.proof_to_bytes(proof)
    assert len(raw) == 192
    (back,) = bellperson.proofs_from_bytes(raw)
    assert verify(PreparedVerifyingKey(vk), back, public("bls12_381", 5))
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        assert (pk2.bases(name) == pk.bases(name)).all()
    # truncation names the section; a corrupted point is rejected when decoded
    data = (tmp_path / "c.params").read_bytes()
    (tmp_path / "t.params").write_bytes(data[:-50])
    with pytest.raises(FormatError, match="b_g2"):
        bellperson.open_params(tmp_path / "t.params", cc)
    corrupt = bytearray(data)
    corrupt[-100] ^= 0x01
    (tmp_path / "x.params").write_bytes(bytes(corrupt))
    pk3 = bellperson.open_params(tmp_path / "x.params", cc)
    with pytest.raises((FormatError, ValidationError), match="b_g2"):
        pk3.bases("b_g2")
    with pytest.raises(FormatError):
        bellperson.proofs_from_bytes(raw[:191])


@pytest.mark.gpu
def test_gpu_proof_verifies(keyed):
    curve, cc, pk = keyed
    w = witness(curve, 9)
    proof = prover.prove(pk, w, evaluate(cc, w), backend=get_backend("cuda"))
    assert verify(PreparedVerifyingKey(pk.vk), proof, public(curve, 9))


@pytest.mark.gpu
@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_parameters_made_on_the_gpu_verify(curve):
    """setup on the CUDA backend (fixed-base multiplications on the device): CPU proofs verify."""
    cc = compiled(curve)
    pk = setup.generate(cc, backend=get_backend("cuda"))
    w = witness(curve, 5)
    proof = prover.prove(pk, w, evaluate(cc, w), backend=get_backend("cpu"))
    pvk = PreparedVerifyingKey(pk.vk)
    assert verify(pvk, proof, public(curve, 5))
    assert not verify(pvk, proof, public(curve, 6))


def test_device_lock_is_held_around_backend_work_only(keyed):
    """Bases are decoded before the lock and the proof assembled after it (host work
    that overlaps another worker's kernels on the same GPU); proofs still verify."""
    curve, cc, pk = keyed
    loaded = prover.ProvingKey(**{**pk.__dict__, "vectors": {k: (lambda v=v: v) for k, v in pk.vectors.items()},
                                  "_cache": {}})
    events = []

    class Lock:
        def __enter__(self):
            events.append(("enter", all(loaded.is_decoded(n) and n in loaded._cache
                                        for n in ("h", "l", "a", "b_g1", "b_g2"))))

        def __exit__(self, *exc):
            events.append(("exit",))

    ws = [witness(curve, x) for x in (3, 4)]
    jobs = [prover.ProofJob(w, rows=evaluate(cc, w)) for w in ws]
    proofs = prover.prove_batch(loaded, jobs, get_backend("cpu"), device_lock=Lock())
    assert events == [("enter", True), ("exit",)] * 2
    pvk = PreparedVerifyingKey(pk.vk)
    assert all(verify(pvk, p, public(curve, x)) for p, x in zip(proofs, (3, 4)))
    assert all("device_wait" in p.timings for p in proofs)
