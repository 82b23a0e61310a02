"""The cuzk.v1.ProvingEngine gRPC service over a ProvingEngine (cuzk.engine.interface).

Engine errors map to status codes: bad requests INVALID_ARGUMENT, unknown
jobs NOT_FOUND, a reused request_id with other content ALREADY_EXISTS,
shutting down UNAVAILABLE, parameters in use FAILED_PRECONDITION, a request
larger than the memory budget or beyond a queue limit RESOURCE_EXHAUSTED,
a journal that cannot be written UNAVAILABLE (the job is not accepted). Bad proof inputs are not
RPC errors: the job is accepted and ends FAILED with a message, as in cuzk.
Anything unexpected is logged with its traceback and returned as INTERNAL
with a one-line message; the daemon keeps serving. Aggregate and VerifyAggregate
(SnarkPack) are engine operations like the rest: a job not completed is
FAILED_PRECONDITION, and a client that goes away (or whose deadline passes)
stops the aggregation at its next phase, CANCELLED.
"""

from __future__ import annotations

import functools
import logging
import time
import traceback

import grpc

from cuzk.engine import ProofKind, ProofRequest, ProvingEngine
from cuzk.engine.errors import (BudgetTooSmall, CallerGone, DuplicateRequestConflict, InvalidRequest,
                                JobNotCompleted, JobNotFound, MissingParameters, ParamsInUse, QueueFull,
                                ShuttingDown)
from cuzk.engine.jobs.journal import JournalError
from cuzk.errors import CuzkError
from cuzk.proto import proving_pb2 as pb
from cuzk.proto import proving_pb2_grpc as pbg

from . import convert

log = logging.getLogger("cuzk.server")

CODES = [  # first match wins: the engine's own errors, then their base classes
    (JobNotFound, grpc.StatusCode.NOT_FOUND),
    (DuplicateRequestConflict, grpc.StatusCode.ALREADY_EXISTS),
    ((ShuttingDown, JournalError), grpc.StatusCode.UNAVAILABLE),
    ((ParamsInUse, JobNotCompleted, MissingParameters), grpc.StatusCode.FAILED_PRECONDITION),
    (CallerGone, grpc.StatusCode.CANCELLED),
    ((BudgetTooSmall, QueueFull), grpc.StatusCode.RESOURCE_EXHAUSTED),
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (CuzkError, grpc.StatusCode.FAILED_PRECONDITION),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT),
]
CLIENT_ID_KEY = "x-cuzk-client-id"


def client_identity(context) -> str:
    """Who a caller is for limits.max_queued_per_client: its x-cuzk-client-id metadata if sent,
    else its peer address without the port (all unix-socket callers are "unix")."""
    for key, value in context.invocation_metadata() or ():
        if key == CLIENT_ID_KEY and value:
            return f"id:{value}"
    peer = context.peer() or ""
    if peer.startswith("unix"):
        return "unix"
    return peer.rpartition(":")[0] or peer


AWAIT_SLICE_S = 0.5  # how often a waiting AwaitProof checks that its client is still there


