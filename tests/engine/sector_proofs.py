"""What the engine tests of Filecoin's sector proofs (PoRep C2, SnapDeals) share: a good request
accepted and bad ones refused at submit in one line naming the field, `cuzk setup --kind` refusing a
size before any work, a partition's witness checked against the compiled circuit, and the whole path (TEST parameters under the Filecoin file name, a Curio-shaped
request proved by an engine, its proof checked by arkworks, the outside oracle, against public inputs
the test derives itself)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from groth16_oracle import R, read_vk, verify_job, verify_one

from cuzk.engine.errors import InvalidRequest, MissingParameters
from cuzk.engine.types import JobState, Priority, ProofRequest

TIMEOUT = 1800


def refused_at_submit(engine, good: ProofRequest, cases: dict, cid: str, stem: str) -> None:
    """With no parameters in the folder `good` is refused at submit naming the file `stem` it looked for;
    with an empty file in their place it is accepted (and fails reading it, naming it); each case (fields
    changed, words the message holds) is refused at submit in one line, and none became a job."""
    with pytest.raises(MissingParameters) as err:
        engine.submit(good)
    assert stem in str(err.value) and "\n" not in str(err.value)
    folder = Path(engine.config.circuits.filecoin_params)
    (folder / f"{stem}.params").write_bytes(b"")
    accepted = engine.submit(good)
    assert accepted.circuit_id == cid
    for name, (change, says) in cases.items():
        with pytest.raises(InvalidRequest) as err:
            engine.submit(ProofRequest(**{**good.__dict__, **change}))
        msg = str(err.value)
        assert says in msg and "\n" not in msg, (name, msg)
    res = engine.await_job(accepted.job_id, TIMEOUT)
    assert res.state == JobState.FAILED and stem in res.error, res.error
    st = engine.status()
    assert (st.completed, st.failed) == (0, 1)  # the refused requests never became jobs


def setup_refuses_a_size(kind: str, tmp_path, capsys) -> None:
    from cuzk.cli.main import main

    assert main(["setup", "--kind", kind, "--sector-size", "3KiB", "--params-dir", str(tmp_path / "p")]) != 0
    err = capsys.readouterr().err
    assert "--sector-size" in err and "32GiB" in err and "Traceback" not in err
    assert not any((tmp_path / "p").glob("*.params"))


def prove_and_verify(make_engine, tmp_path, backend: str, kind: str, req: ProofRequest, expected, cid: str,
                     stem: str) -> None:
    """2 KiB TEST parameters by `cuzk setup --kind`, `req` proved by an engine on `backend`, each
    partition's proof verified against `expected` (and not against a changed public input)."""
    from cuzk.cli.main import main

    params = tmp_path / "params"
    assert main(["setup", "--kind", kind, "--sector-size", "2KiB", "--params-dir", str(params),
                 "--backend", backend]) == 0
    engine = make_engine(circuits__filecoin_params=str(params), gpus__backend=backend, gpus__gpu_threads=0)
    res = engine.prove(req, TIMEOUT)
    assert res.state == JobState.COMPLETED, res.error
    assert (res.circuit_id, res.priority) == (cid, Priority.NORMAL)
    vk = read_vk(params / f"{stem}.vk")
    assert [list(map(int, xs)) for xs in res.public_inputs] == expected
    assert verify_job(vk, res.proof, expected)
    assert not verify_one(vk, res.proof[:192], expected[0][:-1] + [(expected[0][-1] + 1) % R])


def witness_satisfies_the_circuit(spec, req: ProofRequest, expected) -> None:
    """The witness of `req`'s partition 0 satisfies the compiled circuit (SpMV), its public inputs and
    the spec's are `expected` (a verifier's, per partition), and one changed aux value breaks it."""
    w = spec.witness(spec.check(req), 0)
    assert w.public_inputs == expected[0]
    assert spec.public_inputs(req) == expected
    spec.rows(w.w)  # raises when a constraint fails
    w.w[-1] = w.w[0]  # one aux value changed: the inputs no longer satisfy it
    with pytest.raises(ValueError, match="do not satisfy the circuit"):
        spec.rows(w.w)


def proving_tests(kind: str, request, statement, cid: str, stem: str, cpu_takes: str):
    """The twin tests (cpu, gpu) of prove_and_verify for `request(6)`; the CPU one runs only with
    CUZK_LONG_FILECOIN=1 (`cpu_takes` says why it is long)."""
    long = pytest.mark.skipif(os.environ.get("CUZK_LONG_FILECOIN") != "1",
                              reason=f"the 2 KiB {cpu_takes}: set CUZK_LONG_FILECOIN=1 (the gpu-marked twin "
                                     f"runs it on a device)")

    def run(make_engine, tmp_path, backend: str) -> None:
        req = request(6)
        prove_and_verify(make_engine, tmp_path, backend, kind, req, statement(req), cid, stem)

    @pytest.mark.slow
    @long
    def cpu(make_engine, tmp_path):
        run(make_engine, tmp_path, "cpu")

    @pytest.mark.gpu
    def gpu(make_engine, tmp_path):
        run(make_engine, tmp_path, "cuda")

    return cpu, gpu
