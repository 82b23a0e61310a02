"""The Aggregate and VerifyAggregate RPCs (issue 20) on a `cuzk daemon` subprocess: aggregates of the
jobs it proved, checked by the offline `cuzk verify-aggregate` with the .vk the daemon wrote; public
inputs come from the vanilla proofs (tests/vanilla_statements.py), not from the daemon."""

from __future__ import annotations

import json
import subprocess
import sys

import grpc
import pytest
from groth16_oracle import assert_proves, vk_file
from vanilla_statements import expected_public_inputs

from cuzk.engine.catalog import synthetic
from cuzk.proto import proving_pb2 as pb

WAIT_MS = 900_000
CIRCUIT = "synthetic-tiny"  # two partitions per job: a job gives two proofs
S = pb.AwaitProofResponse


def cuzk(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cuzk", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def srs_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("agg") / "agg.srs"
    r = cuzk("aggregate-srs", "--curve", "bls12_381", "--max-proofs", 8, "--out", path)
    assert r.returncode == 0, r.stderr
    return path


@pytest.fixture(scope="module")
def jobs(daemon, param_dir):
    """Two completed synthetic jobs: [(job id, vanilla bytes)], checked by the outside oracle."""
    out = []
    with daemon.client() as c:
        for _ in range(2):
            v = synthetic.generate_vanilla("tiny")
            r = c.prove(circuit_id=CIRCUIT, vanilla_proof=v, timeout_ms=WAIT_MS)
            assert r.status == S.COMPLETED, r.error_message
            assert_proves(param_dir, CIRCUIT, v, r.proof)
            out.append((r.job_id, v))
    return out


def write_publics(folder, rows) -> list:
    folder.mkdir(exist_ok=True)
    paths = []
    for i, row in enumerate(rows):
        p = folder / f"pub{i}.json"
        p.write_text(json.dumps([str(x) for x in row]))
        paths.append(p)
    return paths


def offline_verify(param_dir, srs_file, publics, agg) -> subprocess.CompletedProcess:
    args = ["verify-aggregate", "--srs", srs_file, "--vk", vk_file(param_dir, CIRCUIT), "--aggregate", agg]
    for p in publics:
        args += ["--public", p]
    return cuzk(*args)


def test_cli_aggregates_jobs_on_the_daemon(daemon, param_dir, srs_file, jobs, tmp_path):
    expected = [row for _, v in jobs for row in expected_public_inputs(v)]  # 2 jobs x 2 partitions, in order
    agg = tmp_path / "agg.bin"
    args = ["aggregate", "--addr", daemon.address, "--srs", srs_file, "--out", agg, "--write-publics", tmp_path / "w"]
    for jid, _ in jobs:
        args += ["--job", jid]
    r = cuzk(*args)
    assert r.returncode == 0, r.stderr
    assert "4 proofs of synthetic-tiny (padded to 4)" in r.stdout and "gipa" in r.stdout
    written = [json.loads((tmp_path / "w" / f"public-{i}.json").read_text()) for i in range(4)]
    assert [[int(x) for x in row] for row in written] == expected
    publics = write_publics(tmp_path / "p", expected)
    v = offline_verify(param_dir, srs_file, publics, agg)
    assert (v.returncode, v.stdout.strip()) == (0, "OK"), v.stdout + v.stderr
    v = offline_verify(param_dir, srs_file, publics[::-1], agg)  # another order: another statement
    assert v.returncode == 1 and v.stdout.startswith("INVALID"), v.stdout + v.stderr
    args = ["verify-aggregate", "--addr", daemon.address, "--circuit", CIRCUIT, "--srs", srs_file, "--upload-srs",
            "--aggregate", agg]
    for p in publics:
        args += ["--public", p]
    v = cuzk(*args)
    assert v.returncode == 0 and v.stdout.startswith("OK"), v.stdout + v.stderr


def test_rpc_aggregate_given_proofs_and_verify(daemon, param_dir, srs_file, jobs, tmp_path):
    with daemon.client() as c:
        results = [c.await_proof(jid) for jid, _ in jobs[:1]]
        proof = results[0].proof  # one job: two partitions, 3 proofs with the first one repeated
        expected = expected_public_inputs(jobs[0][1])
        proofs, rows = [proof, proof[:192]], expected + expected[:1]
        r = c.aggregate(proofs=proofs, public_inputs=rows, circuit_id=CIRCUIT, srs_data=srs_file.read_bytes())
        assert (r.num_proofs, r.padded_proofs, r.curve, r.circuit_id) == (3, 4, "bls12_381", CIRCUIT)
        names = [p.phase for p in r.phases]
        assert names == ["inputs", "srs_load", "commit", "rescale", "ip_ab_agg_c", "gipa/miller", "gipa/final_exp",
                         "gipa/zc_msm", "gipa/transcript", "gipa/folds", "gipa", "kzg"]
        assert sum(p.ms for p in r.phases if "/" not in p.phase) <= r.total_ms + 1  # gipa/*: parts of gipa
        (tmp_path / "agg").write_bytes(r.aggregate)
        v = offline_verify(param_dir, srs_file, write_publics(tmp_path / "p", rows), tmp_path / "agg")
        assert (v.returncode, v.stdout.strip()) == (0, "OK"), v.stdout + v.stderr

        ok = c.verify_aggregate(r.aggregate, rows, srs_path=str(srs_file), circuit_id=CIRCUIT)
        assert ok.valid and ok.reason == "" and "miller_loop" in [p.phase for p in ok.phases]
        vk = c.verifying_key(CIRCUIT)  # an explicit key instead of the circuit id
        assert c.verify_aggregate(r.aggregate, rows, srs_path=str(srs_file), vk=vk).valid

        bad = bytearray(r.aggregate)
        bad[len(bad) // 2] ^= 1
        got = c.verify_aggregate(bytes(bad), rows, srs_path=str(srs_file), circuit_id=CIRCUIT)
        assert not got.valid and got.reason
        got = c.verify_aggregate(r.aggregate[:-1], rows, srs_path=str(srs_file), circuit_id=CIRCUIT)
        assert not got.valid and got.reason.startswith("malformed aggregate")
        other = [rows[1], rows[0], rows[2]]
        got = c.verify_aggregate(r.aggregate, other, srs_path=str(srs_file), circuit_id=CIRCUIT)
        assert not got.valid and "check failed" in got.reason
        got = c.verify_aggregate(r.aggregate, rows, srs_path=str(srs_file), circuit_id=CIRCUIT, domain="other")
        assert not got.valid


def code_of(call) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as exc:
        call()
    return exc.value.code()


def test_errors_and_the_daemon_keeps_proving(daemon, param_dir, srs_file, jobs, tmp_path):
    ids = [jid for jid, _ in jobs]
    with daemon.client() as c:
        srs = str(srs_file)
        assert code_of(lambda: c.aggregate(job_ids=ids + ["no-such-job"], srs_path=srs)) == grpc.StatusCode.NOT_FOUND
        v = synthetic.generate_vanilla("tiny")
        w = synthetic.generate_vanilla("small")  # a job of another circuit
        other = c.prove(circuit_id="synthetic-small", vanilla_proof=w, timeout_ms=WAIT_MS)
        assert other.status == S.COMPLETED, other.error_message
        assert code_of(lambda: c.aggregate(job_ids=ids + [other.job_id], srs_path=srs)) == \
            grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(lambda: c.aggregate(job_ids=ids, srs_path=srs, circuit_id="synthetic-small")) == \
            grpc.StatusCode.INVALID_ARGUMENT
        assert c.pause(True)
        try:
            queued = c.submit(circuit_id=CIRCUIT, vanilla_proof=v).job_id
            assert code_of(lambda: c.aggregate(job_ids=[ids[0], queued], srs_path=srs)) == \
                grpc.StatusCode.FAILED_PRECONDITION
            c.cancel(queued)
        finally:
            c.pause(False)
        bad = tmp_path / "bad.srs"
        bad.write_bytes(b"\0" * 100)
        for kw in ({"srs_path": str(bad)}, {"srs_path": str(tmp_path / "missing.srs")}, {"srs_data": b"x"}, {}):
            assert code_of(lambda: c.aggregate(job_ids=ids, **kw)) == grpc.StatusCode.INVALID_ARGUMENT, kw
        p = c.await_proof(ids[0]).proof
        for kw in ({"proofs": [p]},  # public inputs missing
                   {"proofs": [p[:100]], "public_inputs": [[1]], "circuit_id": CIRCUIT},
                   {"proofs": [p[:192]], "public_inputs": [[1]]},  # no circuit
                   {"job_ids": ids, "proofs": [p]}):
            assert code_of(lambda: c.aggregate(srs_path=srs, **kw)) == grpc.StatusCode.INVALID_ARGUMENT, kw
        bent = bytearray(p[:192])
        bent[5] ^= 0x40  # A no longer a valid point
        rows = expected_public_inputs(jobs[0][1])[:1]
        assert code_of(lambda: c.aggregate(proofs=[bytes(bent)], public_inputs=rows, circuit_id=CIRCUIT,
                                           srs_path=srs)) == grpc.StatusCode.INVALID_ARGUMENT
        assert code_of(lambda: c.verify_aggregate(b"", rows, srs_path=srs)) == grpc.StatusCode.INVALID_ARGUMENT
        assert 'cuzk_aggregate_requests_total{result="not_found",rpc="Aggregate"} 1.0' in c.metrics()

        r = c.prove(circuit_id=CIRCUIT, vanilla_proof=v, timeout_ms=WAIT_MS)  # still proving
        assert r.status == S.COMPLETED, r.error_message
        assert_proves(param_dir, CIRCUIT, v, r.proof)
