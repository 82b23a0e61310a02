"""The pipeline trace: when each stage of each partition ran, on which worker.

Operators tune a proving box by looking at where the time goes (is the GPU
ever idle? is synthesis the bottleneck? how much memory does each stage
hold?), so the engine records every stage interval into a bounded ring
buffer, on by default: one small dict per stage per partition, appended
under a lock, costs microseconds against stages that take milliseconds.

Events (the JSON-lines export writes one per line, after a "meta" line):

  span  {"ev": "span", "stage", "lane", "t0", "t1", "jobs", "partition", "circuit", "kind", "batch",
         "unit", "ok", "depth", "parent"?, "proof"?}  a stage on a worker lane ("synth-0",
         "prove-cpu:0-0") or on the "queue" pseudo-lane; depth 1 = a host-timed prover phase inside
         its "prove" span, depth 2 = a device-timed one ("gpu:msm_h"); "proof": its index in the pass
  mem   {"ev": "mem", "t", "used", "limit", "hot", "rss", "shared"}   working-memory budget in use, its limit, hot parameters; the process's resident bytes
  job   {"ev": "job", "t", "job", "state", "kind", "circuit", "priority", "submitted", "partitions", "batch"}

Times are Unix seconds taken from a monotonic clock (so intervals never go
backwards), which lets traces of several daemons on one host share an axis.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from contextlib import contextmanager, nullcontext

from .process import resident_split

# top-level stages in pipeline order (prover phases come from the prover's timings)
STAGES = ("queue", "param_load", "memory_wait", "witness", "spmv", "handoff", "prove", "encode")
SYNTHESIS_STAGES = ("param_load", "memory_wait", "witness", "spmv", "handoff")
PROVER_STAGES = ("prove", "encode")
QUEUE_LANE = "queue"
FORMAT_VERSION = 1
THROUGHPUT_WINDOWS_S = (60, 300, 900)


def synthesis_lane(worker_id: int) -> str:
    return f"synth-{worker_id}"


def prover_lane(device, worker_id: int) -> str:
    return f"prove-{device.label}-{worker_id}"


def unit_info(work_unit, jobs) -> dict:
    """The fields every span of one partition (of one batch) carries."""
    spec = work_unit.spec
    return {"jobs": [j.job_id for j in jobs], "partition": work_unit.partition, "circuit": work_unit.circuit_id,
            "kind": spec.proof_kind.label, "batch": work_unit.batch.batch_id,
            "unit": f"{work_unit.batch.batch_id}/{work_unit.partition}"}


class TraceRecorder:
    """Thread-safe ring buffer of trace events; `capacity` 0 records nothing."""

    def __init__(self, capacity: int = 200_000, memory_probe=None):
        self.capacity = max(0, int(capacity))
        self.enabled = self.capacity > 0
        self.memory_probe = memory_probe  # () -> (used, limit, hot) bytes
        self._events: deque = deque(maxlen=self.capacity or 1)
        self._lock = threading.Lock()
        self._wall0 = time.time()
        self._mono0 = time.monotonic()
        self._active: dict[str, dict] = {}
        self._lanes: dict[str, dict] = {}
        self._last_mem = None
        self._mem_lock = threading.Lock()
        self._finished: deque = deque(maxlen=100_000)  # (t, ok) of ended jobs, for recent throughput
        self.recorded = 0

    # ---- clock -----------------------------------------------------------------
    def now(self) -> float:
        return self.wall(time.monotonic())

    def wall(self, monotonic_t: float) -> float:
        """A time.monotonic() value as Unix seconds on this recorder's axis."""
        return self._wall0 + (monotonic_t - self._mono0)

    # ---- recording -----------------------------------------------------------------
    def add_lane(self, lane: str, kind: str, device: str = "") -> None:
        """Declare a worker lane, so idle workers show in the timeline too."""
        self._lanes[lane] = {"lane": lane, "kind": kind, "device": device}

    def _append(self, ev: dict) -> None:
        with self._lock:
            self._events.append(ev)
            self.recorded += 1

    def span(self, lane: str, stage: str, unit: dict, t0: float, t1: float, *, ok: bool = True,
             depth: int = 0, parent: str = "", proof: int = -1) -> None:
        if not self.enabled:
            return
        # a tuple sharing the unit's dict: ~200 bytes a span in the ring instead of ~500 as a dict
        self._append((stage, lane, t0, max(t0, t1), unit, ok, depth, parent, proof))

    def set_active(self, lane: str, stage: str, unit: dict, since: float) -> None:
        """What `lane` is doing now (for GetStatus and `cuzk top`)."""
        if self.enabled:
            with self._lock:
                self._active[lane] = {"lane": lane, "stage": stage, "since": since, **unit}

    def clear_active(self, lane: str) -> None:
        with self._lock:
            self._active.pop(lane, None)

    @contextmanager
    def _stage(self, lane: str, stage: str, unit: dict):
        handle = _Stage()
        t0 = self.now()
        self.set_active(lane, stage, unit, t0)
        ok = False
        try:
            yield handle
            ok = True
        finally:
            self.clear_active(lane)
            if handle.keep or not ok:
                self.span(lane, stage, unit, t0, self.now(), ok=ok)

    def stage(self, lane: str, stage: str, unit: dict):
        """Context manager: record `stage` on `lane` for as long as the block runs (also when it
        raises); the block may set `keep = False` on what it yields to drop an uneventful span."""
        return self._stage(lane, stage, unit) if self.enabled else nullcontext(_Stage())

    def queue_wait(self, job, unit: dict, picked_at: float) -> None:
        """A job's partition waited from submission until a synthesis worker picked it up."""
        self.span(QUEUE_LANE, "queue", {**unit, "jobs": [job.job_id]}, self.wall(job.submitted_at), picked_at)

    def prover_phases(self, lane: str, unit: dict, t0: float, t1: float, timings: list[dict]) -> None:
        """The prover's per-phase timings (one dict per proof of the pass) as sub-intervals of [t0, t1].

        A number is milliseconds, laid end to end in the dict's order from the
        proof's start (the prover's host-timed phases run one after the other);
        "total" moves on to the next proof. Keys with a prefix ("gpu:msm_h":
        device-timed phases, e.g. CUDA events) go one level deeper, end to end
        on their own, each starting no earlier than the host phase of the same
        name; a nested one ("gpu:msm_h/pippenger/sort") is laid inside its
        parent, after its earlier siblings (laid end to end with the parents,
        nested phases counted twice and pushed every later phase past the
        proof's end, where clipping left them empty). A pair (start_ms, end_ms)
        is placed at those offsets from the proof's start. Proofs of one pass
        that share one dict (a pass timed as a whole) are laid out once.
        Everything is clipped to [t0, t1]."""
        if not self.enabled:
            return
        seen: set[int] = set()
        cursor = t0
        for j, tm in enumerate(timings):
            if not isinstance(tm, dict) or id(tm) in seen:
                continue
            seen.add(id(tm))
            start = cursor
            host_start: dict[str, float] = {}
            device: dict[str, dict[str, float]] = {}  # prefix -> {path: ms}, in the dict's order
            for name, v in tm.items():
                name = str(name)
                if name == "total":
                    continue
                prefix, _, base = name.rpartition(":")
                if isinstance(v, (tuple, list)) and len(v) == 2 and all(_is_num(x) for x in v):
                    a, b = start + float(v[0]) / 1e3, start + float(v[1]) / 1e3
                elif not _is_num(v):
                    continue
                elif prefix:
                    device.setdefault(prefix, {})[base] = max(0.0, float(v)) / 1e3
                    continue
                else:
                    a, b = cursor, cursor + max(0.0, float(v)) / 1e3
                    host_start[name] = cursor
                    cursor = b
                self._phase_span(lane, name, unit, a, b, 2 if prefix else 1, j, t0, t1)
            for prefix, paths in device.items():
                deep = start
                kids = _phase_tree(paths)
                for top in kids.get("", []):
                    a = max(deep, host_start.get(top, start))
                    deep = self._device_tree(lane, prefix, paths, kids, top, a, a + paths[top], unit, j, t0, t1)
            total = tm.get("total")
            if _is_num(total):
                cursor = max(cursor, start + float(total) / 1e3)

    def _phase_span(self, lane, name, unit, a, b, depth, proof, t0, t1) -> None:
        a, b = min(max(a, t0), t1), min(max(b, t0), t1)
        self.span(lane, name, unit, a, b, depth=depth, parent="prove", proof=proof)

    def _device_tree(self, lane, prefix, paths, kids, path, a, b, unit, proof, t0, t1) -> float:
        """Lay out the device phase `path` on [a, b] and its children inside it, end to end; returns b."""
        self._phase_span(lane, f"{prefix}:{path}", unit, a, b, 2, proof, t0, t1)
        inner = a
        for child in kids.get(path, []):
            end = min(inner + paths[child], b)
            self._device_tree(lane, prefix, paths, kids, child, inner, end, unit, proof, t0, t1)
            inner = end
        return b

    def sample_memory(self) -> None:
        """Record the memory budget now (skipped when unchanged since the last sample), and beside it the
        process's resident bytes ("rss", of which "shared": file-backed or shared pages) as the kernel
        counts them: what the budget does not count is their difference."""
        if not self.enabled or self.memory_probe is None:
            return
        with self._mem_lock:  # one sample at a time: samples are recorded in the order they were taken
            used, limit, hot = self.memory_probe()
            if self._last_mem == (used, limit, hot):
                return
            self._last_mem = (used, limit, hot)
            rss, shared = resident_split()
            self._append({"ev": "mem", "t": self.now(), "used": int(used), "limit": int(limit), "hot": int(hot),
                          "rss": rss, "shared": shared})

    def job_end(self, job) -> None:
        t = self.now()
        with self._lock:
            self._finished.append((t, job.state.name == "COMPLETED"))
        if not self.enabled:
            return
        self._append({"ev": "job", "t": t, "job": job.job_id, "state": job.state.name,
                      "kind": job.spec.proof_kind.label, "circuit": job.circuit_id,
                      "priority": job.priority.name.lower(), "submitted": self.wall(job.submitted_at),
                      "partitions": job.num_partitions, "batch": job.batch_id})

    # ---- reading ---------------------------------------------------------------------
    def events(self, last_seconds: float = 0.0) -> list[dict]:
        """Events that ended within the last `last_seconds` (0: all kept), oldest first."""
        with self._lock:
            evs = list(self._events) if self.enabled else []
        if last_seconds and last_seconds > 0:
            since = self.now() - last_seconds
            evs = [e for e in evs if (e[3] if isinstance(e, tuple) else e["t"]) >= since]
        return [_span_dict(e) if isinstance(e, tuple) else e for e in evs]

    def dropped(self) -> int:
        return max(0, self.recorded - len(self._events)) if self.enabled else 0

    def active(self) -> list[dict]:
        """Every declared lane with what it is doing now (stage "" when idle)."""
        with self._lock:
            act = dict(self._active)
        out = []
        for lane, info in self._lanes.items():
            a = act.get(lane)
            out.append({**info, "stage": a["stage"] if a else "", "since": a["since"] if a else 0.0,
                        "jobs": a["jobs"] if a else [], "circuit": a["circuit"] if a else "",
                        "partition": a["partition"] if a else 0})
        return out

    def throughput(self) -> list[tuple[int, int, int]]:
        """(window seconds, completed, failed or cancelled) over the last minute, 5 and 15 minutes."""
        now = self.now()
        with self._lock:
            fin = list(self._finished)
        out = []
        for w in THROUGHPUT_WINDOWS_S:
            recent = [ok for t, ok in fin if t >= now - w]
            out.append((w, sum(recent), len(recent) - sum(recent)))
        return out

    def meta(self) -> dict:
        return {"ev": "meta", "version": FORMAT_VERSION, "lanes": list(self._lanes.values()),
                "capacity": self.capacity, "dropped": self.dropped(), "exported": self.now()}

    def jsonl(self, last_seconds: float = 0.0) -> str:
        """The meta line and the events as JSON lines (what GetTrace returns and --trace writes)."""
        lines = [json.dumps(self.meta())]
        lines += [json.dumps(_rounded(e)) for e in self.events(last_seconds)]
        return "\n".join(lines) + "\n"


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _span_dict(e: tuple) -> dict:
    stage, lane, t0, t1, unit, ok, depth, parent, proof = e
    ev = {"ev": "span", "stage": stage, "lane": lane, "t0": t0, "t1": t1, **unit, "ok": ok, "depth": depth}
    if parent:
        ev["parent"] = parent
    if proof >= 0:
        ev["proof"] = proof
    return ev


class _Stage:
    keep = True


def _rounded(ev: dict) -> dict:
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in ev.items()}




def _phase_tree(paths: dict[str, float]) -> dict[str, list[str]]:
    """Children of each timed phase ("" = the top) under their nearest timed ancestor, ordered by
    where their subtree first appears: a timer that names phases when they end lists children first."""
    first = dict.fromkeys(paths, len(paths))
    parent = {}
    for i, p in enumerate(paths):
        parts = p.split("/")
        up = [a for a in ("/".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)) if a in paths]
        parent[p] = up[0] if up else ""
        for q in [p] + up:
            first[q] = min(first[q], i)
    kids: dict[str, list[str]] = {}
    for p in sorted(paths, key=first.get):
        kids.setdefault(parent[p], []).append(p)
    return kids
