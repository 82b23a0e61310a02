"""A running daemon (subprocess): GetTrace, `bench --trace`, and `cuzk top` rendering a frame."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from cuzk.bench.trace_file import parse_trace, read_trace
from cuzk.cli import top
from cuzk.cli.main import main
from cuzk.engine.catalog import synthetic
from cuzk.server.local_daemon import LocalDaemon

from trace_helpers import coloured, filled_colours, png_pixels


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    params = tmp_path_factory.mktemp("params")
    d = LocalDaemon(tmp_path_factory.mktemp("daemon"), f"""shutdown_timeout = "2m"
[gpus]
backend = "cpu"
gpu_threads = 1
[srs]
param_cache = "{params}"
[circuits]
synthetic = true
""").start()
    yield d
    d.stop()


def render_text(renderable) -> str:
    console = Console(record=True, file=io.StringIO(), width=140, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_top_shows_queued_jobs_workers_and_parameters(daemon):
    with daemon.client() as c:
        c.pause(True)
        try:
            ids = [c.submit(circuit_id="synthetic-tiny", vanilla_proof=synthetic.generate_vanilla("tiny"),
                            priority=3).job_id for _ in range(2)]
            text = render_text(top.frame(c, daemon.address, top.History()))
        finally:
            c.pause(False)
        for job_id in ids:
            assert c.await_proof(job_id).status == 1
        after = render_text(top.frame(c, daemon.address))
    assert "PAUSED" in text and "queues by priority" in text
    high = next(line for line in text.splitlines() if line.strip().startswith("high"))
    assert high.split()[:3] == ["high", "2", "0"]  # two HIGH jobs scheduled, none batching
    for job_id in ids:
        line = next(line for line in text.splitlines() if job_id[:12] in line)
        assert "synthetic-tiny" in line and "queued" in line and "0/2" in line
    for lane in ("synth-0", "prove-cpu:0-0"):
        assert lane in text
    assert "synthetic-tiny" in text and "cpu" in text
    assert "PAUSED" not in after and "HOT" in after  # the jobs loaded the parameters
    done = re.search(r"last 1 min: [0-9.]+/min \((\d+) done", after.replace("\n", " "))
    assert done and int(done.group(1)) >= 2


def test_get_trace_and_bench_trace_file(daemon, tmp_path, capsys):
    path = tmp_path / "batch.jsonl"
    assert main(["bench", "batch", "--addr", daemon.address, "--kind", "synthetic", "--count", "2",
                 "--trace", str(path)]) == 0
    (run,) = read_trace(path)
    # synth-1: the worker kept for deadline proofs (idle here: these jobs are NORMAL)
    assert {(x["lane"], x["kind"]) for x in run.lanes} == {("synth-0", "synthesis"), ("synth-1", "urgent"),
                                                           ("prove-cpu:0-0", "prover")}
    jobs = [j for j in run.jobs if j["state"] == "COMPLETED"]
    assert len(jobs) >= 2
    for j in jobs[-2:]:
        stages = {s["stage"] for s in run.spans if j["job"] in s["jobs"]}
        assert {"queue", "witness", "spmv", "handoff", "prove", "encode", "msm_h"} <= stages
    with daemon.client() as c:
        everything = parse_trace(c.trace(0))[0]
        assert len(everything.spans) >= len(run.spans)
        recent = c.trace(1e-3)  # events that ended in the last millisecond: none, the daemon is idle
        assert recent.splitlines()[0].startswith('{"ev": "meta"') and len(recent.splitlines()) == 1
    assert main(["bench", "report", str(path), "--out", str(tmp_path / "r")]) == 0
    px = png_pixels(tmp_path / "r" / "timeline.png")
    # lanes filled with the two jobs' bars: 5-7 % of the image's pixels, as low as 5.0 % under make test's load
    # (idle gaps between the bars); a timeline without bars has none
    assert filled_colours(px) >= 4 and coloured(px).mean() > 0.03


def test_top_once_from_the_command_line(daemon, capsys):
    assert main(["top", "--once", "--addr", daemon.address]) == 0
    out = capsys.readouterr().out
    assert "cuzk top" in out and "workers" in out and "throughput" in out


def test_top_without_a_daemon_is_a_one_line_error(tmp_path, capsys):
    assert main(["top", "--once", "--addr", f"unix:{tmp_path}/none.sock"]) == 2
    err = capsys.readouterr().err
    assert "no daemon answers at" in err and err.count("\n") == 1
