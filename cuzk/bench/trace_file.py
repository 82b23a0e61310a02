"""Reading pipeline traces (JSON lines, format in cuzk/engine/observe/trace.py) into runs.

A file may hold several runs: each "meta" line starts one (its "run" field
names it, e.g. a --compare mode), so traces of several daemons are simply
concatenated. Bad lines are reported as `FILE:LINE: what is wrong`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cuzk.errors import CuzkError

# "urgent": the synthesis worker kept for deadline proofs, apart so the pool's busy fraction stays the pool's
WORK_STAGES = {"synthesis": ("param_load", "witness", "spmv"), "urgent": ("param_load", "witness", "spmv"),
               "prover": ("prove", "encode")}
BLOCKED_STAGES = ("memory_wait", "handoff")


class TraceFormatError(CuzkError):
    """A trace file that cannot be read; the message names the file and line."""


@dataclass
class Run:
    name: str
    lanes: list[dict] = field(default_factory=list)  # {"lane", "kind", "device"}
    spans: list[dict] = field(default_factory=list)
    mems: list[dict] = field(default_factory=list)
    jobs: list[dict] = field(default_factory=list)
    dropped: int = 0

    @property
    def start(self) -> float:
        ts = [s["t0"] for s in self.spans] + [j["submitted"] for j in self.jobs if "submitted" in j]
        return min(ts) if ts else 0.0

    @property
    def end(self) -> float:
        ts = [s["t1"] for s in self.spans] + [j["t"] for j in self.jobs]
        return max(ts) if ts else 0.0

    def lanes_of(self, kind: str) -> list[str]:
        return [x["lane"] for x in self.lanes if x["kind"] == kind]

    def top_spans(self, lane: str | None = None) -> list[dict]:
        """Stage spans on worker lanes (no prover phases, no queue waits), by start time."""
        return sorted((s for s in self.spans if s.get("depth", 0) == 0 and s["lane"] != "queue"
                       and (lane is None or s["lane"] == lane)), key=lambda s: (s["t0"], s["t1"]))


def _need(ev: dict, key: str, kinds, where: str):
    v = ev.get(key)
    if not isinstance(v, kinds) or isinstance(v, bool):
        raise TraceFormatError(f"{where}: {ev.get('ev')} event needs {key!r}")
    return v


def parse_trace(text: str, where: str = "trace") -> list[Run]:
    runs: list[Run] = []
    current: Run | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        at = f"{where}:{n}"
        try:
            ev = json.loads(line)
        except ValueError:
            raise TraceFormatError(f"{at}: not a JSON object (is this a trace written by --trace?)") from None
        if not isinstance(ev, dict):
            raise TraceFormatError(f"{at}: not a JSON object (is this a trace written by --trace?)")
        kind = ev.get("ev")
        if kind == "meta":
            current = Run(str(ev.get("run") or f"run {len(runs) + 1}"), dropped=int(ev.get("dropped", 0) or 0))
            lanes = ev.get("lanes", [])
            if not isinstance(lanes, list) or not all(isinstance(x, dict) and "lane" in x for x in lanes):
                raise TraceFormatError(f"{at}: meta 'lanes' must be a list of {{lane, kind}} objects")
            current.lanes = [{"lane": str(x["lane"]), "kind": str(x.get("kind", "")), "device": str(x.get("device", ""))}
                             for x in lanes]
            runs.append(current)
            continue
        if current is None:
            current = Run("run 1")
            runs.append(current)
        if kind == "span":
            _need(ev, "stage", str, at)
            _need(ev, "lane", str, at)
            t0, t1 = _need(ev, "t0", (int, float), at), _need(ev, "t1", (int, float), at)
            if t1 < t0:
                raise TraceFormatError(f"{at}: span ends before it starts (t1 < t0)")
            ev.setdefault("jobs", [])
            ev.setdefault("unit", "")
            ev.setdefault("circuit", "")
            current.spans.append(ev)
        elif kind == "mem":
            for key in ("t", "used", "limit"):
                _need(ev, key, (int, float), at)
            current.mems.append(ev)
        elif kind == "job":
            _need(ev, "t", (int, float), at)
            _need(ev, "state", str, at)
            current.jobs.append(ev)
        elif not isinstance(kind, str):
            raise TraceFormatError(f"{at}: event without an 'ev' field")
        # other event types: written by a newer cuzk, skipped
    runs = [r for r in runs if r.spans]
    if not runs:
        raise TraceFormatError(f"{where}: no stage intervals in the trace (did the run prove anything?)")
    for r in runs:
        known = {x["lane"] for x in r.lanes}
        for s in r.spans:
            if s["lane"] not in known and s["lane"] != "queue":
                kind = "prover" if s["lane"].startswith("prove") else "synthesis"
                r.lanes.append({"lane": s["lane"], "kind": kind, "device": ""})
                known.add(s["lane"])
    return runs


def read_trace(path) -> list[Run]:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise TraceFormatError(f"{path}: no such trace file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    return parse_trace(text, str(path))


def label_run(jsonl: str, name: str) -> str:
    """Name the run(s) of a trace (for --compare files holding one run per mode)."""
    out = []
    for line in jsonl.splitlines():
        if line.startswith('{"ev": "meta"'):
            ev = json.loads(line)
            ev["run"] = name
            line = json.dumps(ev)
        out.append(line)
    return "\n".join(out) + "\n"
