"""`cuzk bench prove`: whole Groth16 proofs of a stamped workload, per phase.

The workload is SHA-256 compressions stamped to fill 2^k constraint rows
(Filecoin's circuits are SHA-256 and Poseidon; SHA makes most witness values
bits, so the A/B MSMs see the 0/1 scalars a real PoRep proof sees), or with
`--kind window-post|winning-post|porep|snap --sector-size S` one partition of Filecoin's
circuit, the one the daemon proves (its Poseidon values give the L/A/B MSMs the full-width
scalars that SHA alone lacks): the PoSt circuit proving a Curio-shaped request over random
sectors, partition 0 of the PoRep (C2) circuit from a generated C1 output, or partition 0 of
the SnapDeals circuit from generated partition proofs. The
witness and the circuit's (a, b, c) are computed where the backend computes:
on a GPU the witness crosses the bus once and the SpMV, NTTs and MSMs run on
the device. Keys up to `--verify-up-to` come from a real setup and every
proof is verified; larger keys are random points of the right shapes (a
setup of 2^24 rows costs minutes of CPU and does not change the prover's
work), and those proofs are timed only, which the output says.

Per size and transfer mode: one warm-up proof (two on the GPU one proof at a time: a
window table is sized from the first proof's memory and built during the second), then
`--repeat` proofs;
medians of the wall time and of every phase (CUDA events on the GPU), and
on the GPU the memory pool's size after them (its high-water mark: the
pool keeps every block it took; the first batch size run gives it for
one circuit at a time). With
`--batch K` each of those is one `prove_batch` of K jobs of the same size,
and the wall time reported is the batch's divided by K (ms per proof), which
shows how much of the next witness's upload hides behind the current proof.
"""

from __future__ import annotations

import json
import sys
import threading
import time

import numpy as np

from cuzk.backend import get_backend
from cuzk.backend.cpu import CpuBackend
from cuzk.backend.memory_plan import MemoryBudgetError
from cuzk.circuits.filecoin.porep import provable as porep_kind
from cuzk.circuits.filecoin.post import circuit as post_circuit
from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin import kinds as provable
from cuzk.circuits.filecoin.snap import provable as snap_kind
from cuzk.circuits.filecoin.porep.config import porep_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.circuits.filecoin.snap.config import snap_config_for
from cuzk.curve import get_curve
from cuzk.groth16 import prover, setup
from cuzk.groth16.keys import H_BELLPERSON, ProvingKey, VerifyingKey, density_vars
from cuzk.groth16.setup import domain_size
from cuzk.circuits.filecoin.porep import request as porep_request
from cuzk.circuits.filecoin.post import request as post_request
from cuzk.circuits.filecoin.snap import request as snap_request
from cuzk.circuits.filecoin.porep.c1_read import decode_c1
from cuzk.circuits.filecoin.porep.c1_verify import check_c1
from cuzk.circuits.filecoin.post.vanilla_bincode import load_partition
from cuzk.groth16.verifier import PreparedVerifyingKey, verify

from .synth import sha256_case

CURVE = "bls12_381"


def stamped_sha256(log_rows: int):
    """(compiled circuit, witness, compressions) with close to 2^log_rows constraint rows
    (the same stamped SHA-256 case `cuzk bench synth` times)."""
    name, record, witness = sha256_case(log_rows)
    return record().compile(), witness(), int(name.rsplit("x", 1)[1])


def post_partition(kind: str, size: str, seed: int = 1):
    """(compiled circuit, witness, description) of Filecoin's PoSt circuit `kind` (window-post,
    winning-post) for `size` sectors, from a request as Curio sends it over random sectors."""
    cfg = _post_config(kind, size)
    fields = post_request.sample_request(cfg, seed)
    slots = load_partition(cfg, fields["vanilla_proofs"], fields["randomness"], fields["partition_index"])
    w, _ = post_kind.witness(cfg, slots)
    return post_kind.compiled(cfg), w, f"{post_kind.circuit_id(cfg)} ({len(fields['vanilla_proofs'])} sector(s))"


