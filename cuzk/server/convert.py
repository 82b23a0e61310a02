"""Conversions between cuzk.v1 messages and the engine's types."""

from __future__ import annotations

import numpy as np

from cuzk.curve import CURVES, get_curve
from cuzk.curve.encoding import decode_points, encode_points
from cuzk.curve.subgroup import in_subgroup
from cuzk.engine import EngineStatus, JobResult, JobState, Priority, ProofKind, ProofRequest
from cuzk.engine.types import AggregateResult, AggregateVerdict, SrsSource
from cuzk.engine.errors import InvalidRequest
from cuzk.errors import FormatError, ValidationError
from cuzk.groth16.keys import VerifyingKey
from cuzk.proto import proving_pb2 as pb

STATUS = {
    JobState.COMPLETED: pb.AwaitProofResponse.COMPLETED,
    JobState.FAILED: pb.AwaitProofResponse.FAILED,
    JobState.CANCELLED: pb.AwaitProofResponse.CANCELLED,
}


MAX_ID_CHARS = 256  # request_id / circuit_id: journaled, logged and used as job ids
HASH_FIELDS = ("randomness", "comm_r_old", "comm_r_new", "comm_d_new")  # 32 bytes when given


def _check_request(m: pb.SubmitProofRequest) -> None:
    """Field checks the engine relies on; InvalidRequest (INVALID_ARGUMENT) names the field."""
    if int(m.proof_kind) not in ProofKind._value2member_map_:
        raise InvalidRequest(f"proof_kind: unknown value {int(m.proof_kind)}")
    for name in ("request_id", "circuit_id"):
        value = getattr(m, name)
        if len(value) > MAX_ID_CHARS or not value.isprintable():
            raise InvalidRequest(f"{name}: must be at most {MAX_ID_CHARS} printable characters "
                                 f"(got {len(value)} characters)")
    for name in HASH_FIELDS:
        if len(getattr(m, name)) not in (0, 32):
            raise InvalidRequest(f"{name}: expected 32 bytes or none, got {len(getattr(m, name))}")


def request_from_proto(m: pb.SubmitProofRequest) -> ProofRequest:
    _check_request(m)
    kind = int(m.proof_kind)
    return ProofRequest(
        proof_kind=ProofKind(kind),
        circuit_id=m.circuit_id, request_id=m.request_id, priority=int(m.priority),
        vanilla_proof=bytes(m.vanilla_proof), vanilla_proofs=[bytes(v) for v in m.vanilla_proofs],
        sector_size=m.sector_size, registered_proof=m.registered_proof, sector_number=m.sector_number,
        miner_id=m.miner_id, randomness=bytes(m.randomness), partition_index=m.partition_index,
        comm_r_old=bytes(m.comm_r_old), comm_r_new=bytes(m.comm_r_new), comm_d_new=bytes(m.comm_d_new),
    )


def result_to_proto(r: JobResult) -> pb.AwaitProofResponse:
    t = r.timings
    return pb.AwaitProofResponse(
        job_id=r.job_id, status=STATUS.get(r.state, pb.AwaitProofResponse.TIMEOUT), proof=r.proof,
        error_message=r.error,
        queue_wait_ms=_ms(t.queue_wait_ms), srs_load_ms=_ms(t.srs_load_ms), synthesis_ms=_ms(t.synthesis_ms),
        gpu_compute_ms=_ms(t.prove_ms), total_ms=_ms(t.total_ms),
        circuit_id=r.circuit_id, batch_id=r.batch_id, batch_size=r.batch_size, start_seq=r.start_seq,
        state=int(r.state), num_partitions=r.num_partitions, retries=r.retries, proof_kind=int(r.proof_kind),
        priority=int(r.priority),
        public_inputs=[pb.PublicInputs(values=[int(x).to_bytes(32, "little") for x in xs]) for xs in r.public_inputs],
    )


def public_inputs_from_proto(m: pb.AwaitProofResponse) -> list[list[int]]:
    return [[int.from_bytes(v, "little") for v in p.values] for p in m.public_inputs]


def _ms(v: float) -> int:
    return max(0, int(round(v)))


