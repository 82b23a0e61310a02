"""The Aggregate and VerifyAggregate RPCs: SnarkPack (cuzk.aggregate, docs/aggregate.md) in the daemon.

Aggregation is seconds of CPU, so it never runs on a gRPC handler thread: it
runs on a worker thread of its own ("cuzk-aggregate", one aggregation at a
time; verification on another), and the handler waits for it in slices.
The engine's proving workers are untouched, so the daemon keeps proving
meanwhile. When the client cancels (or its deadline passes) the handler asks
the worker to stop at its next phase boundary (the prover's timings dict is
the hook) and the call ends CANCELLED. Each phase is logged as it ends.

The proofs of jobs come from the engine interface (`result(job(id))`: every
partition's proof and public inputs, in order). Errors: bad input
INVALID_ARGUMENT, unknown jobs NOT_FOUND, jobs not completed
FAILED_PRECONDITION. Reference strings are cached (`SrsCache`). Aggregation
runs on the engine's side backend (a GPU whose every call takes turns with
its prover workers, or the CPU); verification on the CPU.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import itertools
import logging
import os
import tempfile
import threading
import time
import traceback
from collections import OrderedDict

import grpc
import numpy as np

from cuzk.engine.errors import EngineError, InvalidRequest, JobNotFound
from cuzk.engine.types import JobState
from cuzk.errors import CuzkError, FormatError, ValidationError
from cuzk.proto import proving_pb2 as pb

from . import convert

log = logging.getLogger("cuzk.server.aggregate")

DEFAULT_DOMAIN = "cuzk-snarkpack-v1"  # as `cuzk aggregate` (cuzk.cli.aggregate.DEFAULT_DOMAIN)
WAIT_SLICE_S = 0.25  # how often a waiting handler checks that its client is still there
SRS_CACHE = 4  # reference strings kept


class JobNotCompleted(EngineError):
    """A job named for aggregation has not completed (FAILED_PRECONDITION)."""


class AggregationCancelled(Exception):
    """The client went away; the worker stops at the next phase boundary."""


def _rpc(method):
    """Statuses: NOT_FOUND, FAILED_PRECONDITION, CANCELLED as named; any other CuzkError or
    ValueError (bad bytes, files, counts) INVALID_ARGUMENT; anything else INTERNAL, logged."""
    @functools.wraps(method)
    def wrapper(self, request, context):
        try:
            return method(self, request, context)
        except AggregationCancelled as exc:
            code, msg = grpc.StatusCode.CANCELLED, str(exc)
        except JobNotFound as exc:
            code, msg = grpc.StatusCode.NOT_FOUND, str(exc)
        except JobNotCompleted as exc:
            code, msg = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
        except (CuzkError, ValueError) as exc:
            code, msg = grpc.StatusCode.INVALID_ARGUMENT, str(exc)
        except Exception as exc:
            log.error("%s failed: %s", method.__name__, traceback.format_exc())
            code, msg = grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}"
        self._count(method.__name__, code.name.lower())
        context.abort(code, msg)
    return wrapper


class SrsCache:
    """Reference strings read once: by path (reread when its size or mtime changes) or by the
    SHA-256 of bytes sent in the request; the last SRS_CACHE kept. The verifier key (6 points,
    subgroup-checked) and the prover key (all powers) are read separately, each when first needed."""

    def __init__(self, capacity: int = SRS_CACHE):
        self.capacity = capacity
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()  # one reader at a time: a second request for the same SRS waits for it

    def verifier_key(self, source: pb.AggregateSrs, curve: str):
        from cuzk.aggregate import srs

        return self._get(source, curve, "vkey", lambda path: srs.read_verifier_key(path, curve))

    def prover_key(self, source: pb.AggregateSrs, curve: str, n: int):
        """The prover key for n (padded) proofs, sliced from the whole SRS's."""
        from cuzk.aggregate import srs

        vkey = self.verifier_key(source, curve)
        if n > vkey.max_proofs:
            raise srs.SrsTooSmall(f"the SRS is for at most {vkey.max_proofs} proofs; {n} (padded) are needed")
        full = self._get(source, curve, "pk", lambda path: srs.read_prover_key(path, curve, vkey.max_proofs))
        return _sub_key(full, n)

    def _get(self, source, curve: str, part: str, load):
        which = None if source is None else "path" if source.path and not source.data else \
            "data" if source.data and not source.path else None
        if which == "path":
            path = os.path.realpath(os.path.expanduser(source.path))
            try:
                st = os.stat(path)
            except OSError as exc:
                raise FormatError(f"SRS {source.path}: cannot open: {exc.strerror}") from None
            key, stamp = ("path", path, curve), (st.st_size, st.st_mtime_ns)
        elif which == "data":
            key, stamp = ("data", hashlib.sha256(source.data).digest(), curve), None
        else:
            raise InvalidRequest("srs: give either the path of an SRS file on the daemon's host or its bytes")
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry["stamp"] != stamp:
                entry = self._entries[key] = {"stamp": stamp}
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            if part not in entry:
                t = time.perf_counter()
                entry[part] = load(path) if which == "path" else _from_bytes(source.data, load)
                log.info("read the %s of SRS %s in %.0f ms", "verifier key" if part == "vkey" else "prover key",
                         source.path if which == "path" else f"(sent, sha256 {key[1].hex()[:12]})",
                         (time.perf_counter() - t) * 1e3)
            return entry[part]


