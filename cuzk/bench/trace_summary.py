"""What a trace says in a few lines: busy fractions, the critical path, the limiting stage.

Busy time of a worker is the union of its work spans (synthesis: parameter
load, witness, SpMV; prover: prove, encode); memory waits and hand-offs to a
full prover queue count as blocked, not busy. The critical path walks back
from the last span to end: each span's predecessor is whichever ended last
of the previous span on its worker and the previous stage of its own
partition, i.e. whatever it actually waited for; a unit's synthesis that
still started later waited for a pipeline slot or memory, which the last
`encode` before it gave back (sequential mode); remaining gaps are idle.
The limiting stage is the one with the largest share of that path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .trace_file import BLOCKED_STAGES, WORK_STAGES, Run

EPS = 2e-4  # seconds: spans this close count as back to back
FIRST_SYNTH_STAGES = ("param_load", "memory_wait")


def union_length(intervals, lo: float, hi: float) -> float:
    total, cur_a, cur_b = 0.0, None, None
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in intervals):
        if b <= a:
            continue
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def busy_intervals(run: Run, lane: str, kind: str) -> list[tuple[float, float]]:
    work = WORK_STAGES.get(kind, ())
    return [(s["t0"], s["t1"]) for s in run.top_spans(lane) if s["stage"] in work]


def pool_busy(run: Run, kind: str, lo: float | None = None, hi: float | None = None) -> float:
    """Busy fraction of all workers of a kind ("synthesis", "prover") over [lo, hi]."""
    lo = run.start if lo is None else lo
    hi = run.end if hi is None else hi
    lanes = run.lanes_of(kind)
    if not lanes or hi <= lo:
        return 0.0
    return sum(union_length(busy_intervals(run, ln, kind), lo, hi) for ln in lanes) / (len(lanes) * (hi - lo))


def device_busy(run: Run, lo: float | None = None, hi: float | None = None) -> dict[str, float]:
    """Per device ("cuda:0"), the fraction of [lo, hi] (default: the run) in which it executed proof
    work: the union of the device-timed prover phases (CUDA events) on all of its workers' lanes."""
    lo = run.start if lo is None else lo
    hi = run.end if hi is None else hi
    out = {}
    for dev in sorted({ln.get("device", "") for ln in run.lanes if ln["kind"] == "prover"} - {""}):
        lanes = {ln["lane"] for ln in run.lanes if ln.get("device") == dev}
        iv = [(s["t0"], s["t1"]) for s in run.spans if s["lane"] in lanes and s.get("depth", 0) == 2]
        if iv and hi > lo:
            out[dev] = union_length(iv, lo, hi) / (hi - lo)
    return out


def pool_blocked(run: Run) -> float:
    lanes = run.lanes_of("synthesis")
    span = run.end - run.start
    if not lanes or span <= 0:
        return 0.0
    iv = [(s["t0"], s["t1"]) for ln in lanes for s in run.top_spans(ln) if s["stage"] in BLOCKED_STAGES]
    return sum(b - a for a, b in iv) / (len(lanes) * span)


def critical_path(run: Run) -> list[tuple[str, float]]:
    """(stage or "idle", seconds) along the path that ends with the last span, latest first."""
    spans = run.top_spans() + [s for s in run.spans if s["lane"] == "queue"]
    if not spans:
        return []
    by_lane: dict[str, list[dict]] = {}
    by_unit: dict[str, list[dict]] = {}
    for s in spans:
        if s["lane"] != "queue":
            by_lane.setdefault(s["lane"], []).append(s)
        if s["unit"]:
            by_unit.setdefault(s["unit"], []).append(s)
    worker_spans = [s for s in spans if s["lane"] != "queue"]
    cur = max(spans, key=lambda s: s["t1"])
    path: list[tuple[str, float]] = []
    seen = set()
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        path.append((cur["stage"], cur["t1"] - cur["t0"]))
        lane_pred = max((s for s in by_lane.get(cur["lane"], []) if _before(s, cur)),
                        key=lambda s: (s["t1"], s["t0"]), default=None)
        unit_pred = max((s for s in by_unit.get(cur["unit"], []) if _before(s, cur)
                         and (s["lane"] != "queue" or set(s["jobs"]) & set(cur["jobs"]))),
                        key=lambda s: (s["t1"], s["t0"]), default=None)
        if unit_pred is not None and unit_pred["lane"] == "queue" and lane_pred is not None \
                and lane_pred["t1"] >= unit_pred["t0"]:
            pred = lane_pred  # the job was there already: it waited for this worker to be free
        else:
            pred = max((p for p in (lane_pred, unit_pred) if p is not None), key=lambda s: (s["t1"], s["t0"]),
                       default=None)
        gap_from = pred["t1"] if pred is not None else run.start
        if cur["stage"] in FIRST_SYNTH_STAGES and cur["t0"] - gap_from > EPS:
            # a unit's synthesis started later than its predecessors allowed: it waited for a
            # pipeline slot or memory, which an earlier unit's encode gives back
            release = max((s for s in worker_spans if s["stage"] == "encode" and gap_from < s["t1"]
                           and _before(s, cur)), key=lambda s: (s["t1"], s["t0"]), default=None)
            pred = release or pred
        if pred is None:
            if cur["t0"] - run.start > EPS:
                path.append(("idle", cur["t0"] - run.start))
            break
        if cur["t0"] - pred["t1"] > EPS:
            path.append(("idle", cur["t0"] - pred["t1"]))
        cur = pred
    return path


