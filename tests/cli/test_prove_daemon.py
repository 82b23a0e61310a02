"""`cuzk prove --daemon ADDR` (issue 42 item 4): a running daemon makes the proof and keeps the key.

The circuit is registered on first use from the client's files (cuzk.key_ids,
cuzk/engine/catalog/by_path.py); the client process imports neither numba nor numpy;
proofs are checked by snarkjs (an outside verifier), refusals are one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cuzk.server.local_daemon import LocalDaemon

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "bits_mix"
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
needs_snarkjs = pytest.mark.skipif(not SNARKJS.exists() or shutil.which("node") is None,
                                   reason=f"snarkjs not installed ({SNARKJS}): run `npm ci` in {REPO}")
QUIET = {**os.environ, "CUZK_PROGRESS": "0"}


def setup_key(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    zkey, vk = folder / "bits_mix.zkey", folder / "vk.json"
    subprocess.run([sys.executable, "-m", "cuzk", "setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--zkey",
                    str(zkey), "--vk-json", str(vk), "--backend", "cpu"], check=True, capture_output=True, env=QUIET,
                   timeout=900)
    return zkey, vk


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = LocalDaemon(tmp_path_factory.mktemp("daemon"), '[gpus]\nbackend = "cpu"\n', env={"CUZK_PROGRESS": "0"})
    with d:
        yield d


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    return setup_key(tmp_path_factory.mktemp("key"))


CLIENT = """
import sys
from cuzk.cli.main import main
rc = main(sys.argv[1:])
print(rc, "numba" in sys.modules, "numpy" in sys.modules)
"""


def prove(address: str, zkey: Path, wtns: Path, out: Path, *extra: str, env=None) -> subprocess.CompletedProcess:
    """`cuzk prove --daemon` in a fresh process that reports its exit code and whether numba/numpy got imported."""
    return subprocess.run([sys.executable, "-c", CLIENT, "prove", "--daemon", address, "--zkey", str(zkey),
                           "--wtns", str(wtns), "--proof", str(out / "proof.json"), "--public",
                           str(out / "public.json"), *extra], capture_output=True, text=True, env=env or QUIET,
                          timeout=900)


def verify(vk: Path, out: Path) -> bool:
    res = subprocess.run([str(SNARKJS), "groth16", "verify", str(vk), str(out / "public.json"),
                          str(out / "proof.json")], capture_output=True, text=True, timeout=300)
    return res.returncode == 0 and "OK!" in res.stdout


@needs_snarkjs
def test_proofs_through_the_daemon_verify_and_the_client_imports_no_numba(daemon, key, tmp_path):
    zkey, vk = key
    for i in range(2):  # the first registers the circuit, the second finds it resident
        out = tmp_path / f"run{i}"
        out.mkdir()
        res = prove(daemon.address, zkey, EXAMPLE / "witness.wtns", out, "--r1cs", str(EXAMPLE / "bits_mix.r1cs"))
        assert res.stdout.split() == ["0", "False", "False"], res.stdout + res.stderr
        assert "through the daemon at" in res.stderr
        assert verify(vk, out)
        assert json.loads((out / "public.json").read_text())[:2] == ["95", "5"]  # popcount, ltCount (README)


def table_counts(daemon) -> dict[str, float]:
    """The daemon's MSM window tables as GetMetrics reports them: kept, pending (waiting or building)."""
    with daemon.client() as c:
        text = c.metrics()
    return {m.group(1): float(m.group(2)) for m in re.finditer(r'^cuzk_cpu_msm_tables\{state="(\w+)"\} (\S+)$', text, re.M)}


@needs_snarkjs
def test_a_resident_key_gets_msm_tables_and_its_proofs_verify(daemon, key, tmp_path):
    """The daemon's default config keeps CPU MSM window tables for a key it has proven (built after
    that proof, at idle priority); the proofs made with them verify under snarkjs."""
    zkey, vk = key
    for i in range(2):  # the first may register the key; the tables come after it, the second uses them
        out = tmp_path / f"run{i}"
        out.mkdir()
        res = prove(daemon.address, zkey, EXAMPLE / "witness.wtns", out, "--r1cs", str(EXAMPLE / "bits_mix.r1cs"))
        assert res.stdout.split()[0] == "0", res.stdout + res.stderr
        assert verify(vk, out)
        deadline = time.monotonic() + 300
        while (counts := table_counts(daemon)).get("pending", 1) > 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert counts["pending"] == 0 and counts["kept"] >= 5, counts  # bits_mix: five vectors of >= 1024 bases


def test_a_witness_that_does_not_satisfy_the_circuit_is_refused(daemon, key, tmp_path):
    zkey, _ = key
    data = bytearray((EXAMPLE / "witness.wtns").read_bytes())
    data[-32] ^= 1  # the last wire, an internal signal: its value changes
    bad = tmp_path / "bad.wtns"
    bad.write_bytes(bytes(data))
    res = prove(daemon.address, zkey, bad, tmp_path, "--r1cs", str(EXAMPLE / "bits_mix.r1cs"))
    assert res.stdout.split()[0] == "1", res.stdout + res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith(f"cuzk: error: {bad}: the witness does not satisfy the circuit") and "constraint" in line
    assert not (tmp_path / "proof.json").exists()


