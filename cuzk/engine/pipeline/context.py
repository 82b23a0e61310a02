"""What the pipeline's workers may use of the engine: a narrow, typed view the engine builds once.

The stages (stages.py) see the queues they take from and hand to, the resources they reserve, the
observers they report to, and four engine calls; nothing else of the Engine, and none of its private
state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..catalog.registry import CircuitSpec
    from ..config import EngineConfig
    from ..jobs.job import Job
    from ..jobs.store import JobStore
    from ..observe.metrics import EngineMetrics
    from ..observe.trace import TraceRecorder
    from ..params.tiers import SrsManager
    from ..resources.memory import MemoryBudget
    from ..resources.witness_buffers import WitnessBuffers
    from .prover_queue import ProverQueue
    from .scheduler import Scheduler


@dataclass(frozen=True)
class PipelineContext:
    config: EngineConfig
    scheduler: Scheduler
    prover_queue: ProverQueue
    srs: SrsManager
    budget: MemoryBudget
    witness_buffers: WitnessBuffers
    store: JobStore
    trace: TraceRecorder
    metrics: EngineMetrics
    fail_job: Callable[[Job, str], None]
    take_slot: Callable[[], object]  # the in-flight slot of sequential mode (None when pipelined)
    next_start_seq: Callable[[], int]
    rows_on_device: Callable[[CircuitSpec], bool]  # a, b, c evaluated by the GPU prover, not by synthesis
    fault_injector: Callable[[], Callable | None]  # the test seam as it is now (set after start)
