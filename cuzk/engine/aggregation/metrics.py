"""The aggregations' Prometheus metrics, on the registry of the engine (or front) that runs them.

Outcomes are labelled with the names of the status codes the gRPC answers carry ("ok",
"not_found", "invalid_argument", ...), the values these series had when the server counted them,
so dashboards keep working; `rpc` is "Aggregate" or "VerifyAggregate" for the same reason.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from cuzk.errors import CuzkError

from ..errors import CallerGone, InvalidRequest, JobNotCompleted, JobNotFound
from ..observe.metrics import PHASE_BUCKETS

OUTCOMES = [(CallerGone, "cancelled"), (JobNotFound, "not_found"), (JobNotCompleted, "failed_precondition"),
            (InvalidRequest, "invalid_argument"), (CuzkError, "failed_precondition")]


def outcome(exc: BaseException) -> str:
    return next((name for cls, name in OUTCOMES if isinstance(exc, cls)), "internal")


class AggregateMetrics:
    def __init__(self, registry):
        self.requests = Counter("cuzk_aggregate_requests", "Aggregate / VerifyAggregate calls by result (ok or a "
                                "status code)", ["rpc", "result"], registry=registry)
        self.phase = Histogram("cuzk_aggregate_phase_seconds", "Time per phase of an aggregation or its verification",
                               ["rpc", "phase"], buckets=PHASE_BUCKETS, registry=registry)

    def failed(self, rpc: str, exc: BaseException) -> None:
        self.requests.labels(rpc=rpc, result=outcome(exc)).inc()

    def done(self, rpc: str, phases: dict, total_ms: float) -> None:
        self.requests.labels(rpc=rpc, result="ok").inc()
        for phase, ms in list(phases.items()) + [("total", total_ms)]:
            self.phase.labels(rpc=rpc, phase=phase).observe(ms / 1e3)
