"""SnarkPack (cuzk.aggregate, docs/aggregate.md) as an engine operation: aggregate proofs of one
circuit, verify an aggregate.

An aggregation is seconds of CPU (or of the side backend's GPU), so it runs on a worker thread of
its own ("cuzk-aggregate", one aggregation at a time; verification on "cuzk-verify-aggregate"),
never on the caller's thread and never on the engine's proving workers, which keep proving
meanwhile. The caller waits in slices and, through `still_wanted`, may give up: the work then
stops at its next phase boundary (the prover's timings dict is the hook) and the call raises
CallerGone. Each phase is logged as it ends and observed in the metrics.

Errors are the engine's: bad input (malformed proofs or SRS, an SRS too small, inputs that do not
fit the key) InvalidRequest, unknown jobs JobNotFound, unfinished ones JobNotCompleted.
Aggregation runs on the engine's side backend (a GPU whose every call takes turns with its prover
workers, or the CPU); verification on the CPU (a handful of pairings).
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import logging
import threading
import time
from typing import Callable

from cuzk.aggregate import proof_format, prover, transcript, verifier
from cuzk.aggregate.srs import padded_count
from cuzk.backend import get_backend
from cuzk.errors import CuzkError, FormatError, ValidationError
from cuzk.groth16.verifier import PreparedVerifyingKey

from ..errors import CallerGone, EngineError, InvalidRequest
from ..types import AggregateResult, AggregateVerdict, SrsSource
from . import statements
from .metrics import AggregateMetrics
from .srs_cache import SrsCache, check_source

log = logging.getLogger("cuzk.engine.aggregate")
WAIT_SLICE_S = 0.25  # how often a waiting caller's still_wanted is asked


class _Phases(dict):
    """The timings dict handed to the prover / verifier: each phase it records is logged, and the
    cancel flag checked, so a call given up stops at the next phase boundary."""

    def __init__(self, tag: str, cancel: threading.Event):
        super().__init__()
        self.tag, self.cancel = tag, cancel

    def __setitem__(self, phase, ms):
        super().__setitem__(phase, ms)
        log.info("%s: %s done in %.0f ms", self.tag, phase, ms)
        if self.cancel.is_set():
            raise CallerGone(f"{self.tag}: cancelled by the caller")


class Aggregator:
    """The aggregation room of one engine (or cluster front). `engine` is the ProvingEngine it
    serves (its verifying_key, job, result and side_backend are used); `registry`, where its
    metrics go (None: none)."""

    def __init__(self, engine, registry=None):
        self.engine = engine
        self.srs = SrsCache()
        self.metrics = AggregateMetrics(registry) if registry is not None else None
        self._prover = cf.ThreadPoolExecutor(1, thread_name_prefix="cuzk-aggregate")
        self._verifier = cf.ThreadPoolExecutor(1, thread_name_prefix="cuzk-verify-aggregate")
        self._seq = itertools.count(1)

    # ---- the operations (ProvingEngine.aggregate_jobs, aggregate_proofs, verify_aggregate) ---------
    def of_jobs(self, job_ids, srs: SrsSource, circuit_id: str = "", domain: str = "",
                still_wanted: Callable[[], bool] | None = None) -> AggregateResult:
        return self._counted("Aggregate", lambda t0: self._aggregate(
            t0, lambda: statements.of_jobs(self.engine, job_ids, circuit_id), srs, domain, still_wanted,
            f"{len(job_ids)} job(s)"))

    def of_proofs(self, circuit_id: str, proofs, public_inputs, srs: SrsSource, domain: str = "",
                  still_wanted: Callable[[], bool] | None = None) -> AggregateResult:
        return self._counted("Aggregate", lambda t0: self._aggregate(
            t0, lambda: statements.of_proofs(self.engine, circuit_id, proofs, public_inputs), srs, domain,
            still_wanted, "given proofs"))

    def verify(self, aggregate: bytes, public_inputs, srs: SrsSource, circuit_id: str = "", vk=None,
               domain: str = "", still_wanted: Callable[[], bool] | None = None) -> AggregateVerdict:
        return self._counted("VerifyAggregate", lambda t0: self._verify(
            t0, bytes(aggregate), public_inputs, srs, circuit_id, vk, domain, still_wanted))

    # ---- the work ----------------------------------------------------------------------------------
    def _aggregate(self, t0, gather, srs, domain, still_wanted, what: str) -> AggregateResult:
        source = check_source(srs)
        st = gather()
        curve = st.vk.curve
        publics = statements.canonical(st.public_inputs, curve, "public_inputs")
        tag = f"aggregate #{next(self._seq)}"
        log.info("%s: %d proof(s) of %s (%s)", tag, len(st.proofs), st.spec.circuit_id, what)
        include_domain = domain.encode() if domain else transcript.DOMAIN

        def work(phases):
            clock = time.perf_counter()
            a, b, c = statements.proof_arrays(curve, st.proofs, "proofs")
            include = transcript.statement_digest(st.vk, publics, len(st.proofs), include_domain)
            phases["inputs"] = (time.perf_counter() - clock) * 1e3
            clock = time.perf_counter()
            pk = self.srs.prover_key(source, curve.name, padded_count(len(st.proofs)))
            phases["srs_load"] = (time.perf_counter() - clock) * 1e3
            agg = prover.aggregate(pk, a, b, c, include, self.engine.side_backend(), phases)
            return proof_format.to_bytes(agg), agg.nproofs

        (data, padded), phases = self._run(self._prover, work, tag, still_wanted)
        total = (time.perf_counter() - t0) * 1e3
        log.info("%s: %d proof(s) (padded to %d), %d bytes in %.0f ms", tag, len(st.proofs), padded, len(data), total)
        self._done("Aggregate", phases, total)
        return AggregateResult(data, len(st.proofs), padded, st.spec.circuit_id, curve.name, st.public_inputs,
                               phases, total)

    def _verify(self, t0, data: bytes, public_inputs, srs, circuit_id, vk, domain, still_wanted) -> AggregateVerdict:
        if bool(circuit_id) == (vk is not None):
            raise InvalidRequest("give exactly one of circuit_id and vk")
        if vk is None:
            _, vk = self.engine.verifying_key(circuit_id)
        curve = vk.curve
        publics = statements.canonical(statements.field_rows(public_inputs, curve, "public_inputs"), curve,
                                       "public_inputs")
        source = check_source(srs)
        include_domain = domain.encode() if domain else transcript.DOMAIN
        tag = f"verify-aggregate #{next(self._seq)}"

        def work(phases):
            clock = time.perf_counter()
            vkey = self.srs.verifier_key(source, curve.name)
            phases["srs_load"] = (time.perf_counter() - clock) * 1e3
            try:
                agg = proof_format.from_bytes(curve, data)
            except FormatError as exc:
                return False, f"malformed aggregate: {exc}"
            if publics.shape[1] != vk.num_public:
                return False, (f"the key expects {vk.num_public} public inputs per proof, "
                               f"the request holds {publics.shape[1]}")
            include = transcript.statement_digest(vk, publics, len(publics), include_domain)
            pm = curve.fr.to_mont(publics.reshape(-1, 4)).reshape(publics.shape)
            try:
                return verifier.verify(vkey, PreparedVerifyingKey(vk), pm, agg, include, get_backend("cpu"), phases)
            except ValidationError as exc:  # as `cuzk verify-aggregate`: inputs that do not match the aggregate
                return False, str(exc)

        (ok, why), phases = self._run(self._verifier, work, tag, still_wanted)
        total = (time.perf_counter() - t0) * 1e3
        log.info("%s: %s%s in %.0f ms", tag, "valid" if ok else "INVALID", f" ({why})" if why else "", total)
        self._done("VerifyAggregate", phases, total)
        return AggregateVerdict(ok, why, phases, total)

    # ---- running, cancelling, counting -----------------------------------------------------------
    def _run(self, executor, work, tag: str, still_wanted):
        """work(phases) on the executor, the caller waiting in slices; stopped once still_wanted()
        is False (a caller gone before the start never starts it). Bad input the work finds (an SRS
        file that does not parse, one too small) comes out as InvalidRequest."""
        still_wanted = still_wanted or (lambda: True)
        if not still_wanted():
            raise CallerGone(f"{tag}: cancelled by the caller before it started")
        cancel = threading.Event()
        phases = _Phases(tag, cancel)
        fut = executor.submit(_as_engine_errors, work, phases)
        while True:
            done, _ = cf.wait([fut], timeout=WAIT_SLICE_S)
            if done:
                return fut.result(), dict(phases)
            if not still_wanted():
                cancel.set()
                fut.cancel()  # not started yet: it never will
                log.info("%s: the caller went away; stopping at the next phase", tag)
                raise CallerGone(f"{tag}: cancelled by the caller")

    def _counted(self, rpc: str, call):
        try:
            return call(time.perf_counter())
        except Exception as exc:
            if self.metrics:
                self.metrics.failed(rpc, exc)
            raise

    def _done(self, rpc: str, phases: dict, total_ms: float) -> None:
        if self.metrics:
            self.metrics.done(rpc, phases, total_ms)


def _as_engine_errors(work, phases):
    try:
        return work(phases)
    except EngineError:
        raise
    except (CuzkError, ValueError) as exc:
        raise InvalidRequest(str(exc)) from None