def status_to_proto(s: EngineStatus) -> pb.GetStatusResponse:
    return pb.GetStatusResponse(
        gpus=[pb.GPUStatus(ordinal=d.ordinal, name=d.name, vram_total_bytes=d.vram_total, current_job_id=d.current_job_id,
                           current_proof_kind=d.current_proof_kind, backend=d.kind, workers=d.workers,
                           busy_workers=d.busy_workers, vram_peak_bytes=d.vram_peak) for d in s.devices],
        loaded_srs=[pb.SRSStatus(circuit_id=i.circuit_id, tier=int(i.tier), size_bytes=i.size_bytes,
                                 ref_count=max(0, i.ref_count), source=i.source) for i in s.srs],
        queues=[pb.QueueStatus(proof_kind=q.proof_kind, pending=q.pending, in_progress=q.in_progress,
                               batching=q.batching) for q in s.queues],
        total_proofs_completed=s.completed, total_proofs_failed=s.failed, total_proofs_cancelled=s.cancelled,
        uptime_seconds=int(s.uptime_s), pinned_memory_bytes=s.pinned_bytes, pinned_memory_limit_bytes=s.pinned_limit,
        memory_used_bytes=s.memory_used, memory_limit_bytes=s.memory_limit, memory_peak_bytes=s.memory_peak,
        paused=s.paused, draining=s.draining, rss_bytes=s.rss_bytes, peak_rss_bytes=s.peak_rss_bytes,
        workers=[_worker(w, s.now) for w in s.workers],
        jobs_in_flight=[pb.JobInFlight(job_id=j["job_id"], circuit_id=j["circuit_id"], proof_kind=j["proof_kind"],
                                       priority=j["priority"], state=j["state"], stage=j["stage"],
                                       elapsed_seconds=j["elapsed_s"], partitions_done=j["partitions_done"],
                                       num_partitions=j["num_partitions"]) for j in s.jobs],
        throughput=[pb.Throughput(window_seconds=w, completed=c, failed=f) for w, c, f in s.throughput],
        nodes=[_node(n) for n in getattr(s, "nodes", ())], front_pending=getattr(s, "pending", 0),
    )


def _node(n) -> pb.NodeStatus:
    """One node of a cluster front's status (cuzk.cluster.status.NodeStatus)."""
    m = pb.NodeStatus(name=n.name, address=n.address, state=n.state, capacity=n.capacity, assigned=n.assigned,
                      error=n.error)
    if n.engine is not None:
        e = status_to_proto(n.engine)
        m.gpus.extend(e.gpus)
        m.loaded_srs.extend(e.loaded_srs)
        m.queues.extend(e.queues)
        m.total_proofs_completed, m.total_proofs_failed = e.total_proofs_completed, e.total_proofs_failed
        m.memory_used_bytes, m.memory_limit_bytes = e.memory_used_bytes, e.memory_limit_bytes
    return m


def _worker(w: dict, now: float) -> pb.WorkerActivity:
    return pb.WorkerActivity(lane=w["lane"], kind=w["kind"], device=w["device"], stage=w["stage"],
                             busy_seconds=max(0.0, now - w["since"]) if w["stage"] else 0.0,
                             job_ids=w["jobs"], circuit_id=w["circuit"], partition=w["partition"])


# ---- verifying keys ----------------------------------------------------------------------


def _point_bytes(group, pt: np.ndarray) -> bytes:
    if group.curve == "bls12_381":
        return encode_points(group, pt[None], compressed=False)
    fq = group.field if group.name == "g1" else group.field.base
    flat = pt.reshape(-1, fq.limbs)
    if group.name == "g2":  # (x.c0, x.c1, y.c0, y.c1) -> c1 first
        flat = flat[[1, 0, 3, 2]]
    return b"".join(v.to_bytes(32, "big") for v in fq.to_ints(flat))


def _point_from(group, data: bytes, what: str) -> np.ndarray:
    """One vk point as the daemon sends it, validated (canonical, on the curve, in the subgroup)."""
    if group.curve == "bls12_381":
        return decode_points(group, data, compressed=False, count=1, what=f"verifying key {what}")[0]
    fq = group.field if group.name == "g1" else group.field.base
    k = 2 if group.name == "g1" else 4
    if len(data) != 32 * k:
        raise FormatError(f"verifying key {what}: expected {32 * k} bytes, got {len(data)}")
    vals = [int.from_bytes(data[i:i + 32], "big") for i in range(0, 32 * k, 32)]
    if any(v >= fq.p for v in vals):
        raise FormatError(f"verifying key {what}: coordinate not canonical")
    m = fq.from_ints(vals)
    if group.name == "g2":
        m = m[[1, 0, 3, 2]]
    pt = m.reshape((2,) + group.coord)
    if not (group.is_on_curve(pt[None])[0] and in_subgroup(group, pt[None])[0]):
        raise ValidationError(f"verifying key {what}: not a point of the prime-order {group.name.upper()} subgroup")
    return pt


