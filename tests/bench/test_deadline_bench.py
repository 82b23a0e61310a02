"""`cuzk bench deadline` on the CPU at a small size: background jobs alone, then again with deadline jobs
injected; every job completed and verified, each at its kind's priority, the throughputs reported."""

import json
import subprocess
import sys


def test_deadline_jobs_injected_among_background_jobs_complete_and_verify(tmp_path):
    out = tmp_path / "deadline.json"
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "deadline", "--background", "synthetic",
                        "--preset", "tiny", "--deadline", "window-post-2KiB", "--sectors", "2", "--inject", "1",
                        "--state-dir", str(tmp_path / "state"), "--json", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    table = doc["table"]
    assert set(table) == {"synthetic-tiny alone", "synthetic-tiny mixed", "window-post-2KiB mixed"}
    for name, row in table.items():
        jobs = 1 if name.startswith("window") else 2
        assert (row["jobs"], row["completed"], row["verified"]) == (jobs, jobs, jobs), name
        assert len(row["submit_to_proof_s"]) == jobs and row["max_s"] > 0
    assert table["window-post-2KiB mixed"]["priority"] == "high"
    assert table["synthetic-tiny alone"]["jobs_per_min"] > 0 and doc["daemon_exit"] == 0
    phases = [x["phase"] for x in doc["records"]]
    assert phases.count("warm-up") == 2 and phases.count("mixed") == 3
    assert "background throughput lost" in r.stdout and "Traceback" not in r.stderr


def test_deadline_refuses_an_unknown_kind(tmp_path):
    r = subprocess.run([sys.executable, "-m", "cuzk", "bench", "deadline", "--deadline", "no-such-post",
                        "--state-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "no-such-post" in r.stderr and "Traceback" not in r.stderr, r.stdout + r.stderr
