"""The cluster's status: every node's own EngineStatus, and one merged view.

The merged view has the single daemon's shape, so existing clients read a
cluster like one big daemon: devices of all nodes (renumbered, named
"node: device"), each circuit's hottest tier, queues summed with the jobs
still waiting in the front. Totals are the front's (what clients saw),
not the nodes', which restart from zero when a node is replaced.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from cuzk.engine import DeviceStatus, EngineStatus, QueueInfo, SrsInfo

from .front_job import ATTEMPT_SEP


@dataclass
class NodeStatus:
    name: str
    address: str  # Ray node address (host IP)
    state: str  # "starting" | "ready" | "unreachable"
    capacity: int  # jobs the front lets it hold at once
    assigned: int  # jobs the front sent it that have not come back
    engine: EngineStatus | None = None  # None until it answers
    error: str = ""


@dataclass
class ClusterStatus(EngineStatus):
    nodes: list[NodeStatus] = field(default_factory=list)
    pending: int = 0  # jobs in the front's queue


def merge(nodes: list[NodeStatus], front_queues: dict[str, int], totals: dict[str, int], *, uptime_s: float,
          paused: bool, draining: bool, rss: tuple[int, int], front_jobs: list[dict] = ()) -> ClusterStatus:
    live = [n.engine for n in nodes if n.engine is not None]
    devices: list[DeviceStatus] = []
    for n in nodes:
        for d in n.engine.devices if n.engine else []:
            devices.append(dataclasses.replace(d, ordinal=len(devices), name=f"{n.name}: {d.name}"))
    srs: dict[str, SrsInfo] = {}
    for s in live:
        for i in s.srs:
            best = srs.get(i.circuit_id)
            if best is None:
                srs[i.circuit_id] = dataclasses.replace(i)
                continue
            best.size_bytes += i.size_bytes
            best.ref_count += i.ref_count
            if i.tier < best.tier:  # HOT < WARM < COLD
                best.tier, best.source = i.tier, i.source
    queues: dict[str, list[int]] = {k: [v, 0, 0] for k, v in front_queues.items()}
    for s in live:
        for q in s.queues:
            row = queues.setdefault(q.proof_kind, [0, 0, 0])
            row[0] += q.pending
            row[1] += q.in_progress
            row[2] += q.batching
    workers, jobs, throughput = [], list(front_jobs), {}
    for n in nodes:
        e = n.engine
        if e is None:
            continue
        for w in getattr(e, "workers", []):  # "since" moved onto a clock where now = 0 (node clocks differ)
            workers.append({**w, "lane": f"{n.name}/{w['lane']}", "device": f"{n.name}/{w['device']}",
                            "since": w["since"] - e.now if w["stage"] else 0.0,
                            "jobs": [j.split(ATTEMPT_SEP)[0] for j in w["jobs"]]})
        for j in getattr(e, "jobs", []):
            jobs.append({**j, "job_id": j["job_id"].split(ATTEMPT_SEP)[0], "node": n.name})
        for window, done, failed in getattr(e, "throughput", []):
            row = throughput.setdefault(window, [0, 0])
            row[0] += done
            row[1] += failed
    extra = {"workers": workers, "jobs": jobs, "throughput": [(w, *v) for w, v in sorted(throughput.items())],
             "now": 0.0} if "workers" in {f.name for f in dataclasses.fields(EngineStatus)} else {}
    return ClusterStatus(**extra,
        devices=devices, srs=sorted(srs.values(), key=lambda i: i.circuit_id),
        queues=[QueueInfo(k, *v) for k, v in sorted(queues.items())],
        completed=totals["COMPLETED"], failed=totals["FAILED"], cancelled=totals["CANCELLED"], uptime_s=uptime_s,
        pinned_bytes=sum(s.pinned_bytes for s in live), pinned_limit=sum(s.pinned_limit for s in live),
        memory_used=sum(s.memory_used for s in live), memory_limit=sum(s.memory_limit for s in live),
        memory_peak=sum(s.memory_peak for s in live), paused=paused, draining=draining,
        rss_bytes=rss[0], peak_rss_bytes=rss[1], nodes=nodes, pending=sum(front_queues.values()),
    )
