"""`cuzk prove` against `snarkjs groth16 prove`: same zkey, same witness, same run.

    python -m cuzk.bench.snarkjs_compare [--log-domain 16] [--curve bn128] [--repeat 3] [--json OUT]
    python -m cuzk.bench.snarkjs_compare --fixtures ../shared/fixtures/circom

The first form builds a Poseidon-chain circom circuit sized to fill a 2^k
domain (circom2 from node_modules, --O2), its witness, a powers-of-tau file
(`powersoftau new`, one contribution, `prepare phase2`: the slow part, every
step timed) and a zkey (`groth16 setup`), all cached in --workdir, so a
second run only proves. `--ptau FILE` reuses a prepared ptau of power >= k.
The second form times the fixture set. Each repetition runs both provers
one after the other as separate processes (start-up and file loading
included, as a user sees them); medians are reported with the ratio, and
each prover's last proof is checked with `snarkjs groth16 verify`.

The JavaScript tools are the ones pinned in the repo's package.json
(`npm ci`): snarkjs 0.7.6, circom2 0.2.23, circomlib 2.0.5.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import resource
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cuzk.formats.iden3_sections import scan_sections
from cuzk.user_dirs import cache_dir

REPO = Path(__file__).resolve().parents[2]
CURVES = {"bn128": "bn254", "bls12381": "bls12_381"}
# Constraints per chain link: one Poseidon(2) (240 with --O2) + one square.
PER_LINK = 241

CIRCUIT = """pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";

// N Poseidon(2) hashes in a chain over N private inputs, plus the sum of squares.
template PoseidonChain(N) {
    signal input in[N];
    signal output out;
    component h[N];
    signal sq[N];
    signal acc[N + 1];
    acc[0] <== 0;
    h[0] = Poseidon(2);
    h[0].inputs[0] <== in[0];
    h[0].inputs[1] <== in[1];
    for (var i = 1; i < N - 1; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== h[i - 1].out;
        h[i].inputs[1] <== in[i + 1];
    }
    for (var i = 0; i < N; i++) {
        sq[i] <== in[i] * in[i];
        acc[i + 1] <== acc[i] + sq[i];
    }
    h[N - 1] = Poseidon(2);
    h[N - 1].inputs[0] <== h[N - 2].out;
    h[N - 1].inputs[1] <== acc[N];
    out <== h[N - 1].out;
}