def rpc(method):
    """Translate exceptions into gRPC statuses."""
    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            return method(self, request, context)
        except Exception as exc:
            for cls, code in CODES:
                if isinstance(exc, cls):
                    context.abort(code, str(exc))
            log.error("%s failed: %s", method.__name__, traceback.format_exc())
            context.abort(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
    return wrapper


class ProvingEngineService(pbg.ProvingEngineServicer):
    def __init__(self, engine: ProvingEngine):
        self.engine = engine

    @rpc
    def SubmitProof(self, request, context):
        r = self.engine.submit(convert.request_from_proto(request), client=client_identity(context))
        return pb.SubmitProofResponse(job_id=r.job_id, queue_position=r.queue_position, duplicate=r.duplicate,
                                      circuit_id=r.circuit_id)

    @rpc
    def AwaitProof(self, request, context):
        return self._await(request.job_id, request.timeout_ms, context)

    @rpc
    def Prove(self, request, context):
        r = self.engine.submit(convert.request_from_proto(request.submit), client=client_identity(context))
        return pb.ProveResponse(result=self._await(r.job_id, request.timeout_ms, context))

    def _await(self, job_id: str, timeout_ms: int, context):
        if not job_id:
            raise InvalidRequest("job_id is empty")
        job = self.engine.job(job_id)
        deadline = None if not timeout_ms else time.monotonic() + timeout_ms / 1e3
        while not job.terminal:
            left = AWAIT_SLICE_S if deadline is None else min(AWAIT_SLICE_S, deadline - time.monotonic())
            if left <= 0 or not context.is_active():
                break  # timeout, or the client went away (the job itself goes on)
            job.wait(left)
        return convert.result_to_proto(self.engine.result(job))

    @rpc
    def CancelProof(self, request, context):
        r = self.engine.cancel(request.job_id)
        return pb.CancelProofResponse(was_running=r.was_running, state=int(r.state))

    @rpc
    def GetStatus(self, request, context):
        return convert.status_to_proto(self.engine.status())

    @rpc
    def GetMetrics(self, request, context):
        return pb.GetMetricsResponse(prometheus_text=self.engine.metrics_text())

    @rpc
    def PreloadSRS(self, request, context):
        already, ms = self.engine.preload(self._circuit(request.circuit_id))
        return pb.PreloadSRSResponse(already_loaded=already, load_time_ms=int(ms))

    @rpc
    def EvictSRS(self, request, context):
        was_loaded, freed = self.engine.evict(self._circuit(request.circuit_id))
        return pb.EvictSRSResponse(was_loaded=was_loaded, freed_bytes=freed)

    @rpc
    def GetVerifyingKey(self, request, context):
        if request.circuit_id:
            name = request.circuit_id
        else:
            name = self.engine.resolve(ProofRequest(proof_kind=ProofKind(request.proof_kind))).circuit_id
        spec, vk = self.engine.verifying_key(name)
        return convert.vk_to_proto(spec, vk)

    @rpc
    def PauseScheduler(self, request, context):
        self.engine.pause(request.pause)
        return pb.PauseSchedulerResponse(paused=self.engine.paused)

    @rpc
    def GetTrace(self, request, context):
        if request.last_seconds < 0:
            raise InvalidRequest("last_seconds must not be negative")
        text = self.engine.trace_jsonl(request.last_seconds)
        return pb.GetTraceResponse(jsonl=text, events=text.count("\n") - 1, dropped=self.engine.trace_dropped())

    @rpc
    def Aggregate(self, request, context):
        if bool(request.job_ids) == bool(request.proofs):
            raise InvalidRequest("give either job_ids (completed jobs) or proofs with public_inputs")
        srs = convert.srs_from_proto(request)
        if request.job_ids:
            if request.public_inputs:
                raise InvalidRequest("public_inputs go with proofs; the jobs' own are used with job_ids")
            r = self.engine.aggregate_jobs(list(request.job_ids), srs, request.circuit_id, request.domain,
                                           still_wanted=context.is_active)
        else:
            r = self.engine.aggregate_proofs(request.circuit_id, [bytes(p) for p in request.proofs],
                                             convert.public_rows_from_proto(request.public_inputs), srs,
                                             request.domain, still_wanted=context.is_active)
        return convert.aggregate_to_proto(r)

    @rpc
    def VerifyAggregate(self, request, context):
        rows = convert.public_rows_from_proto(request.public_inputs)
        v = self.engine.verify_aggregate(bytes(request.aggregate), rows, convert.srs_from_proto(request),
                                         request.circuit_id, convert.vk_from_request(request), request.domain,
                                         still_wanted=context.is_active)
        return convert.verdict_to_proto(v)

    @staticmethod
    def _circuit(circuit_id: str) -> str:
        if not circuit_id:
            raise InvalidRequest("circuit_id is empty")
        return circuit_id
