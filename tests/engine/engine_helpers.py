"""Shared helpers for the engine tests."""

from __future__ import annotations

import itertools

from cuzk.engine.jobs.job import Job
from cuzk.engine.catalog.registry import CircuitSpec
from cuzk.engine.types import Priority, ProofKind, ProofRequest

_seq = itertools.count(1)


def plain_spec(cid: str = "c", batchable: bool = True, partitions: int = 1,
               kind: ProofKind = ProofKind.POREP_SEAL_COMMIT) -> CircuitSpec:
    """A circuit description for scheduling tests (never synthesized or proven)."""
    def never(*_):
        raise AssertionError("scheduling tests do not synthesize")

    return CircuitSpec(cid, kind, "bls12_381", partitions, batchable, Priority.NORMAL, params=None, parse=never,
                       witness=never, rows=never, public_inputs=never, working_bytes=lambda: 0)


def job(spec: CircuitSpec, priority: Priority = Priority.NORMAL, name: str | None = None) -> Job:
    seq = next(_seq)
    return Job(name or f"j{seq}", ProofRequest(circuit_id=spec.circuit_id), spec, priority, seq)
