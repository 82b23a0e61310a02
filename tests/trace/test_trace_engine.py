"""The engine's trace covers every stage of every proved partition, consistently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_helpers import CIRCUIT, engine_config, prove_jobs

from cuzk.bench.trace_file import parse_trace
from cuzk.engine import Engine
from cuzk.engine.observe.trace import SYNTHESIS_STAGES, TraceRecorder

EPS = 1e-6
SYNTH_ORDER = ("memory_wait", "witness", "spmv", "handoff")


def spans_of(run, job_id, partition):
    return [s for s in run.spans if job_id in s["jobs"] and s["partition"] == partition]


def one(spans, stage):
    found = [s for s in spans if s["stage"] == stage and s.get("depth", 0) == 0]
    assert len(found) == 1, (stage, found)
    return found[0]


def test_every_stage_of_every_partition_is_recorded_in_order(recorded):
    ids, text, _ = recorded
    (run,) = parse_trace(text)
    for job_id in ids:
        for p in range(2):  # the synthetic circuit has two partitions
            spans = spans_of(run, job_id, p)
            queue, prove, encode = one(spans, "queue"), one(spans, "prove"), one(spans, "encode")
            synth = [one(spans, st) for st in SYNTH_ORDER]
            assert queue["lane"] == "queue"
            assert {s["lane"] for s in synth} == {"synth-0"}
            assert prove["lane"] == encode["lane"] == "prove-cpu:0-0"
            chain = [queue] + synth + [prove, encode]
            for a, b in zip(chain, chain[1:]):
                assert a["t0"] <= a["t1"] <= b["t0"] + EPS, (a["stage"], b["stage"])
            assert {s["circuit"] for s in chain} == {CIRCUIT}
            assert len({s["unit"] for s in chain}) == 1
            phases = [s for s in spans if s.get("depth") == 1]
            names = [s["stage"] for s in phases]
            assert {"ntt_h", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"} <= set(names)
            for s in phases:  # the prover's phases lie inside their prove span, one after the other
                assert prove["t0"] - EPS <= s["t0"] <= s["t1"] <= prove["t1"] + EPS
                assert s["parent"] == "prove" and s["lane"] == prove["lane"]
            for a, b in zip(phases, phases[1:]):
                assert a["t1"] <= b["t0"] + EPS
        end = next(j for j in run.jobs if j["job"] == job_id)
        assert end["state"] == "COMPLETED" and end["partitions"] == 2
        last_prove = max(s["t1"] for s in run.spans if job_id in s["jobs"] and s["stage"] == "prove")
        assert end["submitted"] <= end["t"] and last_prove <= end["t"] + EPS
    # parameters were loaded once, by the first unit, before its witness
    loads = [s for s in run.spans if s["stage"] == "param_load"]
    assert len(loads) == 1 and loads[0]["jobs"] == [ids[0]]
    assert loads[0]["t1"] <= one(spans_of(run, ids[0], 0), "witness")["t0"] + EPS


def test_intervals_never_overlap_on_a_worker(recorded):
    _, text, lanes = recorded
    (run,) = parse_trace(text)
    # synth-1: the worker kept for deadline proofs, idle (these jobs are NORMAL)
    assert {x["lane"] for x in run.lanes} == set(lanes) == {"synth-0", "synth-1", "prove-cpu:0-0"}
    assert {s["lane"] for s in run.spans} == {"queue", "synth-0", "prove-cpu:0-0"}
    for lane in lanes:
        for depth in (0, 1, 2):
            spans = sorted((s for s in run.spans if s["lane"] == lane and s.get("depth", 0) == depth),
                           key=lambda s: s["t0"])
            for a, b in zip(spans, spans[1:]):
                assert a["t1"] <= b["t0"] + EPS, (lane, a["stage"], b["stage"])
    assert {s["stage"] for s in run.spans if s["lane"] == "synth-0"} == set(SYNTHESIS_STAGES)


def test_memory_samples_track_the_budget_and_end_released(recorded):
    _, text, _ = recorded
    (run,) = parse_trace(text)
    assert run.mems
    assert all(0 <= m["used"] <= m["limit"] for m in run.mems)
    assert max(m["used"] for m in run.mems) > run.mems[-1]["used"]  # working sets were reserved, then freed
    assert run.mems[-1]["used"] == run.mems[-1]["hot"]  # only the hot parameters remain
    # beside the budget, what the kernel counts: this process's resident bytes, read back here from
    # /proc/self/status (a Python process holds tens of MiB at least)
    status = Path("/proc/self/status").read_text()
    now = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) * 1024
    assert all(20 << 20 <= m["rss"] and 0 <= m["shared"] <= m["rss"] for m in run.mems)
    assert 0.5 * now <= run.mems[-1]["rss"] <= 2 * now


def test_jsonl_is_one_object_per_line_with_a_meta_line_first(recorded):
    _, text, _ = recorded
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines[0]["ev"] == "meta" and lines[0]["version"] == 1 and lines[0]["dropped"] == 0
    assert {x["ev"] for x in lines[1:]} == {"span", "mem", "job"}


def test_batched_pass_is_one_prove_span_for_both_jobs(state_dir):
    with Engine(engine_config(state_dir, scheduler__max_batch_size=2, scheduler__max_batch_wait_ms=2000)) as e:
        ids = prove_jobs(e, 2)
        (run,) = parse_trace(e.trace.jsonl())
    proves = [s for s in run.spans if s["stage"] == "prove"]
    assert len(proves) == 2  # one pass per partition
    assert all(sorted(s["jobs"]) == sorted(ids) for s in proves)
    for p in range(2):
        for job_id in ids:  # each job's witness and SpMV are their own spans, before the shared pass
            w = one(spans_of(run, job_id, p), "spmv")
            prove = next(s for s in proves if s["partition"] == p)
            assert w["t1"] <= prove["t0"] + 1e-6
        # phases of both proofs of the pass, the second after the first
        phases = [s for s in run.spans if s.get("depth") == 1 and s["partition"] == p]
        assert {s["proof"] for s in phases} == {0, 1}
        assert max(s["t1"] for s in phases if s["proof"] == 0) <= min(s["t0"] for s in phases if s["proof"] == 1) + EPS


def test_capacity_zero_turns_the_trace_off(state_dir):
    with Engine(engine_config(state_dir, trace__capacity=0)) as e:
        prove_jobs(e, 1)
        assert e.trace.events() == []
        assert e.trace.throughput()[0][1] == 1  # recent throughput is still counted
        assert e.status().workers[0]["stage"] == ""


# ---- the recorder on its own ----------------------------------------------------------------


UNIT = {"jobs": ["j"], "partition": 0, "circuit": "c", "kind": "k", "batch": "b", "unit": "b/0"}


def test_ring_buffer_keeps_the_newest_and_counts_the_dropped():
    tr = TraceRecorder(capacity=5)
    for i in range(12):
        tr.span("synth-0", "witness", UNIT, float(i), i + 0.5)
    evs = tr.events()
    assert [e["t0"] for e in evs] == [7.0, 8.0, 9.0, 10.0, 11.0]
    assert tr.dropped() == 7
    assert json.loads(tr.jsonl().splitlines()[0])["dropped"] == 7


def test_last_seconds_keeps_only_recent_events():
    tr = TraceRecorder()
    now = tr.now()
    tr.span("synth-0", "witness", UNIT, now - 100, now - 90)
    tr.span("synth-0", "spmv", UNIT, now - 5, now - 4)
    assert [e["stage"] for e in tr.events(30)] == ["spmv"]
    assert len(tr.events()) == 2


@pytest.mark.parametrize("timings, expected", [
    # numbers: laid end to end from the proof's start; "total" moves on to the next proof
    ([{"a": 100.0, "b": 200.0, "total": 400.0}, {"a": 100.0, "total": 100.0}],
     [("a", 1, 0, 0.0, 0.1), ("b", 1, 0, 0.1, 0.3), ("a", 1, 1, 0.4, 0.5)]),
    # (start, end) pairs are offsets from the proof's start; everything is clipped to the prove span
    ([{"cpu": 300.0, "gpu_msm": (50.0, 250.0), "late": (900.0, 1500.0)}],
     [("cpu", 1, 0, 0.0, 0.3), ("gpu_msm", 1, 0, 0.05, 0.25), ("late", 1, 0, 0.9, 1.0)]),
    # device-timed phases ("gpu:...") one level deeper, each no earlier than the host phase of its name
    ([{"ntt_h": 100.0, "msm_h": 200.0, "total": 300.0, "gpu:h": 60.0, "gpu:msm_h": 150.0}],
     [("ntt_h", 1, 0, 0.0, 0.1), ("msm_h", 1, 0, 0.1, 0.3), ("gpu:h", 2, 0, 0.0, 0.06),
      ("gpu:msm_h", 2, 0, 0.1, 0.25)]),
])
def test_prover_phases_become_sub_intervals(timings, expected):
    tr = TraceRecorder()
    tr.prover_phases("prove-cuda:0-0", UNIT, 10.0, 11.0, timings)
    got = [(e["stage"], e["depth"], e["proof"], round(e["t0"] - 10, 6), round(e["t1"] - 10, 6))
           for e in tr.events()]
    assert got == expected
    assert all(e["parent"] == "prove" for e in tr.events())


def test_nested_device_phases_lie_inside_their_parents():
    """CUDA-event timers name a phase when it ends, so children come before their parent (as in a
    32g partition's timings); laid end to end with their parents, nested phases were counted twice
    and every later phase (msm_l ... msm_b_g2) was pushed past the proof's end and clipped empty."""
    timings = {"h": 400.0, "msm_h": 1300.0, "msm_l": 120.0, "total": 1820.0,
               "gpu:h/intt": 140.0, "gpu:h/coset": 150.0, "gpu:h": 355.0,
               "gpu:msm_h/classify": 5.0, "gpu:msm_h/pippenger/sort": 98.0, "gpu:msm_h/pippenger/accumulate": 783.0,
               "gpu:msm_h/pippenger/reduce": 27.0, "gpu:msm_h/pippenger": 910.0, "gpu:msm_h": 915.0,
               "gpu:msm_l/batch_add": 40.0, "gpu:msm_l": 45.0}
    tr = TraceRecorder()
    tr.prover_phases("prove-cuda:0-0", UNIT, 0.0, 2.0, [timings])
    got = {e["stage"]: (round(e["t0"], 6), round(e["t1"], 6)) for e in tr.events() if e["depth"] == 2}
    # top level: end to end, each no earlier than its host phase (h at 0, msm_h at 0.4, msm_l at 1.7)
    assert got["gpu:h"] == (0.0, 0.355) and got["gpu:msm_h"] == (0.4, 1.315) and got["gpu:msm_l"] == (1.7, 1.745)
    # children inside their parent, end to end in the order they ran
    assert got["gpu:h/intt"] == (0.0, 0.14) and got["gpu:h/coset"] == (0.14, 0.29)
    assert got["gpu:msm_h/classify"] == (0.4, 0.405) and got["gpu:msm_h/pippenger"] == (0.405, 1.315)
    assert got["gpu:msm_h/pippenger/sort"] == (0.405, 0.503)
    assert got["gpu:msm_h/pippenger/accumulate"] == (0.503, 1.286)
    assert got["gpu:msm_h/pippenger/reduce"] == (1.286, 1.313)
    assert got["gpu:msm_l/batch_add"] == (1.7, 1.74)
    assert all(b > a for a, b in got.values())  # nothing clipped empty


def test_a_device_phase_without_its_parent_is_laid_at_the_top():
    tr = TraceRecorder()
    tr.prover_phases("p", UNIT, 0.0, 1.0, [{"gpu:x/y": 100.0, "gpu:z": 50.0}])
    assert [(e["stage"], round(e["t0"], 6), round(e["t1"], 6)) for e in tr.events()] == [
        ("gpu:x/y", 0.0, 0.1), ("gpu:z", 0.1, 0.15)]


def test_a_pass_timed_as_a_whole_is_laid_out_once():
    shared = {"ntt": 100.0, "msm": 300.0}
    tr = TraceRecorder()
    tr.prover_phases("p", UNIT, 0.0, 1.0, [shared, shared, None])
    assert [(e["stage"], e["t1"]) for e in tr.events()] == [("ntt", 0.1), ("msm", 0.4)]
