"""Prometheus metrics of one engine (prometheus-client, a registry per engine).

Counters and histograms are updated as jobs move; gauges (queue depths,
memory, parameter tiers, workers) are read from the engine at scrape time,
so they are never stale. `text()` is what GetMetrics returns; `serve` also
exposes it over HTTP when `daemon.metrics_listen` is set: on localhost
unless that names a host, and, when the daemon has a bearer token, only to
requests that send it ("Authorization: Bearer <token>"; others get 401).
The token travels in clear over HTTP: bind another host than localhost only
on a network you trust, or put a TLS proxy in front.
"""

from __future__ import annotations

import hmac
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, disable_created_metrics, \
    generate_latest
from prometheus_client.core import GaugeMetricFamily

disable_created_metrics()  # the *_created series only add noise to GetMetrics

PHASE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
PHASES = ("queue_wait", "srs_load", "synthesis", "prove", "total")


class EngineMetrics:
    def __init__(self, engine):
        self.engine = engine
        self.started = time.time()
        r = self.registry = CollectorRegistry()
        self.completed = Counter("cuzk_proofs_completed", "Proof jobs completed", ["proof_kind", "circuit_id"], registry=r)
        self.failed = Counter("cuzk_proofs_failed", "Proof jobs failed", ["proof_kind", "circuit_id"], registry=r)
        self.cancelled = Counter("cuzk_proofs_cancelled", "Proof jobs cancelled", ["proof_kind"], registry=r)
        self.submitted = Counter("cuzk_proofs_submitted", "Proof jobs accepted", ["proof_kind", "priority"], registry=r)
        self.retries = Counter("cuzk_prove_retries", "Proving passes retried after a failure", ["proof_kind"], registry=r)
        self.phase = Histogram("cuzk_proof_phase_seconds",
                               "Time per job phase (synthesis and prove per partition, others per job)",
                               ["proof_kind", "phase"], buckets=PHASE_BUCKETS, registry=r)
        self.batch_size = Histogram("cuzk_batch_size", "Jobs proven together in one pass", ["circuit_id"],
                                    buckets=(1, 2, 3, 4, 6, 8, 12, 16, 32), registry=r)
        r.register(_Gauges(engine, self.started))

    def observe_phase(self, job, phase: str, seconds: float) -> None:
        self.phase.labels(proof_kind=job.spec.proof_kind.label, phase=phase).observe(seconds)

    def job_finished(self, job) -> None:
        kind = job.spec.proof_kind.label
        state = job.state.name
        if state == "COMPLETED":
            self.completed.labels(proof_kind=kind, circuit_id=job.circuit_id).inc()
            t = job.timings
            for phase, ms in (("queue_wait", t.queue_wait_ms), ("srs_load", t.srs_load_ms), ("total", t.total_ms)):
                self.phase.labels(proof_kind=kind, phase=phase).observe(ms / 1e3)
        elif state == "FAILED":
            self.failed.labels(proof_kind=kind, circuit_id=job.circuit_id).inc()
        elif state == "CANCELLED":
            self.cancelled.labels(proof_kind=kind).inc()

    def text(self) -> str:
        return generate_latest(self.registry).decode()

    def serve(self, addr: str, token: str = ""):
        """Serve /metrics over HTTP at "host:port" (see `serve_registry`); returns the server."""
        return serve_registry(self.registry, addr, token)


