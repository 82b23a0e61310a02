"""Cluster mode: one gRPC front, many proving nodes, on Ray (optional extra `cluster`).

    cuzk daemon --ray-address HEAD:6379     # the front: same gRPC API as a single daemon

Each Ray node that offers the `cuzk_prover` resource gets one node actor
(node.py) that owns the node's GPUs (or CPUs) and runs a full Engine, so its
parameters stay resident as in the single-machine daemon. The front
(front.py, `ClusterEngine`) holds the cluster's priority queue and hands a
job to a node only when that node has a free slot, preferring nodes whose
parameters for the circuit are hot; jobs of a node that dies go back into
the queue. `ClusterEngine` implements cuzk.engine.interface.ProvingEngine, the interface the
gRPC service uses.

May import: cuzk.engine (its interface and records, and the pieces the front shares with the
single engine: the registry builder, the job store, process memory, metrics serving, the
aggregation room) and the layers below; Ray only inside this package, when the front starts.
"""

from .errors import ClusterError
from .front import ClusterEngine
from .options import ClusterOptions

__all__ = ["ClusterEngine", "ClusterError", "ClusterOptions"]