_PROVER = ("The prover is the bottleneck: a faster prover (GPU) or more prover workers raise throughput; more "
           "synthesis threads would not.")
_SYNTH = ("Synthesis keeps the prover waiting: more synthesis workers (synthesis.threads) or kernel threads "
          "(synthesis.kernel_threads) raise throughput.")
ADVICE = {
    "prove": _PROVER, "encode": _PROVER, "handoff": _PROVER, "witness": _SYNTH, "spmv": _SYNTH,
    "memory_wait": "Synthesis waits for working memory: raise memory.total_budget or lower synthesis.lookahead.",
    "param_load": "Parameter loading dominates: preload the circuits (srs.preload) and keep them hot.",
    "queue": "Jobs mostly waited in the queue behind earlier work: the box is saturated.",
    "none": "",
}


def _before(s: dict, cur: dict) -> bool:
    return s is not cur and s["t0"] < cur["t0"] and s["t1"] <= cur["t0"] + EPS


@dataclass
class Summary:
    run: str
    wall_s: float
    completed: int
    failed: int
    proofs_per_min: float
    prover_busy: float
    synthesis_busy: float
    synthesis_blocked: float
    per_lane: dict = field(default_factory=dict)
    path: dict = field(default_factory=dict)  # stage -> seconds on the critical path
    limiting: str = ""
    advice: str = ""

    def lines(self) -> list[str]:
        total = sum(self.path.values()) or 1.0
        path = ", ".join(f"{k} {v:.2f} s ({v / total:.0%})" for k, v in
                         sorted(self.path.items(), key=lambda kv: -kv[1]) if v >= 0.005 * total)
        out = [f"[{self.run}] {self.completed} job(s) completed, {self.failed} failed in {self.wall_s:.2f} s: "
               f"{self.proofs_per_min:.1f} proofs/min",
               f"  prover busy {self.prover_busy:.0%} (GPU/prover workers), synthesis busy "
               f"{self.synthesis_busy:.0%}, synthesis blocked {self.synthesis_blocked:.0%} (memory / full queue)",
               "  per worker: " + ", ".join(f"{k} {v:.0%}" for k, v in self.per_lane.items()),
               f"  critical path {total:.2f} s: {path}",
               f"  limiting stage: {self.limiting}. {self.advice}"]
        return out


def summarize(run: Run) -> Summary:
    lo, hi = run.start, run.end
    completed = sum(1 for j in run.jobs if j["state"] == "COMPLETED")
    failed = len(run.jobs) - completed
    wall = hi - lo
    per_lane = {ln["lane"]: (union_length(busy_intervals(run, ln["lane"], ln["kind"]), lo, hi) / wall if wall else 0.0)
                for ln in run.lanes}
    path: dict[str, float] = {}
    for stage, secs in critical_path(run):
        path[stage] = path.get(stage, 0.0) + secs
    prover, synth = pool_busy(run, "prover"), pool_busy(run, "synthesis")
    work = {k: v for k, v in path.items() if k != "idle"}
    limiting = max(work, key=work.get) if work else "none"
    advice = ADVICE.get(limiting, ADVICE["witness"])
    return Summary(run.name, wall, completed, failed, completed / wall * 60 if wall > 0 else 0.0, prover, synth,
                   pool_blocked(run), per_lane, path, limiting, advice)
