"""When a CPU daemon builds its MSM window tables: do proofs wait for the build?

The daemon builds a key's tables after the key's first proof, on threads at idle priority
(cuzk/backend/cpu/tables.py). This starts a CPU daemon with tables and one without, proves the
same circom-like circuit through each (from this process, as resident_latency does: the key
registered by its id), `--gap-ms` apart (what a `cuzk prove --daemon` process spends before its
request reaches the daemon: ~150 ms), and prints the first proof, then the median of those that ran
while tables were still being built (GetMetrics) and of those after.

    python lab/cpu_tables_daemon.py [--size 16] [--proofs 16] [--gap-ms 0] [--dir DIR]
"""

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk import key_ids  # noqa: E402
from cuzk.bench import latency  # noqa: E402
from cuzk.server.local_daemon import LocalDaemon  # noqa: E402
from cuzk.user_dirs import cache_dir  # noqa: E402


def pending(client) -> float:
    m = re.search(r'^cuzk_cpu_msm_tables\{state="pending"\} (\S+)$', client.metrics(), re.M)
    return float(m.group(1)) if m else 0.0


def run(workdir: Path, tables: str, cid: str, witness: bytes, proofs: int, gap_s: float) -> list[tuple[float, float, bool]]:
    config = f'[gpus]\nbackend = "cpu"\ncpu_msm_tables = "{tables}"\n[synthesis]\nthreads = 1\nkernel_threads = 0\n'
    out = []
    with LocalDaemon(workdir, config) as d, d.client() as c:
        for i in range(proofs):
            if i:
                time.sleep(gap_s)
            building = pending(c) > 0
            t = time.perf_counter()
            r = c.prove(circuit_id=cid, vanilla_proof=witness)
            ms = (time.perf_counter() - t) * 1e3
            assert r.status == 1, r.error_message
            out.append((ms, float(r.gpu_compute_ms), building))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="16", help="as `cuzk bench latency --sizes` (one size)")
    ap.add_argument("--proofs", type=int, default=16)
    ap.add_argument("--gap-ms", type=float, default=0.0)
    ap.add_argument("--dir", default=str(cache_dir() / "bench" / "latency"))
    a = ap.parse_args()
    n = latency.parse_sizes(a.size)[0]
    r1cs, wtns, zkey, _ = latency.prepare(n, Path(a.dir))
    cid = key_ids.make(str(zkey.resolve()), str(r1cs.resolve()))
    witness = wtns.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        for label, tables in (("no tables", "0"), ("tables", "auto")):
            t0 = time.perf_counter()
            rows = run(Path(tmp) / label.replace(" ", "-"), tables, cid, witness, a.proofs, a.gap_ms / 1e3)
            print(f"{label}: {a.proofs} proofs {a.gap_ms:.0f} ms apart in {time.perf_counter() - t0:.1f} s "
                  "(the daemon's start included)", flush=True)
            print(f"  first proof {rows[0][0]:.0f} ms (prover {rows[0][1]:.0f})", flush=True)
            for state in (True, False):
                ms = [r[0] for r in rows[1:] if r[2] == state]
                if ms:
                    print(f"  {'while tables build' if state else 'settled':>18}: {len(ms)} proofs, median "
                          f"{statistics.median(ms):.0f} ms, {min(ms):.0f}-{max(ms):.0f}", flush=True)


if __name__ == "__main__":
    main()
