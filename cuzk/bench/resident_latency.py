"""Proofs of a circom circuit through a resident daemon (`cuzk bench latency --resident`).

Start-up and file reading dominate one-shot proofs of small circuits; a daemon
keeps the key decoded (and on the GPU, its bases resident), so what a client
waits for is the proof itself plus one gRPC round trip. This starts `cuzk
daemon` with the circuit registered from its .zkey (`[[circuits.circom]]`),
proves once to warm up (kernels, bases, tables), then times `repeat` proofs
one after another from the client (wall clock from request to proof). The last
proof is written as snarkjs JSON so the caller can check it with `snarkjs
groth16 verify`.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cuzk.formats import proof_bytes, snarkjs_json
from cuzk.formats.zkey import read_zkey
from cuzk.server.local_daemon import LocalDaemon

from .errors import BenchError

CIRCUIT_ID = "bench-latency"
COMPLETED = 1  # AwaitProofResponse.Status


@dataclass
class ResidentRun:
    backend: str  # what the daemon proved on ("cuda:0 (...)", "cpu (2 threads)")
    ready_s: float  # daemon start to ready, and the warm-up proof
    warmup_s: float
    ms: list[float] = field(default_factory=list)
    median_ms: float | None = None
    prover_ms: float | None = None  # the daemon's own prover time of the last proof
    # the last proof's phases as the daemon timed them (queue_wait, synthesis, prover, total): what
    # the client's time holds beyond `total` is the request's transport
    daemon_ms: dict = field(default_factory=dict)
    # median over the proofs of (client ms - that proof's prover ms): the request's cost outside the
    # prover (transport, journal, witness decoding, a/b/c), steadier than the raw latency
    outside_prover_ms: float | None = None


def config(zkey: Path, backend: str) -> str:
    """One proof in flight at a time: synthesis (the circom rows a = A.w, b = B.w) may use every core."""
    return (f'[gpus]\nbackend = "{backend}"\ngpu_threads = 0\n[synthesis]\nthreads = 1\nkernel_threads = 0\n'
            f'[[circuits.circom]]\nid = "{CIRCUIT_ID}"\nzkey = "{zkey}"\n')


def measure(zkey: Path, wtns: Path, out: Path, repeat: int, backend: str = "auto") -> ResidentRun:
    """Time `repeat` proofs of the circuit in `zkey` for the witness in `wtns` through a fresh daemon;
    the last proof goes to out/cuzk-daemon.proof.json and .public.json."""
    witness = wtns.read_bytes()
    curve = read_zkey(zkey).curve
    with tempfile.TemporaryDirectory(prefix="cuzk-latency-") as tmp:
        t0 = time.perf_counter()
        daemon = LocalDaemon(Path(tmp), config(zkey.resolve(), backend)).start()
        try:
            with daemon.client() as c:
                c.preload(CIRCUIT_ID)
                ready = time.perf_counter() - t0
                t1 = time.perf_counter()
                _prove(c, witness)
                run = ResidentRun(backend=_backend_of(c), ready_s=round(ready, 3),
                                  warmup_s=round(time.perf_counter() - t1, 3))
                outside = []
                for _ in range(repeat):
                    t = time.perf_counter()
                    r = _prove(c, witness)
                    run.ms.append(round((time.perf_counter() - t) * 1e3, 2))
                    outside.append(run.ms[-1] - r.gpu_compute_ms)
        finally:
            daemon.stop()
    run.median_ms = round(statistics.median(run.ms), 2)
    run.outside_prover_ms = round(statistics.median(outside), 2)
    run.prover_ms = float(r.gpu_compute_ms)
    run.daemon_ms = {"queue_wait": float(r.queue_wait_ms), "synthesis": float(r.synthesis_ms),
                     "prover": float(r.gpu_compute_ms), "total": float(r.total_ms)}
    proof = proof_bytes.decode(curve.name, r.proof)
    snarkjs_json.write_proof(out / "cuzk-daemon.proof.json", proof)
    snarkjs_json.write_public(out / "cuzk-daemon.public.json",
                              [int.from_bytes(v, "little") for v in r.public_inputs[0].values])
    return run


def _prove(client, witness: bytes):
    r = client.prove(circuit_id=CIRCUIT_ID, vanilla_proof=witness)
    if r.status != COMPLETED:
        raise BenchError(f"the daemon did not prove the circuit: {r.error_message or r.status}")
    return r


def _backend_of(client) -> str:
    return ", ".join(f"{g.backend}: {g.name}" for g in client.status().gpus) or "cpu"
