"""`cuzk bench report` turns a recorded trace into PNG plots and a summary."""

from __future__ import annotations

import pytest

from cuzk.bench.report_plots import plot_timeline, stage_means
from cuzk.bench.trace_file import label_run, parse_trace
from cuzk.bench.trace_summary import critical_path, summarize
from cuzk.cli.main import main

from trace_helpers import coloured, filled_colours, png_pixels

PNGS = ("timeline.png", "phases.png", "throughput.png", "memory.png")


def test_report_writes_the_plots_and_summary(recorded, tmp_path, capsys):
    _, text, _ = recorded
    trace = tmp_path / "t.jsonl"
    trace.write_text(text)
    assert main(["bench", "report", str(trace), "--out", str(tmp_path / "out")]) == 0
    px = {name: png_pixels(tmp_path / "out" / name) for name in PNGS}
    for name in PNGS:
        h, w, _ = px[name].shape
        assert w > 200 and h > 100
        assert (tmp_path / "out" / name).stat().st_size < 200_000
    # what each plot shows: the timeline's lanes are filled with job bars and stage/phase strips, the
    # phase plot has its stacked bars, the throughput and memory plots have their curves
    assert filled_colours(px["timeline.png"]) >= 6 and coloured(px["timeline.png"]).mean() > 0.05
    assert filled_colours(px["phases.png"]) >= 3 and coloured(px["phases.png"]).mean() > 0.05
    for name in ("throughput.png", "memory.png"):
        assert coloured(px[name]).sum() > 500, name
    summary = (tmp_path / "out" / "summary.txt").read_text()
    out = capsys.readouterr().out
    assert summary in out
    assert "3 job(s) completed, 0 failed" in summary
    assert "prover busy" in summary and "critical path" in summary and "limiting stage: " in summary


def test_compare_runs_are_drawn_side_by_side(recorded, tmp_path):
    _, text, _ = recorded
    both = parse_trace(label_run(text, "sequential") + label_run(text, "pipelined"))
    assert [r.name for r in both] == ["sequential", "pipelined"]
    one = png_pixels(plot_timeline(both[:1], tmp_path / "one.png"))
    two = png_pixels(plot_timeline(both, tmp_path / "two.png"))
    assert two.shape[1] > 1.5 * one.shape[1]
    # both runs drawn: the right half of the side-by-side plot is filled like its left half, where the
    # single run's plot has little but its legend
    lanes = coloured(two)
    left, right = lanes[:, : two.shape[1] // 2].mean(), lanes[:, two.shape[1] // 2 :].mean()
    assert left > 0.08 and right > 0.08 and coloured(one)[:, one.shape[1] // 2 :].mean() < 0.06, (left, right)


def test_summary_figures_follow_from_the_spans(recorded):
    ids, text, _ = recorded
    (run,) = parse_trace(text)
    s = summarize(run)
    assert s.completed == 3 and s.failed == 0
    assert 0 < s.prover_busy <= 1 and 0 < s.synthesis_busy <= 1
    assert set(s.per_lane) == {"synth-0", "synth-1", "prove-cpu:0-0"}  # synth-1: kept for deadline proofs
    # the critical path runs from the first submission to the last span's end, gaps counted as idle
    path = critical_path(run)
    assert path[0][0] == "encode"  # the run ends with the last partition's proof being encoded
    assert sum(sec for _, sec in path) == pytest.approx(run.end - run.start, rel=0.01, abs=2e-3)
    assert s.limiting in {stage for stage, _ in path}
    means = stage_means([run])["synthetic-tiny"]
    assert {"queue", "witness", "spmv", "prove", "encode", "msm_h"} <= set(means)


@pytest.mark.parametrize("content, message", [
    ("not json\n", "t.jsonl:1: not a JSON object"),
    ('{"ev": "meta", "lanes": []}\n{"ev": "span", "stage": "prove", "lane": "x", "t0": 2, "t1": 1}\n',
     "t.jsonl:2: span ends before it starts"),
    ('{"ev": "meta", "lanes": []}\n', "no stage intervals in the trace"),
])
def test_bad_traces_are_one_line_errors(tmp_path, capsys, content, message):
    (tmp_path / "t.jsonl").write_text(content)
    assert main(["bench", "report", str(tmp_path / "t.jsonl"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_device_timed_phases_are_plotted_as_a_second_strip(tmp_path):
    from cuzk.bench.report_plots import write_report
    from cuzk.engine.observe.trace import TraceRecorder

    tr = TraceRecorder()
    tr.add_lane("synth-0", "synthesis")
    tr.add_lane("prove-cuda:0-0", "prover", "cuda:0")
    unit = {"jobs": ["j1"], "partition": 0, "circuit": "c", "kind": "k", "batch": "b", "unit": "b/0"}
    tr.span("synth-0", "witness", unit, 0.0, 1.0)
    tr.span("synth-0", "spmv", unit, 1.0, 1.5)
    tr.span("prove-cuda:0-0", "prove", unit, 1.5, 3.5)
    tr.prover_phases("prove-cuda:0-0", unit, 1.5, 3.5,
                     [{"ntt_h": 500.0, "msm_h": 1000.0, "total": 2000.0, "gpu:h": 300.0, "gpu:msm_h": 800.0}])
    (run,) = parse_trace(tr.jsonl())
    assert sorted((s["stage"], s["depth"]) for s in run.spans if s["depth"]) == [
        ("gpu:h", 2), ("gpu:msm_h", 2), ("msm_h", 1), ("ntt_h", 1)]
    paths = write_report([run], tmp_path)
    px = {p.name: png_pixels(p) for p in paths if p.suffix == ".png"}  # every plot decodes
    assert sorted(px) == sorted(PNGS) and (tmp_path / "summary.txt").read_text()
    assert filled_colours(px["timeline.png"]) >= 4  # the synthesis strips and both prover strips
    means = stage_means([run])["c"]
    assert means["prove"] == pytest.approx(0.5) and "gpu:msm_h" not in means  # host phases only, no double count
