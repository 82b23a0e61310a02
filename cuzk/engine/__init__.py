"""The proving engine (docs/design.md section 6), behind one interface, in named rooms.

Use it as a library through `Engine` (engine.py), or run it as a daemon behind
gRPC (`cuzk daemon`, cuzk.server). What its users see is `ProvingEngine` and its
records (interface.py); the request vocabulary is in types.py, errors in errors.py,
configuration in config.py. The rooms, lowest first (each imports only rooms before it,
plus types.py, errors.py and config.py):

    resources/  the host-memory budget and the proving devices
    observe/    Prometheus metrics, the pipeline trace, process memory
    params/     where proving keys come from; the SRS manager (tiers hot / warm / cold)
    catalog/    the circuit registry and its circuits (Filecoin's, synthetic, circom)
    jobs/       a job's lifecycle, the job store, the journal, crash recovery
    pipeline/   batch collector, scheduler, synthesis and prover stages, fault injection
    aggregation/  SnarkPack aggregates of jobs or given proofs and their verification, beside the pipeline

engine.py (`Engine`) and interface.py sit on top. This file is the package's public face.
"""

from .catalog.registry import CircuitRegistry, CircuitSpec, Witness
from .config import EngineConfig
from .engine import Engine
from .errors import EngineError
from .interface import CancelResult, DeviceStatus, EngineStatus, JobResult, ProvingEngine, QueueInfo, SubmitResult
from .params.tiers import SrsInfo
from .types import JobState, JobTimings, Priority, ProofKind, ProofRequest, Tier

__all__ = [
    "Engine", "ProvingEngine", "EngineConfig", "EngineStatus", "JobResult", "JobTimings", "SubmitResult",
    "CancelResult", "DeviceStatus", "QueueInfo", "SrsInfo", "EngineError",
    "CircuitRegistry", "CircuitSpec", "Witness", "JobState", "Priority", "ProofKind", "ProofRequest", "Tier",
]
