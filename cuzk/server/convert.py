"""Conversions between cuzk.v1 messages and the engine's types."""

from __future__ import annotations

import numpy as np

from cuzk.engine import JobResult, JobState, Priority, ProofKind, ProofRequest
from cuzk.engine.engine import EngineStatus
from cuzk.errors import FormatError
from cuzk.groth16.keys import VerifyingKey
from cuzk.proto import proving_pb2 as pb

STATUS = {
    JobState.COMPLETED: pb.AwaitProofResponse.COMPLETED,
    JobState.FAILED: pb.AwaitProofResponse.FAILED,
    JobState.CANCELLED: pb.AwaitProofResponse.CANCELLED,
}


def request_from_proto(m: pb.SubmitProofRequest) -> ProofRequest:
    kind = int(m.proof_kind)
    return ProofRequest(
        proof_kind=ProofKind(kind) if kind in ProofKind._value2member_map_ else kind,
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
                           busy_workers=d.busy_workers) for d in s.devices],
        loaded_srs=[pb.SRSStatus(circuit_id=i.circuit_id, tier=int(i.tier), size_bytes=i.size_bytes,
                                 ref_count=max(0, i.ref_count), source=i.source) for i in s.srs],
        queues=[pb.QueueStatus(proof_kind=q.proof_kind, pending=q.pending, in_progress=q.in_progress,
                               batching=q.batching) for q in s.queues],
        total_proofs_completed=s.completed, total_proofs_failed=s.failed, total_proofs_cancelled=s.cancelled,
        uptime_seconds=int(s.uptime_s), pinned_memory_bytes=s.pinned_bytes, pinned_memory_limit_bytes=s.pinned_limit,
        memory_used_bytes=s.memory_used, memory_limit_bytes=s.memory_limit, memory_peak_bytes=s.memory_peak,
        paused=s.paused, draining=s.draining, rss_bytes=s.rss_bytes, peak_rss_bytes=s.peak_rss_bytes,
    )


# ---- verifying keys ----------------------------------------------------------------------


def _point_bytes(group, pt: np.ndarray) -> bytes:
    if group.curve == "bls12_381":
        from cuzk.curve.encoding import encode_points

        return encode_points(group, pt[None], compressed=False)
    fq = group.field if group.name == "g1" else group.field.base
    flat = pt.reshape(-1, fq.limbs)
    if group.name == "g2":  # (x.c0, x.c1, y.c0, y.c1) -> c1 first
        flat = flat[[1, 0, 3, 2]]
    return b"".join(v.to_bytes(32, "big") for v in fq.to_ints(flat))


def _point_from(group, data: bytes, what: str) -> np.ndarray:
    if group.curve == "bls12_381":
        from cuzk.curve.encoding import decode_points

        return decode_points(group, data, compressed=False, what=what)[0]
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
    return m.reshape((2,) + group.coord)


def vk_to_proto(spec, vk: VerifyingKey) -> pb.GetVerifyingKeyResponse:
    c = vk.curve
    return pb.GetVerifyingKeyResponse(
        circuit_id=spec.circuit_id, curve=c.name, alpha_g1=_point_bytes(c.g1, vk.alpha_g1),
        beta_g2=_point_bytes(c.g2, vk.beta_g2), gamma_g2=_point_bytes(c.g2, vk.gamma_g2),
        delta_g2=_point_bytes(c.g2, vk.delta_g2), ic=[_point_bytes(c.g1, p) for p in vk.ic],
        num_partitions=spec.num_partitions, proof_kind=int(spec.proof_kind),
    )


def vk_from_proto(m: pb.GetVerifyingKeyResponse) -> VerifyingKey:
    from cuzk.curve import get_curve

    c = get_curve(m.curve)
    return VerifyingKey(
        curve=c, alpha_g1=_point_from(c.g1, m.alpha_g1, "alpha_g1"), beta_g1=None,
        beta_g2=_point_from(c.g2, m.beta_g2, "beta_g2"), gamma_g2=_point_from(c.g2, m.gamma_g2, "gamma_g2"),
        delta_g1=None, delta_g2=_point_from(c.g2, m.delta_g2, "delta_g2"),
        ic=np.stack([_point_from(c.g1, p, f"ic[{i}]") for i, p in enumerate(m.ic)]),
    )


def priority_name(p: int) -> str:
    return Priority(p).name.lower() if p in Priority._value2member_map_ else str(p)
