"""The front's Prometheus metrics: every node's metrics with a `node` label, plus the front's own.

Node texts are parsed and re-emitted family by family, so each family has
one HELP/TYPE header however many nodes report it (concatenating the texts
would repeat them, which Prometheus rejects).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from cuzk.engine.observe.metrics import serve_registry


def merge_texts(texts: dict[str, str]) -> list[Metric]:
    """{node name: Prometheus text} -> metric families whose samples carry node=<name>. Families
    without samples are left out: the front declares some of the same names itself (its
    aggregations'), and a family may be declared only once."""
    families: dict[str, Metric] = {}
    for node, text in sorted(texts.items()):
        for fam in text_string_to_metric_families(text):
            if not fam.samples:
                continue
            out = families.get(fam.name)
            if out is None:
                out = families[fam.name] = Metric(fam.name, fam.documentation, fam.type, fam.unit)
            for s in fam.samples:
                out.samples.append(s._replace(labels={**s.labels, "node": node}))
    return list(families.values())


class FrontMetrics:
    def __init__(self, front):
        self.registry = r = CollectorRegistry()
        self.resubmitted = Counter("cuzk_cluster_resubmitted", "Jobs sent to another node after their node was lost",
                                   registry=r)
        self.nodes_lost = Counter("cuzk_cluster_nodes_lost", "Node actors that died or could not start", registry=r)
        r.register(_FrontGauges(front))
        r.register(_NodeMetrics(front))

    def text(self) -> str:
        return generate_latest(self.registry).decode()

    def serve(self, addr: str, token: str = ""):
        """Serve /metrics over HTTP at "host:port" (daemon.metrics_listen; serve_registry); returns the server."""
        return serve_registry(self.registry, addr, token)


class _FrontGauges:
    def __init__(self, front):
        self.front = front

    def collect(self):
        view = self.front.nodes()
        states = GaugeMetricFamily("cuzk_cluster_nodes", "Proving nodes known to the front, by state",
                                   labels=["state"])
        counts: dict[str, int] = {}
        for n in view:
            counts[n.state] = counts.get(n.state, 0) + 1
        for state in ("starting", "ready"):
            states.add_metric([state], counts.get(state, 0))
        yield states
        assigned = GaugeMetricFamily("cuzk_cluster_node_assigned_jobs", "Jobs the front has sent a node and not "
                                     "yet got back", labels=["node"])
        for n in view:
            assigned.add_metric([n.name], n.assigned)
        yield assigned
        pending = GaugeMetricFamily("cuzk_cluster_queue_depth", "Jobs waiting in the front for a free node",
                                    labels=["priority"])
        for prio, n in sorted(self.front.pending_counts().items()):
            pending.add_metric([prio], n)
        yield pending


class _NodeMetrics:
    def __init__(self, front):
        self.front = front

    def collect(self):
        yield from merge_texts(self.front.node_metrics_texts())
