"""Which Ray nodes prove, and the one node actor the front keeps on each.

A Ray node proves when it offers the options' custom resource (default
`cuzk_prover`). The actor takes all of that resource and all of the node's
GPUs, and is pinned to the node, so there is exactly one per node and Ray
sets CUDA_VISIBLE_DEVICES for it. Actors live as long as the front (they
are not detached): when the front exits, the nodes' engines go with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .node import MAX_CONCURRENCY, ProvingNode
from .options import ClusterOptions


@dataclass
class RayNode:
    node_id: str
    address: str
    resources: dict

    @property
    def name(self) -> str:
        return f"node-{self.node_id[:8]}"


def prover_nodes(ray, options: ClusterOptions) -> list[RayNode]:
    """Alive Ray nodes that offer the prover resource."""
    return [RayNode(n["NodeID"], n.get("NodeManagerAddress", ""), dict(n.get("Resources", {})))
            for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(options.node_resource, 0) > 0]


@dataclass(eq=False)
class NodeHandle:
    """The front's record of one node actor."""

    node: RayNode
    actor: object
    started_at: float = field(default_factory=time.monotonic)
    state: str = "starting"  # -> "ready"
    workers: int = 0
    capacity: int = 0
    hot: set = field(default_factory=set)
    inflight: dict = field(default_factory=dict)  # node-side job id -> FrontJob
    devices: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def free(self) -> int:
        return self.capacity - len(self.inflight) if self.state == "ready" else 0

    def ready(self, info: dict, options: ClusterOptions, batch_size: int = 1) -> None:
        """Slots: a full batch per prover worker, plus the extra slots (so batches can fill)."""
        self.state = "ready"
        self.workers = info["workers"]
        self.capacity = max(1, self.workers * batch_size + options.extra_slots)
        self.devices = info["devices"]
        self.hot = set(info["hot"])


def spawn(ray, node: RayNode, config, options: ClusterOptions) -> NodeHandle:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # Ray is optional: only here

    res = node.resources
    actor_cls = ray.remote(ProvingNode)
    actor = actor_cls.options(
        num_cpus=min(options.actor_cpus, res.get("CPU", 0)), num_gpus=int(res.get("GPU", 0)),
        resources={options.node_resource: res[options.node_resource]},
        scheduling_strategy=NodeAffinitySchedulingStrategy(node.node_id, soft=False),
        max_concurrency=MAX_CONCURRENCY, max_restarts=0,
    ).remote(config, node.name, options.node_faults)
    return NodeHandle(node, actor)
