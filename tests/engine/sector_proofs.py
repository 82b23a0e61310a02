"""What the engine tests of Filecoin's sector proofs (PoRep C2, SnapDeals) share: a good request
accepted and bad ones refused at submit in one line naming the field, `cuzk setup --kind` refusing a
size before any work, and the whole path (TEST parameters under the Filecoin file name, a Curio-shaped
request proved by an engine, its proof checked by arkworks, the outside oracle, against public inputs
the test derives itself)."""

from __future__ import annotations

import pytest
from groth16_oracle import R, read_vk, verify_job, verify_one

from cuzk.engine.errors import InvalidRequest
from cuzk.engine.types import JobState, Priority, ProofRequest

TIMEOUT = 1800


def refused_at_submit(engine, good: ProofRequest, cases: dict, cid: str, stem: str) -> None:
    """`good` is accepted (and, with no parameters in the folder, fails naming the file `stem` it looked
    for); each case (fields changed, words the message holds) is refused at submit in one line, and none
    became a job."""
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
