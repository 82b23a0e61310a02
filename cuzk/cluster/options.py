"""How the front finds, sizes and watches its proving nodes."""

from __future__ import annotations

from dataclasses import dataclass

NODE_RESOURCE = "cuzk_prover"


@dataclass
class ClusterOptions:
    # a Ray node proves when it offers this custom resource (`ray start --resources='{"cuzk_prover": 1}'`),
    # so the head (the front's host) and other Ray users' nodes are left alone
    node_resource: str = NODE_RESOURCE
    # CPUs each node actor reserves in Ray's accounting (its engine's threads are set by the engine config)
    actor_cpus: float = 1.0
    # jobs a node may hold beyond a full batch per prover worker: one more lets synthesis of the next
    # job overlap proving; the rest stays in the front's queue, where priorities hold across the cluster
    extra_slots: int = 1
    # a job whose node dies this many times fails (a job that kills every node must not go round forever)
    max_attempts: int = 3
    # how often the front looks for nodes that joined or left (seconds)
    poll_s: float = 1.0
    # seconds to wait for a node's status or metrics before reporting it unreachable
    rpc_timeout_s: float = 10.0
    # seconds a new node actor may take to start its engine
    start_timeout_s: float = 300.0
    # CUZK_FAULTS-style rules applied by every node's engine (tests only)
    node_faults: str = ""
    # stream the node actors' logs to the front's stderr
    log_to_driver: bool = True