def porep_partition(size: str, seed: int = 1):
    """(compiled circuit, witness, description) of partition 0 of Filecoin's PoRep circuit for `size`
    sectors, from a generated C1 output decoded as the daemon decodes Curio's."""
    cfg = porep_config_for(SECTOR_SIZES[size])
    c1 = decode_c1(porep_request.sample_request(cfg, seed)["vanilla_proof"])
    check_c1(c1)
    w, _ = porep_kind.witness(cfg, c1.partitions[0])
    return porep_kind.compiled(cfg), w, f"{porep_kind.circuit_id(cfg)} partition 0 of {cfg.partitions}"


def snap_partition(size: str, seed: int = 1):
    """(compiled circuit, witness, description) of partition 0 of Filecoin's SnapDeals circuit for `size`
    sectors, from generated partition proofs decoded and checked as the daemon checks Curio's."""
    cfg = snap_config_for(SECTOR_SIZES[size])
    f = snap_request.sample_request(cfg, seed)
    update = snap_request.decode_update(cfg, f["vanilla_proofs"], f["comm_r_old"], f["comm_r_new"], f["comm_d_new"])
    w, _ = snap_kind.witness(cfg, snap_kind.inputs(cfg, update.partitions[0], 0, update.h, *update.commitments))
    return snap_kind.compiled(cfg), w, f"{snap_kind.circuit_id(cfg)} partition 0 of {cfg.partitions}"


def _post_config(kind: str, size: str):
    return post_config_for(kind.split("-")[0], SECTOR_SIZES[size])


def _cases(sizes, kind: str | None, preset: str, seed: int):
    """(label, log2 of the domain, build) per case; build() -> (cc, w, what it is)."""
    if kind in ("window-post", "winning-post"):
        cfg = _post_config(kind, preset)
        n = post_circuit.counts(cfg)
        yield (post_kind.circuit_id(cfg), max(1, (n.constraints + n.inputs - 1).bit_length()),
               lambda: post_partition(kind, preset, seed))
        return
    if kind in ("porep", "snap"):
        cfg = (porep_config_for if kind == "porep" else snap_config_for)(SECTOR_SIZES[preset])
        n = provable.counts(cfg)  # from the counts: the label needs no compiled circuit
        build = porep_partition if kind == "porep" else snap_partition
        yield (provable.circuit_id(cfg), max(1, (n.constraints + n.inputs - 1).bit_length()),
               lambda: build(preset, seed))
        return
    if kind is not None:
        raise ValueError(f"bench prove: unknown kind {kind!r} (window-post, winning-post, porep, snap)")
    for log_rows in sizes:
        def build(k=log_rows):
            cc, w, count = stamped_sha256(k)
            return cc, w, f"{count} SHA-256 compressions"
        yield f"sha256-2^{log_rows}", log_rows, build


def random_key(cc, seed: int = 5):
    """A ProvingKey of cc's shape whose points are random (timing only)."""
    curve = get_curve(cc.curve)
    rng = np.random.default_rng(seed)
    pool1, pool2 = curve.g1.random(1024, rng), curve.g2.random(256, rng)

    def g1(k):
        return np.ascontiguousarray(pool1[rng.integers(0, len(pool1), k)])

    def g2(k):
        return np.ascontiguousarray(pool2[rng.integers(0, len(pool2), k)])

    n = domain_size(cc.num_rows, curve.fr.params.two_adicity)
    a_vars, b_vars = density_vars(cc)
    vk = VerifyingKey(curve, g1(1)[0], g1(1)[0], g2(1)[0], g2(1)[0], g1(1)[0], g2(1)[0], g1(cc.num_inputs))
    return ProvingKey(vk=vk, num_inputs=cc.num_inputs, num_aux=cc.num_aux, domain_size=n, h_convention=H_BELLPERSON,
                      beta_g1=vk.beta_g1, delta_g1=vk.delta_g1, a_vars=a_vars, b_vars=b_vars,
                      vectors={"h": g1(n - 1), "l": g1(cc.num_aux), "a": g1(len(a_vars)), "b_g1": g1(len(b_vars)),
                               "b_g2": g2(len(b_vars))})


