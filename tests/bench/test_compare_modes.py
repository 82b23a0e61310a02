"""`cuzk bench batch --compare` with chosen modes, daemons one at a time (the path 32g takes:
three daemons' parameters do not fit side by side), on the CPU at a small size."""

import json
import subprocess
import sys


def test_compare_runs_chosen_modes_one_daemon_at_a_time(tmp_path):
    out = tmp_path / "cmp.json"
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare", "--kind", "synthetic",
                        "--preset", "tiny", "--count", "2", "--rounds", "1", "--modes", "pipelined,pipelined+batched",
                        "--one-at-a-time", "--state-dir", str(tmp_path / "state"), "--json", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["one_at_a_time"] is True and "partial" not in doc  # the per-mode partial file was replaced
    assert list(doc["table"]) == ["pipelined", "pipelined+batched"]
    for mode, row in doc["table"].items():
        summary = doc["runs"][mode][0]["summary"]
        assert (summary["completed"], summary["verified"], summary["failed"]) == (2, 2, 0), mode
        assert 0 < row["synthesis_busy"] <= 1 and 0 < row["prover_busy"] <= 1
        assert row["gpu_busy"] is None and row["device_peak_bytes"] == 0  # CPU: no device-timed phases
        assert row["daemon_exit"] == 0
    assert "s/job" in r.stdout and "GPU busy" in r.stdout


def test_compare_refuses_an_unknown_mode(tmp_path):
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare", "--kind", "synthetic",
                        "--preset", "tiny", "--modes", "pipelined,turbo", "--state-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "turbo" in r.stderr and "Traceback" not in r.stderr, r.stdout + r.stderr