def _from_bytes(data: bytes, load):
    """The SRS readers map files: write the sent bytes to a private temporary file for them."""
    fd, path = tempfile.mkstemp(prefix="cuzk-srs-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            return load(path)
        except FormatError as exc:
            raise type(exc)(str(exc).replace(f"SRS {path}", "srs.data")) from None
    finally:
        os.unlink(path)


def _sub_key(pk, n: int):
    """The prover key for n proofs from one for more (srs._slice of the same powers)."""
    from cuzk.aggregate.srs import ProverKey

    if n == pk.n:
        return pk
    return ProverKey(pk.curve, n, v1=pk.h_alpha[:n], v2=pk.h_beta[:n], w1=pk.g_alpha[n : 2 * n],
                     w2=pk.g_beta[n : 2 * n], g_alpha=pk.g_alpha[: 2 * n], g_beta=pk.g_beta[: 2 * n],
                     h_alpha=pk.h_alpha[:n], h_beta=pk.h_beta[:n])


class _Phases(dict):
    """The timings dict handed to the prover / verifier: each phase it records is logged and
    checked against the cancel flag (so a cancelled call stops at the next phase boundary)."""

    def __init__(self, tag: str, cancel: threading.Event):
        super().__init__()
        self.tag, self.cancel = tag, cancel

    def __setitem__(self, phase, ms):
        super().__setitem__(phase, ms)
        log.info("%s: %s done in %.0f ms", self.tag, phase, ms)
        if self.cancel.is_set():
            raise AggregationCancelled(f"{self.tag}: cancelled by the client")


def _publics(msgs, curve, what: str) -> list[list[int]]:
    """The values of PublicInputs messages (32-byte little-endian field elements)."""
    rows = []
    for i, m in enumerate(msgs):
        row = []
        for j, v in enumerate(m.values):
            if len(v) != 32:
                raise InvalidRequest(f"{what}[{i}].values[{j}]: expected 32 bytes, got {len(v)}")
            x = int.from_bytes(v, "little")
            if x >= curve.fr.p:
                raise InvalidRequest(f"{what}[{i}].values[{j}]: not a field element (>= the modulus)")
            row.append(x)
        rows.append(row)
    return rows


def _canonical(rows: list[list[int]], curve, what: str) -> np.ndarray:
    if not rows:
        raise InvalidRequest(f"{what}: at least one set of public inputs is required")
    k = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != k:
            raise InvalidRequest(f"{what}[{i}]: {len(row)} public inputs, but [0] has {k}")
    if k == 0:
        return np.zeros((len(rows), 0, 4), np.uint64)
    return curve.fr.canonical_from_ints([x for row in rows for x in row]).reshape(len(rows), k, 4)


def _proof_arrays(curve, parts: list[bytes], what: str):
    """A, B, C arrays of proof bytes, canonical, on the curve and in the subgroups."""
    from cuzk.curve.subgroup import validate_points
    from cuzk.formats import proof_bytes

    try:
        proofs = [proof_bytes.decode(curve.name, p) for p in parts]
        a, b, c = (np.stack([getattr(q, f) for q in proofs]) for f in "abc")
        validate_points(curve.g1, a, what=f"{what} A")
        validate_points(curve.g2, b, what=f"{what} B")
        validate_points(curve.g1, c, what=f"{what} C")
    except (FormatError, ValidationError) as exc:
        raise InvalidRequest(f"{what}: {exc}") from None
    return a, b, c


def _timings(phases: dict) -> list[pb.PhaseTiming]:
    return [pb.PhaseTiming(phase=k, ms=v) for k, v in phases.items()]


class AggregationRpcs:
    """Mixed into ProvingEngineService (which sets self.engine)."""

    def _aggregation_init(self) -> None:
        self.srs_cache = SrsCache()
        self._aggregator = cf.ThreadPoolExecutor(1, thread_name_prefix="cuzk-aggregate")
        self._agg_verifier = cf.ThreadPoolExecutor(1, thread_name_prefix="cuzk-verify-aggregate")
        self._agg_seq = itertools.count(1)
        self._agg_metrics = _metrics(self.engine)

    # ---- the RPCs ---------------------------------------------------------------------------
    @_rpc
    def Aggregate(self, request, context):
        t0 = time.perf_counter()
        spec, vk, parts, rows, source = self._aggregate_inputs(request)
        curve = vk.curve
        publics = _canonical(rows, curve, "public_inputs")
        tag = f"aggregate #{next(self._agg_seq)}"
        log.info("%s: %d proof(s) of %s (%s)", tag, len(parts), spec.circuit_id,
                 f"{len(request.job_ids)} job(s)" if request.job_ids else "given proofs")
        domain = (request.domain or DEFAULT_DOMAIN).encode()

        def work(phases):
            from cuzk.aggregate import proof_format, prover, srs, transcript

            clock = time.perf_counter()
            a, b, c = _proof_arrays(curve, parts, "proofs")
            include = transcript.statement_digest(vk, publics, len(parts), domain)
            phases["inputs"] = (time.perf_counter() - clock) * 1e3
            clock = time.perf_counter()
            pk = self.srs_cache.prover_key(source, curve.name, srs.padded_count(len(parts)))
            phases["srs_load"] = (time.perf_counter() - clock) * 1e3
            agg = prover.aggregate(pk, a, b, c, include, self.engine.side_backend(), phases)
            return proof_format.to_bytes(agg), agg.nproofs

        (data, padded), phases = self._run(self._aggregator, work, tag, context)
        total = (time.perf_counter() - t0) * 1e3
        log.info("%s: %d proof(s) (padded to %d), %d bytes in %.0f ms", tag, len(parts), padded, len(data), total)
        self._observe("Aggregate", phases, total)
        return pb.AggregateResponse(
            aggregate=data, num_proofs=len(parts), padded_proofs=padded, circuit_id=spec.circuit_id, curve=curve.name,
            public_inputs=[pb.PublicInputs(values=[x.to_bytes(32, "little") for x in row]) for row in rows],
            phases=_timings(phases), total_ms=convert._ms(total))

    @_rpc
    def VerifyAggregate(self, request, context):
        t0 = time.perf_counter()
        has_vk = request.HasField("vk")
        if bool(request.circuit_id) == has_vk:
            raise InvalidRequest("give exactly one of circuit_id and vk")
        if has_vk:
            try:
                vk = convert.vk_from_proto(request.vk)
            except (FormatError, ValidationError) as exc:
                raise InvalidRequest(f"vk: {exc}") from None
        else:
            _, vk = self.engine.verifying_key(request.circuit_id)
        curve = vk.curve
        publics = _canonical(_publics(request.public_inputs, curve, "public_inputs"), curve, "public_inputs")
        source = request.srs if request.HasField("srs") else None
        domain = (request.domain or DEFAULT_DOMAIN).encode()
        tag = f"verify-aggregate #{next(self._agg_seq)}"

        def work(phases):
            from cuzk.aggregate import proof_format, transcript, verifier
            from cuzk.backend import get_backend
            from cuzk.groth16.verifier import PreparedVerifyingKey

            clock = time.perf_counter()
            vkey = self.srs_cache.verifier_key(source, curve.name)
            phases["srs_load"] = (time.perf_counter() - clock) * 1e3
            try:
                agg = proof_format.from_bytes(curve, bytes(request.aggregate))
            except FormatError as exc:
                return False, f"malformed aggregate: {exc}"
            if publics.shape[1] != vk.num_public:
                return False, (f"the key expects {vk.num_public} public inputs per proof, "
                               f"the request holds {publics.shape[1]}")
            include = transcript.statement_digest(vk, publics, len(publics), domain)
            pm = curve.fr.to_mont(publics.reshape(-1, 4)).reshape(publics.shape)
            try:
                return verifier.verify(vkey, PreparedVerifyingKey(vk), pm, agg, include, get_backend("cpu"), phases)
            except ValidationError as exc:  # as `cuzk verify-aggregate`: inputs that do not match the aggregate
                return False, str(exc)

        (ok, why), phases = self._run(self._agg_verifier, work, tag, context)
        total = (time.perf_counter() - t0) * 1e3
        log.info("%s: %s%s in %.0f ms", tag, "valid" if ok else "INVALID", f" ({why})" if why else "", total)
        self._observe("VerifyAggregate", phases, total)
        return pb.VerifyAggregateResponse(valid=ok, reason=why, phases=_timings(phases), total_ms=convert._ms(total))

    # ---- helpers ----------------------------------------------------------------------------
    def _aggregate_inputs(self, request):
        """(circuit spec, vk, proof bytes per proof, public inputs per proof, SRS source) of an Aggregate request."""
        if bool(request.job_ids) == bool(request.proofs):
            raise InvalidRequest("give either job_ids (completed jobs) or proofs with public_inputs")
        if not request.HasField("srs"):
            raise InvalidRequest("srs: give the path of an SRS file on the daemon's host or its bytes")
        want = None
        if request.circuit_id:
            want, vk = self.engine.verifying_key(request.circuit_id)
        if request.proofs:
            if want is None:
                raise InvalidRequest("circuit_id is required with proofs (its verifying key binds the aggregate)")
            from cuzk.formats import proof_bytes

            try:
                parts = [p for data in request.proofs for p in proof_bytes.split(vk.curve.name, bytes(data))]
            except FormatError as exc:
                raise InvalidRequest(f"proofs: {exc}") from None
            if not parts:
                raise InvalidRequest("proofs: empty")
            if len(parts) != len(request.public_inputs):
                raise InvalidRequest(f"{len(parts)} proofs but {len(request.public_inputs)} public_inputs "
                                     "(one per proof, in order)")
            rows, spec = _publics(request.public_inputs, vk.curve, "public_inputs"), want
        else:
            if request.public_inputs:
                raise InvalidRequest("public_inputs go with proofs; the jobs' own are used with job_ids")
            parts, rows, spec = [], [], want
            for jid in request.job_ids:
                r = self.engine.result(self.engine.job(jid))
                if spec is None:
                    spec, vk = self.engine.verifying_key(r.circuit_id)
                if r.circuit_id != spec.circuit_id:
                    raise InvalidRequest(f"job {jid!r} is of circuit {r.circuit_id}, not {spec.circuit_id}: "
                                         "an aggregate is of proofs of one circuit")
                if r.state != JobState.COMPLETED:
                    raise JobNotCompleted(f"job {jid!r} is {r.state.name.lower()}, not completed")
                from cuzk.formats import proof_bytes

                mine = proof_bytes.split(vk.curve.name, r.proof)
                if len(mine) != len(r.public_inputs):
                    raise JobNotCompleted(f"job {jid!r}: {len(mine)} proofs but {len(r.public_inputs)} sets of "
                                          "public inputs")
                parts += mine
                rows += [list(map(int, xs)) for xs in r.public_inputs]
        k = {len(row) for row in rows}
        if k != {vk.num_public}:
            raise InvalidRequest(f"the key of {spec.circuit_id} expects {vk.num_public} public inputs per proof, "
                                 f"got {', '.join(map(str, sorted(k)))}")
        return spec, vk, parts, rows, request.srs

    def _run(self, executor, work, tag: str, context):
        """work(phases) on the executor; the handler waits, and stops it when the client goes away."""
        cancel = threading.Event()
        phases = _Phases(tag, cancel)
        fut = executor.submit(work, phases)
        while True:
            done, _ = cf.wait([fut], timeout=WAIT_SLICE_S)
            if done:
                return fut.result(), dict(phases)
            if not context.is_active():
                cancel.set()
                fut.cancel()  # not started yet: it never will
                log.info("%s: the client went away; stopping at the next phase", tag)
                raise AggregationCancelled(f"{tag}: cancelled by the client")

    def _count(self, rpc: str, result: str) -> None:
        if self._agg_metrics:
            self._agg_metrics[0].labels(rpc=rpc, result=result).inc()

    def _observe(self, rpc: str, phases: dict, total_ms: float) -> None:
        self._count(rpc, "ok")
        if self._agg_metrics:
            for phase, ms in list(phases.items()) + [("total", total_ms)]:
                self._agg_metrics[1].labels(rpc=rpc, phase=phase).observe(ms / 1e3)


def _metrics(engine):
    """(requests counter, phase histogram) on the engine's Prometheus registry, or None without one."""
    registry = getattr(getattr(engine, "metrics", None), "registry", None)
    if registry is None:
        return None
    from prometheus_client import Counter, Histogram

    from cuzk.engine.observe.metrics import PHASE_BUCKETS

    got = getattr(registry, "_cuzk_aggregation", None)
    if got is None:
        got = (Counter("cuzk_aggregate_requests", "Aggregate / VerifyAggregate calls by result (ok or a status code)",
                       ["rpc", "result"], registry=registry),
               Histogram("cuzk_aggregate_phase_seconds", "Time per phase of an aggregation or its verification",
                         ["rpc", "phase"], buckets=PHASE_BUCKETS, registry=registry))
        registry._cuzk_aggregation = got
    return got
