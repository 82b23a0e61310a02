"""A small client for the cuzk.v1 service (used by the bench tool and tests).

    with ProvingClient("unix:/run/cuzk.sock") as c:
        r = c.prove(circuit_id="winning-post-like-tiny", vanilla_proof=data)   # AwaitProofResponse
"""

from __future__ import annotations

import grpc

from cuzk.proto import proving_pb2 as pb
from cuzk.proto import proving_pb2_grpc as pbg

from . import address as addr
from .server import channel_options


class ProvingClient:
    def __init__(self, address: str, max_message_bytes: int = 128 << 20):
        self.address = addr.parse(address)
        self.channel = grpc.insecure_channel(self.address.target, options=channel_options(max_message_bytes))
        self.stub = pbg.ProvingEngineStub(self.channel)

    def wait_ready(self, timeout: float) -> None:
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    def submit(self, **fields) -> pb.SubmitProofResponse:
        return self.stub.SubmitProof(pb.SubmitProofRequest(**fields))

    def await_proof(self, job_id: str, timeout_ms: int = 0) -> pb.AwaitProofResponse:
        return self.stub.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms))

    def prove(self, timeout_ms: int = 0, **fields) -> pb.AwaitProofResponse:
        return self.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(**fields), timeout_ms=timeout_ms)).result

    def cancel(self, job_id: str) -> pb.CancelProofResponse:
        return self.stub.CancelProof(pb.CancelProofRequest(job_id=job_id))

    def status(self) -> pb.GetStatusResponse:
        return self.stub.GetStatus(pb.GetStatusRequest())

    def metrics(self) -> str:
        return self.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text

    def preload(self, circuit_id: str) -> pb.PreloadSRSResponse:
        return self.stub.PreloadSRS(pb.PreloadSRSRequest(circuit_id=circuit_id))

    def evict(self, circuit_id: str) -> pb.EvictSRSResponse:
        return self.stub.EvictSRS(pb.EvictSRSRequest(circuit_id=circuit_id))

    def verifying_key(self, circuit_id: str = "", proof_kind: int = 0) -> pb.GetVerifyingKeyResponse:
        return self.stub.GetVerifyingKey(pb.GetVerifyingKeyRequest(circuit_id=circuit_id, proof_kind=proof_kind))

    def pause(self, pause: bool = True) -> bool:
        return self.stub.PauseScheduler(pb.PauseSchedulerRequest(pause=pause)).paused

    def close(self) -> None:
        self.channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
