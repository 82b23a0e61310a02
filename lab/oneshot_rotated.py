"""One-shot `cuzk prove` of circom circuits from several trees, against rapidsnark, whole processes.

For each circuit STEM (STEM.zkey, STEM.wtns and STEM.r1cs beside it, as a circom build folder has
them), every round runs, one process after another and in an order that rotates per round:

    rapidsnark       prover STEM.zkey STEM.wtns PROOF PUBLIC
    NAME             cuzk prove --zkey ... --wtns ... --backend cpu        (PYTHONPATH=the tree NAME=PATH)
    NAME --daemon    cuzk prove --daemon unix:SOCK --zkey ... --r1cs ...   (with --daemon; client of that tree)

The daemon (--daemon) is started from the first tree, on the CPU, and gets one proof of each
circuit first; its MSM window tables are awaited, so every timed request meets a settled daemon.
Wall clock from process start to exit; medians, and each median over rapidsnark's. The 1-minute load
average is printed before and after each circuit: the machine may be shared, and the rotation
spreads its slow phases over every tool alike. Each tool's last proof is checked with
`snarkjs groth16 verify`.

    python lab/oneshot_rotated.py --tree before=/tmp/old --tree after=. --rounds 7 [--daemon] STEM [STEM ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cuzk.bench import latency, resident_latency  # noqa: E402


def cuzk(tree: Path) -> tuple[list[str], dict]:
    # bytecode written and read as a user's interpreter does: with PYTHONDONTWRITEBYTECODE set (some
    # shells here have it), a tree whose .pyc files are missing or stale compiles them every run (~60 ms)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return latency.cuzk_command(), {**env, "PYTHONPATH": str(tree.resolve())}


def timed(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    dt = time.perf_counter() - t
    if res.returncode:
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {res.returncode}: {res.stderr.strip()[-400:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stems", nargs="+", type=Path, help="circuit STEM: STEM.zkey, STEM.wtns, STEM.r1cs")
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=PATH",
                    help="a cuzk source tree to run (PYTHONPATH); repeat for several")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--daemon", action="store_true", help="also `cuzk prove --daemon` through a CPU daemon")
    ap.add_argument("--rapidsnark", type=Path, default=latency.DEFAULT_RAPIDSNARK)
    ap.add_argument("--snarkjs", type=Path, default=latency.DEFAULT_SNARKJS)
    ap.add_argument("--out", type=Path, default=Path("/tmp/cuzk-oneshot-rotated"))
    args = ap.parse_args()
    trees = [(n, Path(p)) for n, p in (t.split("=", 1) for t in args.tree)]
    args.out.mkdir(parents=True, exist_ok=True)
    daemon = None
    if args.daemon:
        cmd, env = cuzk(trees[0][1])
        os.environ["PYTHONPATH"] = env["PYTHONPATH"]  # the daemon LocalDaemon starts: the first tree's
        daemon, ready = resident_latency.start(args.out / "daemon", "cpu")
        print(f"daemon ({trees[0][0]}) ready in {ready:.1f} s", flush=True)
    try:
        for stem in args.stems:
            zkey, wtns, r1cs = (stem.with_suffix(s) for s in (".zkey", ".wtns", ".r1cs"))
            tools: dict[str, tuple[list[str], dict]] = {}

            def files(name):
                return ["--proof", str(args.out / f"{name}.proof.json"), "--public", str(args.out / f"{name}.public.json")]

            tools["rapidsnark"] = ([str(args.rapidsnark), str(zkey), str(wtns),
                                    *(str(args.out / f"rapidsnark.{k}.json") for k in ("proof", "public"))], dict(os.environ))
            for name, tree in trees:
                cmd, env = cuzk(tree)
                tools[name] = (cmd + ["prove", "--zkey", str(zkey), "--wtns", str(wtns), "--backend", "cpu", "-q"]
                               + files(name), env)
                if daemon is not None:
                    tools[f"{name} --daemon"] = (cmd + ["prove", "--daemon", daemon.address, "--zkey", str(zkey),
                                                        "--wtns", str(wtns), "--r1cs", str(r1cs), "-q"]
                                                 + files(f"{name} --daemon"), env)
            for name, (cmd, env) in tools.items():  # warm-up: bytecode, page cache, the daemon's key
                timed(cmd, env)
            if daemon is not None:
                resident_latency.wait_tables(daemon)
            names = list(tools)
            times: dict[str, list[float]] = {n: [] for n in names}
            before = latency.load1()
            for r in range(args.rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    times[name].append(timed(*tools[name]))
            after = latency.load1()
            rs = statistics.median(times["rapidsnark"])
            print(f"{stem.name}: {args.rounds} rounds, load {before:.2f}-{after:.2f}")
            for name in names:
                med = statistics.median(times[name])
                ok = subprocess.run([str(args.snarkjs), "groth16", "verify", str(stem.with_suffix(".vk.json")),
                                     str(args.out / f"{name}.public.json"), str(args.out / f"{name}.proof.json")],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                verified = "verified" if ok.returncode == 0 and "OK!" in ok.stdout else "NOT VERIFIED"
                print(f"  {name:<18} median {med:.3f} s ({med / rs:.2f}x)  min {min(times[name]):.3f}  "
                      f"max {max(times[name]):.3f}  {verified}", flush=True)
    finally:
        if daemon is not None:
            daemon.stop()


if __name__ == "__main__":
    main()