component main = PoseidonChain(@N@);
"""


class Tools:
    def __init__(self, node_modules: Path):
        self.node_modules = node_modules
        self.snarkjs = node_modules / ".bin" / "snarkjs"
        self.circom2 = node_modules / ".bin" / "circom2"
        for tool in (self.snarkjs, self.circom2):
            if not tool.exists():
                sys.exit(f"{tool} not found: run `npm ci` in {REPO}")


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(cmd, log: list | None = None, what: str = "", cwd=None, env=None) -> float:
    """Run a command, return its wall time (s); exit with its output tail if it fails.

    The command's CPU time (user + sys, all threads) is kept in `run.cpu`:
    on a shared machine it moves less than the wall time does."""
    c0, t0 = _child_cpu(), time.perf_counter()
    res = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    run.cpu = _child_cpu() - c0
    if res.returncode != 0:
        tail = (res.stdout + res.stderr)[-3000:]
        sys.exit(f"failed ({res.returncode}): {' '.join(map(str, cmd))}\n{tail}")
    if log is not None:
        log.append({"step": what, "seconds": round(wall, 3)})
        print(f"  {what:<28} {wall:8.1f} s", file=sys.stderr, flush=True)
    return wall


def links_for(log_domain: int) -> int:
    """Chain length whose constraints (+ public rows) just fit 2^log_domain."""
    return (2**log_domain - 2) // PER_LINK


def make_ptau(tools: Tools, work: Path, curve: str, power: int, log: list) -> Path:
    final = work / f"pot{power}_{curve}.ptau"
    if final.exists():
        return final
    s = tools.snarkjs
    p0, p1 = work / f"pot{power}_{curve}_0000.ptau", work / f"pot{power}_{curve}_0001.ptau"
    run([s, "powersoftau", "new", curve, power, p0], log, f"ptau {power} new")
    run([s, "powersoftau", "contribute", p0, p1, "--name=bench", f"-e={secrets.token_hex(32)}"], log,
        f"ptau {power} contribute")
    run([s, "powersoftau", "prepare", "phase2", p1, final.with_suffix(".tmp")], log, f"ptau {power} prepare phase2")
    os.replace(final.with_suffix(".tmp"), final)
    p0.unlink()
    p1.unlink()
    return final


def build_circuit(tools: Tools, work: Path, curve: str, log_domain: int, ptau: Path | None, log: list) -> dict:
    """circuit -> r1cs, wasm, witness, zkey, vk under work/ (reused when present)."""
    n = links_for(log_domain)
    name = f"poseidon_chain_{n}"
    d = work / f"{name}_{curve}"
    d.mkdir(parents=True, exist_ok=True)
    files = {"zkey": d / f"{name}.zkey", "wtns": d / "witness.wtns", "vk": d / "vk.json", "r1cs": d / f"{name}.r1cs"}
    if all(p.exists() for p in files.values()):
        return files
    src = d / f"{name}.circom"
    src.write_text(CIRCUIT.replace("@N@", str(n)))
    run([tools.circom2, src, "--r1cs", "--wasm", "--O2", "--prime", curve, "-l", tools.node_modules, "-o", d], log,
        f"circom2 compile ({n} links)")
    inputs = {"in": [str(secrets.randbits(250)) for _ in range(n)]}  # below both scalar moduli
    (d / "input.json").write_text(json.dumps(inputs))
    s = tools.snarkjs
    run([s, "wtns", "calculate", d / f"{name}_js" / f"{name}.wasm", d / "input.json", files["wtns"]], log,
        "snarkjs wtns calculate")
    ptau = ptau or make_ptau(tools, work, curve, log_domain, log)
    run([s, "groth16", "setup", files["r1cs"], ptau, files["zkey"].with_suffix(".tmp")], log, "snarkjs groth16 setup")
    os.replace(files["zkey"].with_suffix(".tmp"), files["zkey"])
    run([s, "zkey", "export", "verificationkey", files["zkey"], files["vk"]], log, "snarkjs export vk")
    return files


def constraints_of(r1cs: Path) -> int:
    """nConstraints from a circom .r1cs header (the sections are scanned, not read)."""
    with open(r1cs, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        off, _ = scan_sections(mm, b"r1cs", 1, str(r1cs), {1: "header"})[1]
        n8 = int.from_bytes(mm[off : off + 4], "little")
        at = off + 4 + n8 + 16 + 8  # n8, prime, 4 u32 counts, u64 labels
        return int.from_bytes(mm[at : at + 4], "little")


def time_provers(tools: Tools, label: str, zkey: Path, wtns: Path, vk: Path, out: Path, repeat: int, backend: str) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    cuzk_cmd = [sys.executable, "-m", "cuzk", "prove", "--zkey", zkey, "--wtns", wtns, "--proof", out / "cuzk_proof.json",
                "--public", out / "cuzk_public.json", "--backend", backend, "--quiet"]
    snark_cmd = [tools.snarkjs, "groth16", "prove", zkey, wtns, out / "snarkjs_proof.json", out / "snarkjs_public.json"]
    warm = run(cuzk_cmd)  # loads (or, on a fresh install, compiles) the numba kernel cache
    run(snark_cmd)
    times = {"cuzk": [], "snarkjs": []}
    cpu = {"cuzk": [], "snarkjs": []}
    for _ in range(repeat):
        for who, cmd in (("cuzk", cuzk_cmd), ("snarkjs", snark_cmd)):
            times[who].append(run(cmd))
            cpu[who].append(run.cpu)
    for who in ("cuzk", "snarkjs"):
        run([tools.snarkjs, "groth16", "verify", vk, out / f"{who}_public.json", out / f"{who}_proof.json"])
    c, s = statistics.median(times["cuzk"]), statistics.median(times["snarkjs"])
    rec = {"case": label, "cuzk_s": [round(t, 3) for t in times["cuzk"]], "snarkjs_s": [round(t, 3) for t in times["snarkjs"]],
           "cuzk_median_s": round(c, 3), "snarkjs_median_s": round(s, 3), "ratio": round(c / s, 3),
           "cuzk_cpu_median_s": round(statistics.median(cpu["cuzk"]), 3),
           "snarkjs_cpu_median_s": round(statistics.median(cpu["snarkjs"]), 3),
           "cuzk_first_run_s": round(warm, 3), "verified": True}
    print(f"{label:<34} cuzk {c:7.2f} s   snarkjs {s:7.2f} s   ratio {c / s:5.2f}   "
          f"(runs: cuzk {', '.join(f'{t:.2f}' for t in times['cuzk'])}; "
          f"snarkjs {', '.join(f'{t:.2f}' for t in times['snarkjs'])}; CPU s: cuzk {rec['cuzk_cpu_median_s']:.2f}, "
          f"snarkjs {rec['snarkjs_cpu_median_s']:.2f})", flush=True)
    return rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cuzk.bench.snarkjs_compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("--log-domain", type=int, default=16, help="circuit size: fill a 2^k domain (default 16)")
    ap.add_argument("--curve", default="bn128", choices=sorted(CURVES), help="snarkjs curve name (default bn128)")
    ap.add_argument("--workdir", type=Path, default=cache_dir() / "snarkjs-bench",
                    help="where circuits, ptau and zkeys are built and cached")
    ap.add_argument("--ptau", type=Path, help="a prepared ptau of power >= --log-domain (skips making one)")
    ap.add_argument("--fixtures", type=Path, help="time the circom fixture set in this folder instead")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per prover (median reported)")
    ap.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--node-modules", type=Path, default=REPO / "node_modules")
    ap.add_argument("--json", type=Path, help="write the records as JSON")
    args = ap.parse_args(argv)
    tools = Tools(args.node_modules)
    args.workdir.mkdir(parents=True, exist_ok=True)
    records, setup_log = [], []
    if args.fixtures:
        for circuit in ("poseidon_chain", "bits_mix"):
            for curve in CURVES:
                d = args.fixtures / circuit / curve
                if d.is_dir():
                    records.append(time_provers(tools, f"{circuit}/{curve}", d / f"{circuit}.zkey", d / "witness.wtns",
                                                d / "vk.json", args.workdir / "fixtures" / circuit / curve, args.repeat, args.backend))
    else:
        print(f"building in {args.workdir} (cached):", file=sys.stderr)
        files = build_circuit(tools, args.workdir, args.curve, args.log_domain, args.ptau, setup_log)
        m = constraints_of(files["r1cs"])
        label = f"poseidon_chain {m} constraints/{args.curve}"
        rec = time_provers(tools, label, files["zkey"], files["wtns"], files["vk"], files["zkey"].parent / "proofs",
                           args.repeat, args.backend)
        rec.update(constraints=m, log_domain=args.log_domain, curve=args.curve)
        records.append(rec)
    result = {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "setup": setup_log, "records": records}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
