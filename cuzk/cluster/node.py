"""One proving node: a Ray actor around a real Engine on that node's GPUs (or CPUs).

The actor is threaded (many `prove` calls wait at once, as gRPC threads do
in the single daemon), so the node's own engine still pipelines synthesis
and proving and batches its jobs. Its parameters stay resident between
jobs; every reply carries the circuits that are hot, which the front uses
to route work where the parameters already are.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

from cuzk.curve import get_curve
from cuzk.engine import Engine, EngineConfig, JobResult, JobState, Priority, ProofRequest, Tier
from cuzk.engine.pipeline import faults
from cuzk.groth16.keys import VerifyingKey

MAX_CONCURRENCY = 128  # waiting prove calls + status/metrics calls; the front bounds the prove calls


class ProvingNode:
    def __init__(self, config: EngineConfig, name: str, fault_rules: str = ""):
        logging.basicConfig(level=config.logging.level.upper(),
                            format=f"%(asctime)s %(levelname)s [{name}] %(name)s: %(message)s")
        self.name = name
        self._lock = threading.Lock()
        self._cancelled: set[str] = set()
        config.state_dir().mkdir(parents=True, exist_ok=True)
        self.engine = Engine(config)
        if fault_rules:
            self.engine.fault_injector = faults.parse(fault_rules)
        self.engine.start()

    def __repr__(self) -> str:  # Ray prefixes the actor's log lines with it
        return f"ProvingNode({self.name})"

    # ---- what the front asks ------------------------------------------------------------
    def info(self) -> dict:
        """Identity and size, asked once when the actor is up."""
        return {"name": self.name, "host": socket.gethostname(), "pid": os.getpid(),
                "workers": sum(d.workers for d in self.engine.devices),
                "devices": [d.name for d in self.engine.devices], "hot": self.hot()}

    def hot(self) -> list[str]:
        return [i.circuit_id for i in self.engine.srs.status() if i.tier == Tier.HOT]

    def prove(self, request: ProofRequest, payload: tuple) -> tuple[JobResult, list[str]]:
        """Prove one job; `payload` is (vanilla_proof, vanilla_proofs), fetched by Ray from the
        object store straight to this node. Returns the result and the node's hot circuits."""
        with self._lock:
            if request.request_id in self._cancelled:  # the front cancelled it before it arrived
                self._cancelled.discard(request.request_id)
                spec = self.engine.resolve(request)
                return JobResult(request.request_id, JobState.CANCELLED, spec.circuit_id, spec.proof_kind,
                                 Priority(request.priority), error="cancelled by request"), self.hot()
            request.vanilla_proof, request.vanilla_proofs = payload[0], list(payload[1])
            job_id = self.engine.submit(request).job_id
        return self.engine.await_job(job_id), self.hot()

    def job_state(self, job_id: str) -> int:
        try:
            return int(self.engine.job(job_id).state)
        except KeyError:
            return int(JobState.UNSPECIFIED)

    def cancel(self, job_id: str) -> None:
        with self._lock:
            try:
                self.engine.cancel(job_id)
            except KeyError:  # not arrived yet (its prove call waits for a thread), or already forgotten
                self._cancelled.add(job_id)

    def status(self):
        return self.engine.status()

    def metrics_text(self) -> str:
        return self.engine.metrics_text()

    def preload(self, circuit_id: str) -> tuple[bool, float, list[str]]:
        already, ms = self.engine.preload(circuit_id)
        return already, ms, self.hot()

    def evict(self, circuit_id: str) -> tuple[bool, int, list[str]]:
        was, freed = self.engine.evict(circuit_id)
        return was, freed, self.hot()

    def verifying_key(self, circuit_id: str) -> tuple[str, dict]:
        """(curve name, arrays): a VerifyingKey's curve object does not pickle, its arrays do."""
        _, vk = self.engine.verifying_key(circuit_id)
        fields = {k: getattr(vk, k) for k in ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2",
                                              "ic")}
        return vk.curve.name, fields

    def shutdown(self, timeout: float) -> bool:
        return self.engine.shutdown(drain=True, timeout=timeout)


def rebuild_vk(curve_name: str, fields: dict):
    return VerifyingKey(curve=get_curve(curve_name), **fields)