def vk_to_proto(spec, vk: VerifyingKey) -> pb.GetVerifyingKeyResponse:
    c = vk.curve
    return pb.GetVerifyingKeyResponse(
        circuit_id=spec.circuit_id, curve=c.name, alpha_g1=_point_bytes(c.g1, vk.alpha_g1),
        beta_g2=_point_bytes(c.g2, vk.beta_g2), gamma_g2=_point_bytes(c.g2, vk.gamma_g2),
        delta_g2=_point_bytes(c.g2, vk.delta_g2), ic=[_point_bytes(c.g1, p) for p in vk.ic],
        num_partitions=spec.num_partitions, proof_kind=int(spec.proof_kind),
    )


def vk_from_proto(m: pb.GetVerifyingKeyResponse) -> VerifyingKey:
    if m.curve not in CURVES:
        raise FormatError(f"verifying key curve: unknown curve {m.curve[:40]!r} (expected one of {', '.join(CURVES)})")
    if not m.ic:
        raise FormatError("verifying key ic: empty (it needs at least the point for ONE)")
    c = get_curve(m.curve)
    return VerifyingKey(
        curve=c, alpha_g1=_point_from(c.g1, m.alpha_g1, "alpha_g1"), beta_g1=None,
        beta_g2=_point_from(c.g2, m.beta_g2, "beta_g2"), gamma_g2=_point_from(c.g2, m.gamma_g2, "gamma_g2"),
        delta_g1=None, delta_g2=_point_from(c.g2, m.delta_g2, "delta_g2"),
        ic=np.stack([_point_from(c.g1, p, f"ic[{i}]") for i, p in enumerate(m.ic)]),
    )


# ---- aggregation ---------------------------------------------------------------------------


def srs_from_proto(request) -> SrsSource | None:
    """The `srs` field of an Aggregate / VerifyAggregate request (None when not set)."""
    return SrsSource(request.srs.path, bytes(request.srs.data)) if request.HasField("srs") else None


def public_rows_from_proto(msgs, what: str = "public_inputs") -> list[list[int]]:
    """PublicInputs messages as rows of ints: 32-byte little-endian values (the engine checks that
    they are field elements of the circuit's curve)."""
    rows = []
    for i, m in enumerate(msgs):
        for j, v in enumerate(m.values):
            if len(v) != 32:
                raise InvalidRequest(f"{what}[{i}].values[{j}]: expected 32 bytes, got {len(v)}")
        rows.append([int.from_bytes(v, "little") for v in m.values])
    return rows


def vk_from_request(request) -> VerifyingKey | None:
    """A VerifyAggregate request's explicit key, validated (None when it names a circuit instead)."""
    if not request.HasField("vk"):
        return None
    try:
        return vk_from_proto(request.vk)
    except (FormatError, ValidationError) as exc:
        raise InvalidRequest(f"vk: {exc}") from None


def _phases(phases: dict) -> list[pb.PhaseTiming]:
    return [pb.PhaseTiming(phase=k, ms=v) for k, v in phases.items()]


def aggregate_to_proto(r: AggregateResult) -> pb.AggregateResponse:
    return pb.AggregateResponse(
        aggregate=r.aggregate, num_proofs=r.num_proofs, padded_proofs=r.padded_proofs, circuit_id=r.circuit_id,
        curve=r.curve, public_inputs=[pb.PublicInputs(values=[x.to_bytes(32, "little") for x in row])
                                      for row in r.public_inputs],
        phases=_phases(r.phases), total_ms=_ms(r.total_ms))


def verdict_to_proto(v: AggregateVerdict) -> pb.VerifyAggregateResponse:
    return pb.VerifyAggregateResponse(valid=v.valid, reason=v.reason, phases=_phases(v.phases),
                                      total_ms=_ms(v.total_ms))


def priority_name(p: int) -> str:
    return Priority(p).name.lower() if p in Priority._value2member_map_ else str(p)