class _Gauges:
    """Scrape-time view of the engine's state."""

    def __init__(self, engine, started: float):
        self.engine = engine
        self.started = started

    def collect(self):
        e = self.engine
        yield GaugeMetricFamily("cuzk_uptime_seconds", "Seconds since the engine started",
                                value=time.time() - self.started)
        q = GaugeMetricFamily("cuzk_queue_depth", "Jobs not yet started, by priority and place",
                              labels=["priority", "place"])
        running = GaugeMetricFamily("cuzk_running_jobs", "Jobs being synthesized or proven", labels=["state"])
        counts = e.queue_counts()
        for (prio, place), n in sorted(counts["queued"].items()):
            q.add_metric([prio, place], n)
        for state, n in sorted(counts["running"].items()):
            running.add_metric([state], n)
        yield q
        yield running
        yield GaugeMetricFamily("cuzk_prover_queue_depth", "Synthesized partitions waiting for a prover",
                                value=len(e.prover_queue))
        mem = GaugeMetricFamily("cuzk_memory_bytes", "Memory budget", labels=["kind"])
        mem.add_metric(["used"], e.budget.used)
        mem.add_metric(["peak"], e.budget.peak)
        mem.add_metric(["total"], e.budget.total)
        yield mem
        srs = GaugeMetricFamily("cuzk_srs_circuits", "Circuits by parameter tier", labels=["tier"])
        tiers: dict[str, int] = {}
        for info in e.srs.status():
            tiers[info.tier.name] = tiers.get(info.tier.name, 0) + 1
        for tier in ("HOT", "WARM", "COLD"):
            srs.add_metric([tier], tiers.get(tier, 0))
        yield srs
        yield GaugeMetricFamily("cuzk_srs_hot_bytes", "Bytes of decoded (hot) parameters", value=e.srs.hot_bytes())
        tables = GaugeMetricFamily("cuzk_cpu_msm_tables", "MSM window tables of resident keys on the CPU "
                                   "prover (gpus.cpu_msm_tables): kept, or waiting and building", labels=["state"])
        table_bytes = 0
        counts = {"kept": 0, "pending": 0}
        for d in e.devices:
            held = getattr(d.backend, "resident_tables", None)
            if held is not None:
                st = held.status()
                table_bytes += st["kept_bytes"]
                for k in counts:
                    counts[k] += st[k]
        for k, n in counts.items():
            tables.add_metric([k], n)
        yield tables
        yield GaugeMetricFamily("cuzk_cpu_msm_table_bytes", "Bytes of the MSM window tables kept", value=table_bytes)
        workers = GaugeMetricFamily("cuzk_prover_workers", "Prover workers, by device and state",
                                    labels=["device", "state"])
        for d in e.devices:
            busy = len(d.current)
            workers.add_metric([d.label, "busy"], busy)
            workers.add_metric([d.label, "idle"], d.workers - busy)
        yield workers


DEFAULT_METRICS_HOST = "127.0.0.1"


def metrics_address(text: str) -> tuple[str, int]:
    """daemon.metrics_listen -> (host, port): "host:port", "[v6]:port", or ":port" / "port" for
    localhost (the metrics are not exposed beyond this machine unless a host is named)."""
    host, _, port = str(text).strip().rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{text!r}: expected host:port, or :port for localhost")
    return host.strip("[]") or DEFAULT_METRICS_HOST, int(port)


def serve_registry(registry, addr: str, token: str = "") -> "MetricsServer":
    """Serve `registry` as /metrics over HTTP at `addr` (daemon.metrics_listen, see
    `metrics_address`); with a token, requests without "Authorization: Bearer <token>" get 401."""
    return MetricsServer(registry, *metrics_address(addr), token=token)


class MetricsServer(ThreadingHTTPServer):
    """/metrics over HTTP on its own thread; `shutdown()` stops it and closes the socket."""

    daemon_threads = True

    def __init__(self, registry, host: str, port: int, token: str = ""):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.registry = registry
        self.expected = f"Bearer {token}".encode() if token else None
        super().__init__((host, port), _MetricsHandler)
        self._thread = threading.Thread(target=self.serve_forever, name="metrics-http", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def shutdown(self) -> None:
        super().shutdown()
        self.server_close()


class _MetricsHandler(BaseHTTPRequestHandler):
    server: MetricsServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        expected = self.server.expected
        if expected is not None:
            sent = self.headers.get("Authorization", "")
            if not hmac.compare_digest(sent.encode("utf-8", "replace"), expected):
                why = "wrong bearer token" if sent else "missing bearer token"
                self._reply(401, f"{why} (send the header 'Authorization: Bearer <token>')\n".encode(),
                            "text/plain; charset=utf-8", {"WWW-Authenticate": 'Bearer realm="cuzk metrics"'})
                return
        if urlsplit(self.path).path not in ("/", "/metrics"):
            self._reply(404, b"not found: the metrics are at /metrics\n", "text/plain; charset=utf-8")
            return
        self._reply(200, generate_latest(self.server.registry), CONTENT_TYPE_LATEST)

    def _reply(self, code: int, body: bytes, content_type: str, headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:  # noqa: A002 -- scrapes every few seconds: not logged
        pass
