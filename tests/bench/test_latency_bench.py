"""`cuzk bench latency` at a tiny size, one repetition: its table and JSON, the proofs it leaves
checked by snarkjs (an outside verifier), and a clear note when rapidsnark or snarkjs are absent.
No timing thresholds: the figures are only checked to be there."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.bench.latency import N_PUBLIC, parse_sizes
from cuzk.cli.main import main
from cuzk.errors import CuzkError

REPO = Path(__file__).resolve().parents[2]
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
RAPIDSNARK = REPO.parent / "shared" / "anchors" / "rapidsnark" / "prover"
needs_snarkjs = pytest.mark.skipif(not SNARKJS.exists() or shutil.which("node") is None,
                                   reason=f"snarkjs not installed ({SNARKJS}): run `npm ci` in {REPO}")
SIZE = 120


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("latency")


def bench(workdir: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = workdir / "latency.json"
    out.unlink(missing_ok=True)
    res = subprocess.run([sys.executable, "-m", "cuzk", "bench", "latency", "--sizes", str(SIZE), "--repeat", "1",
                          "--dir", str(workdir), "--json", str(out), *extra],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    return res, json.loads(out.read_text())


def test_sizes_are_parsed():
    assert parse_sizes("10k,2^16,20,500") == [10_000, (1 << 16) - N_PUBLIC - 1, (1 << 20) - N_PUBLIC - 1, 500]
    for bad in ("", "ten", "2^40", "1"):
        with pytest.raises(CuzkError):
            parse_sizes(bad)


def test_bad_sizes_are_a_usage_error(capsys):
    assert main(["bench", "latency", "--sizes", "ten"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cuzk: error: --sizes") and err.count("\n") == 1


@needs_snarkjs
def test_latency_table_json_and_proofs(workdir):
    res, data = bench(workdir)
    assert data["benchmark"] == "latency" and data["repeat"] == 1
    (size,) = data["sizes"]
    assert size["constraints"] == SIZE and size["domain"] == 128 and size["wires"] > SIZE
    tools = size["tools"]
    assert set(tools) == {"rapidsnark", "snarkjs", "cuzk"}
    have_rapidsnark = RAPIDSNARK.is_file()
    for name, run in tools.items():
        if name == "rapidsnark" and not have_rapidsnark:
            assert not run["available"] and run["median_s"] is None
            continue
        assert run["available"] and len(run["seconds"]) == 1 and run["median_s"] > 0, name
        assert run["verified"] is True, name
    assert {"total", "read", "abc", "check", "prove", "msm_h"} <= set(tools["cuzk"]["phases_ms"])
    assert (size["ratio_cuzk_rapidsnark"] is not None) == have_rapidsnark
    assert size["ratio_cuzk_snarkjs"] > 0
    # the table: a header and one row with the size and the three times
    lines = res.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["constraints", "domain"])
    row = lines[head + 1].split()
    assert row[0] == str(SIZE) and row[1] == "2^7"
    # the proof cuzk made verifies with snarkjs, checked here on the files the bench left
    run_dir = workdir / f"run_{SIZE}"
    vk = workdir / f"circom_like_{SIZE}.vk.json"
    ver = subprocess.run([str(SNARKJS), "groth16", "verify", str(vk), str(run_dir / "cuzk.public.json"),
                          str(run_dir / "cuzk.proof.json")], capture_output=True, text=True, timeout=300)
    assert ver.returncode == 0 and "OK!" in ver.stdout, ver.stdout + ver.stderr
    # the public signals are the witness's: the same as snarkjs's own proof of it
    assert json.loads((run_dir / "cuzk.public.json").read_text()) == json.loads(
        (run_dir / "snarkjs.public.json").read_text())


def test_absent_tools_are_named_and_no_ratio_is_printed(workdir):
    res, data = bench(workdir, "--rapidsnark", str(workdir / "no-rapidsnark"), "--snarkjs", str(workdir / "no-snarkjs"))
    assert re.search(r"rapidsnark: not found at .*no-rapidsnark.*cuzk/rapidsnark is not printed", res.stdout)
    assert re.search(r"snarkjs: not found at .*no-snarkjs", res.stdout)
    (size,) = data["sizes"]
    assert size["ratio_cuzk_rapidsnark"] is None and size["ratio_cuzk_snarkjs"] is None
    assert not size["tools"]["rapidsnark"]["available"] and not size["tools"]["snarkjs"]["available"]
    cz = size["tools"]["cuzk"]
    assert cz["available"] and cz["median_s"] > 0 and cz["verified"] is None
    assert "cuzk/rapidsnark" not in res.stdout.split("size ")[-1].splitlines()[1]


@needs_snarkjs
def test_resident_daemon_proofs_verify_and_are_timed(workdir):
    """--resident: `cuzk prove --daemon` processes in the rotation (client process included), then proofs
    from the bench's own process through the same daemon; both kinds of proof verify with snarkjs for the
    witness's own public signals."""
    res, data = bench(workdir, "--resident", "cpu")
    (size,) = data["sizes"]
    client = size["tools"]["cuzk-daemon"]
    assert client["available"] and len(client["seconds"]) == 1 and client["median_s"] > 0
    assert "--daemon" in client["command"] and client["verified"] is True
    d = size["resident"]
    assert d["backend"].startswith("cpu") and len(d["ms"]) == 1 and d["median_ms"] > 0 and d["prover_ms"] >= 0
    assert d["verified"] is True and d["warmup_s"] > 0 and d["ready_s"] > 0
    dm = d["daemon_ms"]  # the daemon's own phases: its prover time is within its total, within the client's
    assert dm["prover"] == d["prover_ms"] and dm["prover"] <= dm["total"] <= d["ms"][-1] + 1
    assert abs(d["outside_prover_ms"] - (d["ms"][0] - d["prover_ms"])) < 0.02  # one proof: its own difference
    assert (size["ratio_resident_rapidsnark"] is not None) == RAPIDSNARK.is_file()
    run_dir = workdir / f"run_{SIZE}"
    for prefix in ("cuzk-daemon", "cuzk-resident"):
        assert json.loads((run_dir / f"{prefix}.public.json").read_text()) == json.loads(
            (run_dir / "snarkjs.public.json").read_text())
    lines = res.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["constraints", "domain"])
    assert "cuzk --daemon s" in lines[head] and "daemon/rapidsnark" in lines[head]
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["constraints", "daemon"])
    assert "outside prover ms" in lines[head] and lines[head + 1].split()[0] == str(SIZE)