@needs_snarkjs
def test_a_key_written_again_at_the_same_path_is_registered_anew(daemon, tmp_path):
    folder = tmp_path / "keys"
    for i in range(2):  # a new setup at the same path: other toxic waste, another vk
        zkey, vk = setup_key(folder)
        out = tmp_path / f"run{i}"
        out.mkdir()
        res = prove(daemon.address, zkey, EXAMPLE / "witness.wtns", out, "--no-check", env={**QUIET,
                                                                                               "CUZK_DAEMON": ""})
        assert res.stdout.split()[0] == "0", res.stdout + res.stderr
        assert verify(vk, out)


def test_cuzk_daemon_in_the_environment_is_used(daemon, key, tmp_path):
    zkey, _ = key
    res = subprocess.run([sys.executable, "-m", "cuzk", "prove", "--zkey", str(zkey), "--no-check", "--wtns",
                          str(EXAMPLE / "witness.wtns"), "--proof", str(tmp_path / "p.json"), "--public",
                          str(tmp_path / "pub.json")], capture_output=True, text=True,
                         env={**QUIET, "CUZK_DAEMON": daemon.address}, timeout=900)
    assert res.returncode == 0 and "through the daemon at" in res.stderr, res.stderr


@pytest.mark.parametrize("address, message", [
    ("localhost:9820", "give the daemon's unix socket"),
    ("unix:{tmp}/nobody.sock", "no cuzk daemon answers at"),
])
def test_a_tcp_address_or_no_daemon_is_one_line(key, tmp_path, address, message):
    zkey, _ = key
    res = prove(address.format(tmp=tmp_path), zkey, EXAMPLE / "witness.wtns", tmp_path, "--no-check")
    assert res.stdout.split()[0] == "2", res.stdout + res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("cuzk: error: ") and message in line


@needs_snarkjs
def test_a_job_of_a_key_named_by_its_path_resumes_after_a_crash(tmp_path):
    """A `cuzk prove --daemon` job queued when the daemon died is proved after the restart, its key
    registered again from the same files (snarkjs verifies the proof); had the key been written again in
    between, the job fails, naming the change, rather than being proved with other parameters."""
    from cuzk import key_ids
    from cuzk.cli.prove_remote import _write_proof, _write_public
    from cuzk.engine import Engine, JobState, ProofRequest
    from cuzk.engine.jobs.journal import Journal
    from cuzk.engine.jobs.store import JournalingJobStore
    from synthetic_engine import synthetic_config

    state = tmp_path / "state"
    zkey, vk = setup_key(tmp_path / "keys")
    request = ProofRequest(circuit_id=key_ids.make(str(zkey), str(EXAMPLE / "bits_mix.r1cs")),
                           vanilla_proof=(EXAMPLE / "witness.wtns").read_bytes())

    def engine():
        cfg = synthetic_config(state, gpus__gpu_threads=1).validate()
        return Engine(cfg, store=JournalingJobStore(Journal(state), 3600, 100)).start()

    def crash_with_a_queued_job() -> str:
        a = engine()
        a.pause(True)
        job_id = a.submit(request).job_id
        a.store.close()  # the "crash": nothing reaches the journal from here on
        a.shutdown(drain=False)
        return job_id

    job_id = crash_with_a_queued_job()
    b = engine()
    try:
        assert b.recovered["resumed"] == 1
        r = b.await_job(job_id, timeout=600)
        assert r.state == JobState.COMPLETED, r.error
        _write_proof(str(tmp_path / "proof.json"), r.proof)
        _write_public(str(tmp_path / "public.json"), [int(v) for v in r.public_inputs[0]])
        assert verify(vk, tmp_path)
    finally:
        b.shutdown(drain=False)
        b.store.close()

    job_id = crash_with_a_queued_job()
    setup_key(tmp_path / "keys")  # a new setup at the same path before the restart
    c = engine()
    try:
        r = c.await_job(job_id, timeout=60)
        assert r.state == JobState.FAILED and "changed after this job was submitted" in r.error
    finally:
        c.shutdown(drain=False)
        c.store.close()


@needs_snarkjs
def test_a_daemon_started_just_before_is_waited_for(key, tmp_path):
    """`cuzk daemon & cuzk prove --daemon ...` pasted as one (issue 59): the proof is asked for while the
    daemon is still starting (no socket yet); the client waits for it and the proof verifies."""
    zkey, vk = key
    d = LocalDaemon(tmp_path / "daemon", '[gpus]\nbackend = "cpu"\n')
    assert not d.socket.exists()
    with open(d.log, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "cuzk", "daemon", "--config", str(d.config)], stdout=log,
                                stderr=subprocess.STDOUT, env=QUIET)
    try:
        res = prove(d.address, zkey, EXAMPLE / "witness.wtns", tmp_path, "--r1cs", str(EXAMPLE / "bits_mix.r1cs"))
        assert res.stdout.split()[0] == "0", res.stdout + res.stderr + d.log_text()
        assert verify(vk, tmp_path)
    finally:
        proc.terminate()
        proc.wait(120)


def test_through_a_daemon_a_key_without_its_r1cs_is_one_line(key, tmp_path):
    """One-shot, such a key's proof is verified instead (tests/formats/test_prove_checks_witness.py);
    a daemon checks witnesses against the .r1cs only, so the client asks for it, before any connection."""
    zkey, _ = key
    res = prove(f"unix:{tmp_path}/nobody.sock", zkey, EXAMPLE / "witness.wtns", tmp_path)
    assert res.stdout.split()[0] == "2", res.stdout + res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "bits_mix.r1cs: no such file" in line and "--r1cs" in line and "--no-check" in line
