"""Proofs of a circom circuit through a resident daemon (`cuzk bench latency --resident`).

Start-up and file reading dominate one-shot proofs of small circuits; a daemon
keeps the key decoded (and on the GPU, its bases resident), so what a client
waits for is the proof itself plus one gRPC round trip. latency.py starts a
`cuzk daemon` here (`start`), has `cuzk prove --daemon` processes prove through it
(the circuit registered on first use from its files: cuzk.key_ids), then
`measure` times `repeat` more proofs from this process (wall clock from request to
proof, no process start-up) and reads the daemon's own phase times of each. The
last is written as snarkjs JSON (cuzk-resident.proof.json) so the caller can check
it with `snarkjs groth16 verify`. On the CPU the daemon builds MSM window tables for
the key after its first proof (gpus.cpu_msm_tables, at idle priority); `wait_tables`
waits for them before anything is timed, so the timed proofs are the daemon's settled
ones and no build runs beside the other tools' processes.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from cuzk.formats import proof_bytes, snarkjs_json
from cuzk.formats.zkey import key_shape
from cuzk.server.local_daemon import LocalDaemon

from .errors import BenchError

COMPLETED = 1  # AwaitProofResponse.Status
PREFIX = "cuzk-resident"  # the files of the last proof


@dataclass
class ResidentRun:
    backend: str  # what the daemon proved on ("cuda:0 (...)", "cpu (2 threads)")
    ready_s: float  # daemon start to ready, and the warm-up proof (the circuit's registration included)
    warmup_s: float
    tables_s: float = 0.0  # after the warm-up, until the daemon's MSM window tables were built (wait_tables)
    table_bytes: int = 0
    ms: list[float] = field(default_factory=list)
    median_ms: float | None = None
    prover_ms: float | None = None  # the daemon's own prover time of the last proof
    # the last proof's phases as the daemon timed them (queue_wait, synthesis, prover, total): what
    # the client's time holds beyond `total` is the request's transport
    daemon_ms: dict = field(default_factory=dict)
    # median over the proofs of (client ms - that proof's prover ms): the request's cost outside the
    # prover (transport, journal, witness decoding, a/b/c), steadier than the raw latency
    outside_prover_ms: float | None = None


def config(backend: str) -> str:
    """One proof in flight at a time: synthesis (the circom rows a = A.w, b = B.w) may use every core."""
    return f'[gpus]\nbackend = "{backend}"\ngpu_threads = 0\n[synthesis]\nthreads = 1\nkernel_threads = 0\n'


def start(workdir: Path, backend: str = "auto") -> tuple[LocalDaemon, float]:
    """A daemon on a unix socket in `workdir` (no circuits configured: clients name theirs), and
    the seconds it took to be ready."""
    t0 = time.perf_counter()
    daemon = LocalDaemon(workdir, config(backend)).start()
    return daemon, time.perf_counter() - t0


def wait_tables(daemon: LocalDaemon, timeout: float = 900.0) -> tuple[float, int]:
    """(seconds, bytes): how long until the daemon had no MSM window table waiting or being built
    (GetMetrics' cuzk_cpu_msm_tables), and the bytes of those it keeps."""
    t0 = time.perf_counter()
    with daemon.client() as c:
        while True:
            text = c.metrics()
            pending = re.search(r'^cuzk_cpu_msm_tables\{state="pending"\} (\S+)$', text, re.M)
            if pending is None or float(pending.group(1)) == 0 or time.perf_counter() - t0 > timeout:
                kept = re.search(r"^cuzk_cpu_msm_table_bytes (\S+)$", text, re.M)
                return time.perf_counter() - t0, int(float(kept.group(1))) if kept else 0
            time.sleep(0.25)


def measure(daemon: LocalDaemon, circuit_id: str, zkey: Path, wtns: Path, out: Path, repeat: int,
            ready_s: float, warmup_s: float, tables: tuple[float, int] = (0.0, 0)) -> ResidentRun:
    """Time `repeat` proofs of `circuit_id` (registered already) for the witness in `wtns` from this
    process; the last proof goes to out/cuzk-resident.proof.json and .public.json."""
    witness = wtns.read_bytes()
    curve = key_shape(zkey)[0]
    with daemon.client() as c:
        run = ResidentRun(backend=_backend_of(c), ready_s=round(ready_s, 3), warmup_s=round(warmup_s, 3),
                          tables_s=round(tables[0], 3), table_bytes=tables[1])
        outside = []
        for _ in range(repeat):
            t = time.perf_counter()
            r = _prove(c, circuit_id, witness)
            run.ms.append(round((time.perf_counter() - t) * 1e3, 2))
            outside.append(run.ms[-1] - r.gpu_compute_ms)
    run.median_ms = round(statistics.median(run.ms), 2)
    run.outside_prover_ms = round(statistics.median(outside), 2)
    run.prover_ms = float(r.gpu_compute_ms)
    run.daemon_ms = {"queue_wait": float(r.queue_wait_ms), "synthesis": float(r.synthesis_ms),
                     "prover": float(r.gpu_compute_ms), "total": float(r.total_ms)}
    proof = proof_bytes.decode(curve, r.proof)
    snarkjs_json.write_proof(out / f"{PREFIX}.proof.json", proof)
    snarkjs_json.write_public(out / f"{PREFIX}.public.json",
                              [int.from_bytes(v, "little") for v in r.public_inputs[0].values])
    return run


def _prove(client, circuit_id: str, witness: bytes):
    r = client.prove(circuit_id=circuit_id, vanilla_proof=witness)
    if r.status != COMPLETED:
        raise BenchError(f"the daemon did not prove the circuit: {r.error_message or r.status}")
    return r


def _backend_of(client) -> str:
    return ", ".join(f"{g.backend}: {g.name}" for g in client.status().gpus) or "cpu"
