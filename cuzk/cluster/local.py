"""A multi-node Ray cluster on this one machine, for tests and the scaling benchmark.

Every node binds to 127.0.0.1, starts no dashboard and gets a small object
store; the head offers no CPUs, so only the added nodes (which offer the
prover resource) run node actors. Always use it as a context manager, so
the Ray processes go away with it.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from .errors import import_ray
from .options import NODE_RESOURCE

# keep Ray on loopback (see ClusterEngine.start); read when Ray is imported, so set on import here too
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

LOOPBACK = "127.0.0.1"
STORE_BYTES = 100 << 20


def node_args(num_cpus: float = 1, resource: str = NODE_RESOURCE) -> dict:
    return dict(num_cpus=num_cpus, resources={resource: 1}, node_ip_address=LOOPBACK,
                object_store_memory=STORE_BYTES)


@contextmanager
def local_cluster(nodes: int, num_cpus: float = 1, connect: bool = True, temp_dir: str | None = None):
    """`ray.cluster_utils.Cluster` with `nodes` prover nodes; yields it (add_node(**node_args()) adds more).
    `temp_dir`: where Ray keeps its session (sockets, logs) and its address file; default /tmp/ray."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    saved = os.environ.get("RAY_TMPDIR")
    if temp_dir:  # Ray's session and its "current cluster" file both go there (<temp_dir>/ray)
        os.environ["RAY_TMPDIR"] = str(temp_dir)
    ray = import_ray()
    from ray.cluster_utils import Cluster  # Ray is optional: imported only when a cluster is made

    try:
        cluster = Cluster(initialize_head=True, head_node_args=dict(
            num_cpus=0, node_ip_address=LOOPBACK, include_dashboard=False, object_store_memory=STORE_BYTES))
    except BaseException:
        _restore_env(saved)
        raise
    try:
        for _ in range(nodes):
            cluster.add_node(**node_args(num_cpus))
        cluster.wait_for_nodes()
        if connect:
            ray.init(address=cluster.address, namespace="cuzk", log_to_driver=False, logging_level="warning")
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
        _restore_env(saved)


def _restore_env(saved: str | None) -> None:
    if saved is None:
        os.environ.pop("RAY_TMPDIR", None)
    else:
        os.environ["RAY_TMPDIR"] = saved
