"""The engine's aggregation operations (issue 41): SnarkPack aggregates of jobs the engine proved and
of given proofs, checked by cuzk.aggregate's verifier called directly (aggregate_oracle.py), with the
.vk the engine wrote on disk and the public inputs the jobs' vanilla proofs state (vanilla_statements.py):
neither the key nor the statement is what the engine reports. A tampered aggregate, another order of
the statements and another domain are refused by the oracle and by the engine's own verify."""

from __future__ import annotations

import pytest
from aggregate_oracle import aggregate_verifies
from groth16_oracle import vk_file
from vanilla_statements import expected_public_inputs

from cuzk.aggregate import srs
from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.engine import Engine, EngineConfig, JobState, ProofRequest
from cuzk.engine.catalog import synthetic
from cuzk.engine.errors import CallerGone, InvalidRequest, JobNotCompleted, JobNotFound
from cuzk.engine.types import SrsSource
from cuzk.formats.bellperson import read_vk

TIMEOUT = 900  # a cold CI run compiles the kernels on first use
CID = "synthetic-tiny"  # two partitions per job: a job gives two proofs
CPU = get_backend("cpu")


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    cfg = EngineConfig()
    cfg.daemon.state_dir = str(tmp_path_factory.mktemp("state"))
    cfg.srs.param_cache = str(tmp_path_factory.mktemp("params"))
    cfg.circuits.synthetic = True
    cfg.gpus.backend = "cpu"
    cfg.gpus.gpu_threads = 1
    e = Engine(cfg).start()
    yield e
    e.shutdown(drain=False)


@pytest.fixture(scope="module")
def generic():
    """An SRS for up to 4 proofs, and its file."""
    return srs.generate("bls12_381", 4, backend=CPU)


@pytest.fixture(scope="module")
def srs_path(generic, tmp_path_factory):
    path = tmp_path_factory.mktemp("srs") / "agg.srs"
    srs.write(generic, path)
    return path


@pytest.fixture(scope="module")
def jobs(engine):
    """Two completed jobs: [(job id, vanilla bytes)]."""
    out = []
    for _ in range(2):
        v = synthetic.generate_vanilla("tiny")
        r = engine.prove(ProofRequest(circuit_id=CID, vanilla_proof=v), TIMEOUT)
        assert r.state == JobState.COMPLETED, r.error
        out.append((r.job_id, v))
    return out


def oracle(generic, engine, rows, data: bytes, domain: bytes = b"cuzk-snarkpack-v1") -> bool:
    return aggregate_verifies(generic, vk_file(engine.config.param_dir(), CID), rows, data, domain)


def test_aggregate_of_jobs_verifies_and_a_tampered_one_does_not(engine, generic, srs_path, jobs):
    rows = [row for _, v in jobs for row in expected_public_inputs(v)]  # 2 jobs x 2 partitions, in order
    r = engine.aggregate_jobs([jid for jid, _ in jobs], SrsSource(path=str(srs_path)))
    assert (r.num_proofs, r.padded_proofs, r.circuit_id, r.curve) == (4, 4, CID, "bls12_381")
    assert r.public_inputs == rows
    assert list(r.phases)[:2] == ["inputs", "srs_load"] and "gipa" in r.phases and "kzg" in r.phases
    assert oracle(generic, engine, rows, r.aggregate)
    assert not oracle(generic, engine, rows[::-1], r.aggregate)  # another order: another statement
    v = engine.verify_aggregate(r.aggregate, rows, SrsSource(path=str(srs_path)), circuit_id=CID)
    assert v.valid and v.reason == "" and "miller_loop" in v.phases

    bad = bytearray(r.aggregate)
    bad[len(bad) // 2] ^= 1
    assert not oracle(generic, engine, rows, bytes(bad))
    v = engine.verify_aggregate(bytes(bad), rows, SrsSource(data=srs_path.read_bytes()), circuit_id=CID)
    assert not v.valid and v.reason
    v = engine.verify_aggregate(r.aggregate, rows[::-1], SrsSource(path=str(srs_path)), circuit_id=CID)
    assert not v.valid and "check failed" in v.reason


def test_aggregate_of_given_proofs_with_its_domain(engine, generic, srs_path, jobs):
    """Three proofs (padded to four), given as bytes; the transcript's domain is part of the statement."""
    proof = engine.await_job(jobs[0][0]).proof  # two partitions: two proofs
    rows = expected_public_inputs(jobs[0][1])
    rows = rows + rows[:1]
    r = engine.aggregate_proofs(CID, [proof, proof[:192]], rows, SrsSource(data=srs_path.read_bytes()),
                                domain="other")
    assert (r.num_proofs, r.padded_proofs) == (3, 4)
    assert oracle(generic, engine, rows, r.aggregate, b"other")
    assert not oracle(generic, engine, rows, r.aggregate)
    vk = read_vk(vk_file(engine.config.param_dir(), CID))  # an explicit key instead of the circuit id
    assert engine.verify_aggregate(r.aggregate, rows, SrsSource(path=str(srs_path)), vk=vk, domain="other").valid
    assert not engine.verify_aggregate(r.aggregate, rows, SrsSource(path=str(srs_path)), vk=vk).valid


def test_bad_requests_are_engine_errors(engine, srs_path, jobs, tmp_path):
    ids = [jid for jid, _ in jobs]
    source = SrsSource(path=str(srs_path))
    with pytest.raises(JobNotFound):
        engine.aggregate_jobs(ids + ["no-such-job"], source)
    engine.pause(True)
    try:
        queued = engine.submit(ProofRequest(circuit_id=CID, vanilla_proof=synthetic.generate_vanilla("tiny")))
        with pytest.raises(JobNotCompleted):
            engine.aggregate_jobs([ids[0], queued.job_id], source)
        engine.cancel(queued.job_id)
    finally:
        engine.pause(False)
    small = tmp_path / "small.srs"
    srs.write(srs.generate("bls12_381", 2, backend=CPU), small)
    (tmp_path / "bad.srs").write_bytes(b"\0" * 100)
    for bad in (None, SrsSource(), SrsSource(path=str(tmp_path / "bad.srs")), SrsSource(data=b"x"),
                SrsSource(path=str(tmp_path / "missing.srs")), SrsSource(path=str(small))):  # small: 4 proofs
        with pytest.raises(InvalidRequest):
            engine.aggregate_jobs(ids, bad)
    proof = engine.await_job(ids[0]).proof
    rows = expected_public_inputs(jobs[0][1])
    for args in ((CID, [proof[:100]], rows[:1]), ("", [proof], rows), (CID, [proof], rows[:1]),
                 (CID, [proof], [[1, 2], [3]]), (CID, [proof], [[get_curve("bls12_381").fr.p]] * 2)):
        with pytest.raises(InvalidRequest):
            engine.aggregate_proofs(*args, source)
    with pytest.raises(InvalidRequest):
        engine.verify_aggregate(b"", rows, source)  # neither a circuit nor a key
    with pytest.raises(CallerGone):
        engine.aggregate_jobs(ids, source, still_wanted=lambda: False)
    text = engine.metrics_text()
    assert 'cuzk_aggregate_requests_total{result="not_found",rpc="Aggregate"} 1.0' in text
    assert 'cuzk_aggregate_requests_total{result="failed_precondition",rpc="Aggregate"} 1.0' in text
    assert 'cuzk_aggregate_requests_total{result="cancelled",rpc="Aggregate"} 1.0' in text
