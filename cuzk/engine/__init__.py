"""The proving engine (DESIGN.md section 6): scheduler, batch collector,
pipeline, memory budget, parameter manager, metrics, configuration.

Use it as a library through `Engine` (see engine.py), or run it as a
daemon behind gRPC (`cuzk daemon`, cuzk.server).
"""

from .config import EngineConfig
from .engine import CancelResult, Engine, EngineStatus, JobResult, SubmitResult
from .errors import EngineError
from .registry import CircuitRegistry, CircuitSpec, Witness
from .types import JobState, Priority, ProofKind, ProofRequest, Tier

__all__ = [
    "Engine", "EngineConfig", "EngineStatus", "JobResult", "SubmitResult", "CancelResult", "EngineError",
    "CircuitRegistry", "CircuitSpec", "Witness", "JobState", "Priority", "ProofKind", "ProofRequest", "Tier",
]