def _backend(name: str, transfer: str, device_memory: int | None = None):
    if name == "cuda":
        from cuzk.backend.cuda import CudaBackend  # CuPy: only on a machine with a GPU

        return CudaBackend(transfer=transfer, memory_limit=device_memory)
    if device_memory is not None:  # the CPU prover follows the plan a device of that size would get
        return CpuBackend(memory_limit=device_memory)
    return get_backend(name)


def run(backend_name: str = "cpu", sizes=(16,), repeat: int = 5, transfers=None, verify_up_to: int = 20,
        json_path: str | None = None, out=None, batches=(1,), kind: str | None = None, preset: str = "2KiB",
        seed: int = 1, device_memory: int | None = None) -> list[dict]:
    """`transfers`: host-to-device modes to compare on the GPU (default pageable; the CPU has only pageable).
    With `kind`, one partition of that Filecoin circuit for `preset` sectors (the sector size, e.g.
    "2KiB") instead of the SHA-256 `sizes`. Each
    batch size in `batches` is one more set of runs over the same circuit, witness and key.
    `device_memory`: the prover's device-memory budget in bytes (backend/memory_plan.py; None:
    the card's), or a list of them, each one more set of runs (None in it: the card's); the plan
    each gave and the device's peak memory (the driver's count) are printed and recorded."""
    out = out or sys.stdout
    backend_name = get_backend(backend_name).name  # "auto": what it picks; BackendUnavailable: one line, exit 2
    transfers = tuple(transfers or ("pageable",)) if backend_name == "cuda" else ("pageable",)

    records = []
    gbps = None  # the pinned upload rate, measured once, at the first proof that moved bytes
    for case, log_rows, build in _cases(sizes, kind, preset, seed):
        t = time.perf_counter()
        cc, w, what = build()
        synth_s = time.perf_counter() - t
        real = log_rows <= verify_up_to
        t = time.perf_counter()
        pk = setup.generate(cc, backend=get_backend(backend_name), progress=False) if real else random_key(cc)
        key_s = time.perf_counter() - t
        for name in ("h", "l", "a", "b_g1", "b_g2"):
            pk.bases(name)
        print(f"2^{log_rows}: {what}, {cc.num_rows} rows, {cc.num_vars} variables; circuit and witness "
              f"{synth_s:.1f} s, {'setup' if real else 'random key'} {key_s:.1f} s", file=out, flush=True)
        public = cc.fr.to_ints(w[1:cc.num_inputs]) if real else None
        plain = [(mode, pinned) for mode in transfers for pinned in ((False, True) if mode == "pinned" else (False,))]
        # a batch prefetches every witness through pinned staging, whatever the mode
        batched = list(dict.fromkeys(("pinned", pinned) for _, pinned in plain))
        backend, current = None, None
        memories = device_memory if isinstance(device_memory, (list, tuple)) else (device_memory,)
        for limit, batch, mode, pinned_input in [(m, k, *c) for m in memories for k in batches
                                                 for c in (plain if k == 1 else batched)]:
            if (mode, limit) != current:  # one backend at a time: each keeps its own device copy of the bases
                backend = None
                _release_device(backend_name)
                backend, current = _backend(backend_name, mode, limit), (mode, limit)
            wi = w
            if pinned_input:
                wi = backend.host_array(w.shape, w.dtype)
                wi[:] = w
            # a batch's second proof can already take a window table (window_tables.table_room)
            # (under an explicit device budget no table is built while any base streams: one warm-up)
            warm = 2 if backend_name == "cuda" and batch == 1 and limit is None else 1
            try:
                with DevicePeak(backend) as peak:
                    runs = [_prove_batch(prover, pk, wi, cc, backend, batch) for _ in range(repeat + warm)]
                    pool = _device_pool_bytes(backend)
                    runs.append(_prove_batch(prover, pk, wi, cc, backend, batch))
                    pool_growth = _device_pool_bytes(backend) - pool
            except (MemoryError, MemoryBudgetError) as exc:  # CuPy's OutOfMemoryError is a MemoryError;
                # a budget the plan refuses, or one it misjudged: either way the next budget still runs
                plan = backend.plan.describe() if backend.plan is not None else "no plan"
                what = "REFUSED" if isinstance(exc, MemoryBudgetError) else "OUT OF DEVICE MEMORY"
                print(f"  {mode}, budget {'card' if limit is None else f'{limit / 2**30:.2f} GiB'}: {what}: {exc} "
                      f"[{plan}; device peak {peak.bytes / 2**30:.1f} GiB]", file=out, flush=True)
                records.append({"op": "prove", "circuit": case, "log_rows": log_rows, "batch": batch,
                                "device_memory_limit": getattr(backend, "memory_limit", None),
                                "out_of_memory": str(exc), "memory_plan": plan, "device_peak_bytes": peak.bytes})
                backend, current = None, None
                continue
            timed = [p for proofs, _ in runs[warm:-1] for p in proofs]
            verified = None
            if real:
                pvk = PreparedVerifyingKey(pk.vk)
                verified = all(verify(pvk, p, public) for p in (runs[0][0][0], runs[-1][0][-1]))
            phases = {k: float(np.median([p.timings.get(k, 0.0) for p in timed])) for k in timed[0].timings}
            moved = int(np.median([p.h2d_bytes for p in timed]))
            if moved and gbps is None:
                gbps = _pinned_gbps(backend)
            # one proof: its own total (as before --batch existed); a batch: its wall time per proof
            per_proof = phases["total"] if batch == 1 else float(np.median([ms for _, ms in runs[warm:-1]]))
            label = ("prefetch" if batch > 1 else mode) + (" (witness already pinned)" if pinned_input else "")
            rec = {"op": "prove", "circuit": case, "log_rows": log_rows, "rows": cc.num_rows, "variables": cc.num_vars,
                   "backend": backend.describe(), "transfer": label, "repeat": repeat, "batch": batch,
                   "median_ms": per_proof, "verified": verified, "device_pool_growth_bytes": pool_growth,
                   "device_memory_limit": getattr(backend, "memory_limit", None), "device_peak_bytes": peak.bytes,
                   "memory_plan": backend.plan.describe() if backend.plan is not None else None,
                   "device_pool_bytes": _device_pool_bytes(backend), "window_tables": _tables_held(backend),
                   "h2d_bytes": moved, "pinned_gbps": gbps if moved else None, "phases_ms": phases}
            records.append(rec)
            _print(rec, out)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(records, f, indent=1)
    return records


