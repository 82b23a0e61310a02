"""Engine errors: each maps to one gRPC status code in the server."""

from __future__ import annotations

from cuzk.errors import CuzkError


class EngineError(CuzkError):
    """Base class of the engine's own errors."""


class InvalidRequest(EngineError, ValueError):
    """The request cannot be accepted as given (INVALID_ARGUMENT)."""


class UnknownCircuit(InvalidRequest):
    """No registered circuit matches the request (INVALID_ARGUMENT)."""


class JobNotFound(EngineError, KeyError):
    """No job with that id (NOT_FOUND)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "job not found"


class DuplicateRequestConflict(EngineError):
    """A request_id was reused with a different request (ALREADY_EXISTS)."""


class ShuttingDown(EngineError):
    """The engine no longer accepts work (UNAVAILABLE)."""


class MissingParameters(EngineError):
    """The circuit's parameter file is not there, so no job of it can be proven (FAILED_PRECONDITION)."""


class ParamsInUse(EngineError):
    """Parameters cannot be evicted while jobs use them (FAILED_PRECONDITION)."""


class QueueFull(EngineError):
    """A queue limit (limits.*) is reached; retry later (RESOURCE_EXHAUSTED)."""


class WorkerDeath(BaseException):
    """Ends a pipeline worker thread (a fault, or an escaped SystemExit); the engine starts a replacement."""


class BudgetTooSmall(EngineError):
    """A single request needs more memory than the whole budget (RESOURCE_EXHAUSTED)."""


class Cancelled(EngineError):
    """Raised inside the pipeline when a job's work is abandoned."""


class JobNotCompleted(EngineError):
    """A job named for aggregation has not completed, so it has no proofs yet (FAILED_PRECONDITION)."""


class CallerGone(EngineError):
    """The caller of a long operation (an aggregation) stopped waiting: its client went away or its
    deadline passed. The work stops at its next phase boundary (CANCELLED)."""
