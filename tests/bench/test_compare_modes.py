"""`cuzk bench batch --compare` with chosen modes, daemons one at a time (the path 32g takes:
three daemons' parameters do not fit side by side), on the CPU at a small size."""

import json
import subprocess
import sys

import pytest


def test_compare_runs_chosen_modes_one_daemon_at_a_time(tmp_path):
    out = tmp_path / "cmp.json"
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare", "--kind", "synthetic",
                        "--preset", "tiny", "--count", "2", "--rounds", "1", "--modes", "pipelined,pipelined+batched",
                        "--one-at-a-time", "--gpu-workers", "1", "--state-dir", str(tmp_path / "state"),
                        "--json", str(out)],
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
        # the round's memory samples: the budget's count, and the daemon's resident bytes (the kernel's count,
        # at least the budget's hot parameters and a Python process's tens of MiB)
        assert row["budget_peak_bytes"] > 0 and row["round_peak_rss_bytes"] >= 20 << 20
        assert row["round_peak_rss_bytes"] <= row["daemon_peak_rss_bytes"]
    assert "s/job" in r.stdout and "GPU busy" in r.stdout
    assert "prover workers per GPU 1" in r.stdout


@pytest.mark.parametrize("flag,value", [("--device-memory", "lots"), ("--gpu-workers", "0")])
def test_compare_refuses_a_bad_daemon_setting(tmp_path, flag, value):
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare", "--kind", "synthetic",
                        "--preset", "tiny", flag, value, "--state-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and flag in r.stderr and "Traceback" not in r.stderr, r.stdout + r.stderr


def test_compare_refuses_an_unknown_mode(tmp_path):
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "batch", "--compare", "--kind", "synthetic",
                        "--preset", "tiny", "--modes", "pipelined,turbo", "--state-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "turbo" in r.stderr and "Traceback" not in r.stderr, r.stdout + r.stderr


def test_busy_figures_cover_the_measured_round_only():
    """The daemon's trace also holds the warm-up job, submitted long before the round (a minute
    at 32g): busy fractions are taken over the round's jobs, from their first submission to the
    last of them ending."""
    from cuzk.bench.pipeline_compare import trace_figures

    lanes = [{"lane": "synth-0", "kind": "synthesis", "device": ""},
             {"lane": "prove-cuda:0-0", "kind": "prover", "device": "cuda:0"}]
    ev = [{"ev": "meta", "version": 1, "lanes": lanes, "run": "pipelined"}]

    def span(lane, stage, t0, t1, job, depth=0):
        ev.append({"ev": "span", "stage": stage, "lane": lane, "t0": t0, "t1": t1, "jobs": [job], "unit": job + "/0",
                   "depth": depth})

    span("synth-0", "witness", 1.0, 2.0, "warm")  # the warm-up job: 0 .. 10
    span("prove-cuda:0-0", "prove", 2.0, 10.0, "warm")
    span("prove-cuda:0-0", "gpu:msm_h", 8.0, 10.0, "warm", depth=2)
    ev.append({"ev": "job", "t": 10.0, "job": "warm", "state": "COMPLETED", "submitted": 0.0})
    span("synth-0", "witness", 50.0, 52.0, "r1")  # the round: submitted at 50, done at 60
    span("prove-cuda:0-0", "prove", 52.0, 60.0, "r1")
    span("prove-cuda:0-0", "gpu:h", 52.5, 55.0, "r1", depth=2)
    span("prove-cuda:0-0", "gpu:msm_h", 55.0, 59.5, "r1", depth=2)
    ev.append({"ev": "job", "t": 60.0, "job": "r1", "state": "COMPLETED", "submitted": 50.0})
    figures = trace_figures("\n".join(json.dumps(e) for e in ev), ["r1"])
    assert figures["gpu_busy"] == pytest.approx(0.7)  # (2.5 + 4.5) s of device phases in the round's 10 s
    assert figures["synthesis_busy"] == pytest.approx(0.2) and figures["prover_busy"] == pytest.approx(0.8)