class DevicePeak:
    """The most device memory in use (the driver's count, as nvidia-smi reads it: every context on
    the GPU, CuPy's pool and its cached blocks) while the block runs, sampled every 20 ms on a
    thread; 0 on the CPU. Our own counters (the pool's) cannot show what the budget costs the card."""

    def __init__(self, backend, period_s: float = 0.02):
        self.backend, self.period_s, self.bytes = backend, period_s, 0
        self._stop = threading.Event()
        self._thread = None

    def _run(self):
        while not self._stop.wait(self.period_s):
            self.bytes = max(self.bytes, self.backend.device_memory_in_use())

    def __enter__(self):
        if self.backend.name == "cuda":
            self.bytes = self.backend.device_memory_in_use()
            self._thread = threading.Thread(target=self._run, name="cuzk-device-peak", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self.bytes = max(self.bytes, self.backend.device_memory_in_use())


def _prove_batch(prover, pk, w, cc, backend, batch: int):
    """(proofs, wall ms per proof) of one prove_batch of `batch` jobs of the same witness."""
    t = time.perf_counter()
    proofs = prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc)] * batch, backend=backend)
    return proofs, (time.perf_counter() - t) * 1e3 / batch


def _release_device(backend_name: str) -> None:
    """Give the device memory of dropped backends back (at 2^27 two sets of resident bases do not fit)."""
    if backend_name != "cuda":
        return
    import gc

    import cupy as cp  # only on the GPU backend

    from cuzk.backend.cuda import ntt  # its kept twiddle and coset tables are outside the next budget's plan

    gc.collect()
    ntt.power_table.cache_clear()
    ntt.scaled_power_table.cache_clear()
    cp.get_default_memory_pool().free_all_blocks()


def _tables_held(backend) -> list[dict]:
    """The MSM window tables the device kept (their memory is in the pool's figure)."""
    cache = getattr(backend, "tables", None)
    return [{"n": t.n, "c": t.c, "sets": t.sets, "rows": t.nrows, "bytes": t.nbytes} for t in cache.kept()] if cache else []


def _pinned_gbps(backend, nbytes: int = 1 << 30) -> float | None:
    """Host-to-device bandwidth from page-locked memory (GB/s), the best of three 1 GiB copies timed by
    CUDA events: the rate that makes a proof's bytes moved a floor on its time."""
    import cupy as cp  # only on the GPU backend

    with backend.device:
        try:
            host = cp.cuda.alloc_pinned_memory(nbytes)
            dst = cp.empty(nbytes, dtype=cp.uint8)
        except MemoryError:  # CuPy's OutOfMemoryError too: no figure rather than no record
            return None
        src = np.frombuffer(host, dtype=np.uint8, count=nbytes)
        best = float("inf")
        for _ in range(3):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            dst.set(src)
            end.record()
            end.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(start, end) / 1e3)
        del dst
        cp.get_default_memory_pool().free_all_blocks()
    return nbytes / best / 1e9


def _device_pool_bytes(backend) -> int:
    """Bytes CuPy's pool holds: it keeps every block it ever took, so after the runs this is the
    high-water mark of the device memory the proofs used (plus fragmentation)."""
    if backend.name != "cuda":
        return 0
    import cupy as cp  # only on the GPU backend

    backend.synchronize()
    return int(cp.get_default_memory_pool().total_bytes())


def _print(rec: dict, out) -> None:
    ver = {True: "verified", False: "NOT VERIFIED", None: "timing only (random key)"}[rec["verified"]]
    label = rec["transfer"] + (f", batch {rec['batch']}" if rec.get("batch", 1) > 1 else "")
    unit = "ms/proof" if rec.get("batch", 1) > 1 else "ms"
    held = f"; device pool {rec['device_pool_bytes'] / 2**30:.1f} GiB" if rec.get("device_pool_bytes") else ""
    held += f"; {rec['memory_plan']}" if rec.get("memory_plan") else ""
    held += f"; device peak {rec['device_peak_bytes'] / 2**30:.1f} GiB (driver)" if rec.get("device_peak_bytes") else ""
    held += "".join(f"; window table over 2^{t['n'].bit_length() - 1} bases c={t['c']}, {t['sets']} sets, {t['rows']} "
                    f"rows, {t['bytes'] / 2**30:.1f} GiB" for t in rec.get("window_tables", []))
    print(f"  {label:34s} median {rec['median_ms']:9.1f} {unit}  [{ver}; device pool growth "
          f"{rec['device_pool_growth_bytes']} B{held}]", file=out)
    if rec.get("pinned_gbps"):
        floor = rec["h2d_bytes"] / 1e9 / rec["pinned_gbps"] * 1e3
        print(f"    moved host -> device: {rec['h2d_bytes'] / 2**30:.2f} GiB a proof; at the pinned rate measured "
              f"here ({rec['pinned_gbps']:.1f} GB/s) that alone takes {floor:.0f} ms", file=out)
    ph = rec["phases_ms"]
    host = [k for k in ph if not k.startswith("gpu:") and k != "total"]
    print("    wall: " + "  ".join(f"{k} {ph[k]:.1f}" for k in host), file=out)
    gpu = [k for k in ph if k.startswith("gpu:") and k.count("/") <= 1]
    if gpu:
        print("    gpu:  " + "  ".join(f"{k[4:]} {ph[k]:.1f}" for k in gpu), file=out)
    out.flush()
