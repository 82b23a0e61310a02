"""`cuzk bench latency`: one proof, start-up included, against rapidsnark and snarkjs.

For each size a circom-shaped BN254 circuit (circom_like.py: .r1cs and a
matching .wtns) is written once, and its key made once by `cuzk setup
--r1cs F --zkey Z`, all cached in --dir. Then every repetition runs, as
separate processes one after the other (the order rotates per repetition,
so slow phases of a shared machine fall on every tool alike):

    rapidsnark  prover Z W PROOF PUBLIC                     (iden3's C++ prover)
    snarkjs     snarkjs groth16 prove Z W PROOF PUBLIC      (node)
    cuzk        cuzk prove --zkey Z --wtns W ... --backend cpu (witness check included)

Wall clock from process start to exit; medians of --repeat are printed with
cuzk/rapidsnark, and each tool's last proof is checked by `snarkjs groth16
verify`. The 1-minute load average is recorded with each size: on a
machine shared with other work the figures move with it.

--resident also starts a `cuzk daemon` per size (resident_latency.py) and adds a
fourth process to the rotation, what a user runs to prove through it:

    cuzk-daemon  cuzk prove --daemon unix:SOCK --zkey Z --wtns W --r1cs R ...  (client process included)

(one run before the timed ones registers the circuit and decodes its key, and on the
CPU the daemon's MSM window tables for it are awaited); its
median is compared with rapidsnark's (daemon/rapidsnark). Then proofs are timed
from this process through the same daemon, without process start-up, with the
daemon's own phase times: ms per proof and how much of it is outside the
daemon's prover (median of client ms - prover ms).

Sizes: "10k" (10,000 constraints), "2^K" or "K" for K <= 30 (a domain of
exactly 2^K: 2^K - 3 constraints, the circuit having two public signals),
or a plain constraint count.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cuzk.errors import CuzkError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RAPIDSNARK = REPO.parent / "shared" / "anchors" / "rapidsnark" / "prover"
DEFAULT_SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
DEFAULT_SIZES = "10k,16,20"
N_PUBLIC = 2  # circom_like: one output, one public input
TOOLS = ("rapidsnark", "snarkjs", "cuzk")
DAEMON_TOOL = "cuzk-daemon"  # --resident: `cuzk prove --daemon`
PHASES = re.compile(r"cuzk prove: (\d+) ms \((.*)\)")


class LatencyError(CuzkError):
    pass


def parse_sizes(text: str) -> list[int]:
    """'10k,2^16,20,500' -> constraint counts (see the module docstring)."""
    out = []
    for tok in (t.strip().lower() for t in text.split(",")):
        if not tok:
            continue
        m = re.fullmatch(r"(\d+)k|(?:2\^)?(\d+)", tok)
        if not m:
            raise LatencyError(f"--sizes: {tok!r} is not 10k, 2^K, K or a constraint count")
        if m.group(1):
            n = 1000 * int(m.group(1))
        elif int(m.group(2)) <= 30 or tok.startswith("2^"):
            k = int(m.group(2))
            if not 4 <= k <= 28:
                raise LatencyError(f"--sizes: 2^{k} is outside 2^4..2^28")
            n = (1 << k) - N_PUBLIC - 1
        else:
            n = int(m.group(2))
        if n < 2:
            raise LatencyError(f"--sizes: {tok!r}: a circuit needs at least 2 constraints")
        out.append(n)
    if not out:
        raise LatencyError("--sizes: no size given")
    return out


def domain_of(constraints: int) -> int:
    """snarkjs's domain: the smallest power of two >= constraints + public signals + 1."""
    return 1 << (constraints + N_PUBLIC).bit_length()


@dataclass
class ToolRun:
    tool: str
    available: bool
    command: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    median_s: float | None = None
    verified: bool | None = None
    phases_ms: dict[str, float] = field(default_factory=dict)  # cuzk only: its own timing line (last run)
    note: str = ""


@dataclass
class SizeResult:
    constraints: int
    domain: int
    wires: int
    load_before: float
    load_after: float
    tools: dict[str, ToolRun]
    ratio_cuzk_rapidsnark: float | None = None
    ratio_cuzk_snarkjs: float | None = None
    resident: dict | None = None  # --resident: proofs through a daemon (resident_latency.ResidentRun)
    ratio_resident_rapidsnark: float | None = None  # `cuzk prove --daemon` processes against rapidsnark's


def cuzk_command() -> list[str]:
    """The installed `cuzk` script beside this interpreter, else `python -m cuzk`."""
    script = Path(sys.executable).with_name("cuzk")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cuzk"]


def _executable(path: Path | None) -> Path | None:
    return path if path is not None and path.is_file() and os.access(path, os.X_OK) else None


def prepare(constraints: int, workdir: Path, log=print) -> tuple[Path, Path, Path, int]:
    """(r1cs, wtns, zkey, wires) of the circom-like circuit of `constraints` rows, made once in `workdir`."""
    from .circom_like import generate

    workdir.mkdir(parents=True, exist_ok=True)
    stem = workdir / f"circom_like_{constraints}"
    r1cs, wtns, zkey = stem.with_suffix(".r1cs"), stem.with_suffix(".wtns"), stem.with_suffix(".zkey")
    wires_file = stem.with_suffix(".wires")
    if not (r1cs.is_file() and wtns.is_file() and wires_file.is_file()):
        t = time.perf_counter()
        made = generate(constraints, r1cs, wtns)
        wires_file.write_text(str(made.wires))
        zkey.unlink(missing_ok=True)
        log(f"  wrote {r1cs.name} and {wtns.name} ({made.wires:,} wires) in {time.perf_counter() - t:.1f} s")
    if not zkey.is_file():
        t = time.perf_counter()
        res = subprocess.run(cuzk_command() + ["setup", "--r1cs", str(r1cs), "--zkey", str(zkey), "--backend", "auto"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "CUZK_PROGRESS": "0"})
        if res.returncode:
            raise LatencyError(f"cuzk setup for {r1cs} failed: {res.stderr.strip().splitlines()[-1:]}")
        log(f"  made {zkey.name} with cuzk setup in {time.perf_counter() - t:.1f} s")
    return r1cs, wtns, zkey, int(wires_file.read_text())


def _commands(tool: str, r1cs: Path, wtns: Path, zkey: Path, out: Path, rapidsnark: Path | None,
              snarkjs: Path | None, daemon: str = "") -> list[str] | None:
    proof, public = out / f"{tool}.proof.json", out / f"{tool}.public.json"
    if tool == "rapidsnark":
        return None if rapidsnark is None else [str(rapidsnark), str(zkey), str(wtns), str(proof), str(public)]
    if tool == "snarkjs":
        return None if snarkjs is None else [str(snarkjs), "groth16", "prove", str(zkey), str(wtns), str(proof),
                                              str(public)]
    where = ["--daemon", daemon] if tool == DAEMON_TOOL else ["--backend", "cpu"]
    return cuzk_command() + ["prove", "--zkey", str(zkey), "--wtns", str(wtns), "--r1cs", str(r1cs),
                             "--proof", str(proof), "--public", str(public), *where]


def _timed(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if res.returncode:
        tail = (res.stderr or res.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise LatencyError(f"{Path(cmd[0]).name} exited {res.returncode}: {tail[0]}")
    return dt, res.stderr


def _phases(stderr: str) -> dict[str, float]:
    """cuzk prove's timing line -> {phase: ms} (total, read, check, ..., and prove's inner phases)."""
    m = PHASES.search(stderr)
    if not m:
        return {}
    out = {"total": float(m.group(1))}
    for part in re.split(r", |= ", m.group(2)):
        kv = part.strip().split(" ")
        if len(kv) >= 2 and kv[-1].replace(".", "", 1).isdigit():
            out[kv[-2]] = float(kv[-1])
    return out


def _verify(snarkjs: Path, vk: Path, out: Path, tool: str) -> bool:
    res = subprocess.run([str(snarkjs), "groth16", "verify", str(vk), str(out / f"{tool}.public.json"),
                          str(out / f"{tool}.proof.json")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return res.returncode == 0 and "OK!" in res.stdout


def load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def measure(constraints: int, workdir: Path, repeat: int, rapidsnark: Path | None, snarkjs: Path | None,
            log=print, resident: str | None = None) -> SizeResult:
    """`resident`: also time `cuzk prove --daemon` processes and in-process proofs through a daemon on
    that backend (auto, cpu, cuda; resident_latency.py)."""
    r1cs, wtns, zkey, wires = prepare(constraints, workdir, log)
    out = workdir / f"run_{constraints}"
    out.mkdir(exist_ok=True)
    daemon = None
    try:
        tools = TOOLS
        if resident:
            from . import resident_latency

            log(f"  resident daemon ({resident}): starting, then one proof to register the circuit ...")
            daemon, ready_s = resident_latency.start(out / "daemon", resident)
            tools = TOOLS + (DAEMON_TOOL,)
        runs = {}
        for tool in tools:
            cmd = _commands(tool, r1cs, wtns, zkey, out, rapidsnark, snarkjs, daemon.address if daemon else "")
            runs[tool] = ToolRun(tool, cmd is not None, cmd or [])
        if daemon is not None:
            warmup_s, _ = _timed(runs[DAEMON_TOOL].command)
            tables = resident_latency.wait_tables(daemon)
            if tables[1]:
                log(f"  resident daemon: MSM window tables built in {tables[0]:.1f} s ({tables[1] / 2**20:.0f} MiB)")
        if rapidsnark is None:
            runs["rapidsnark"].note = "not found"
        if snarkjs is None:
            runs["snarkjs"].note = "not found"
        active = [t for t in tools if runs[t].available]
        before = load1()
        for i in range(repeat):
            for tool in active[i % len(active):] + active[: i % len(active)]:
                dt, err = _timed(runs[tool].command)
                runs[tool].seconds.append(round(dt, 4))
                if tool == "cuzk":
                    runs[tool].phases_ms = _phases(err)
        after = load1()
        res_run = None
        if daemon is not None:
            from cuzk import key_ids

            cid = key_ids.make(str(zkey.resolve()), str(r1cs.resolve()))
            log(f"  resident daemon: {repeat} proof(s) from this process ...")
            res_run = resident_latency.measure(daemon, cid, zkey, wtns, out, repeat, ready_s, warmup_s, tables)
    finally:
        if daemon is not None:
            daemon.stop()
    for tool in active:
        run = runs[tool]
        run.median_s = round(statistics.median(run.seconds), 4)
        if snarkjs is not None:
            run.verified = _verify(snarkjs, zkey.with_suffix(".vk.json"), out, tool)
    res = SizeResult(constraints, domain_of(constraints), wires, before, after, runs)
    cz, rs, sj = (runs[t].median_s for t in ("cuzk", "rapidsnark", "snarkjs"))
    if res_run is not None:
        from .resident_latency import PREFIX

        res.resident = asdict(res_run)
        if snarkjs is not None:
            res.resident["verified"] = _verify(snarkjs, zkey.with_suffix(".vk.json"), out, PREFIX)
        if rs:
            res.ratio_resident_rapidsnark = round(runs[DAEMON_TOOL].median_s / rs, 3)
    if rs:
        res.ratio_cuzk_rapidsnark = round(cz / rs, 3)
    if sj:
        res.ratio_cuzk_snarkjs = round(cz / sj, 3)
    return res


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def table(results: list[SizeResult]) -> str:
    daemon = any(DAEMON_TOOL in r.tools for r in results)
    head = f"{'constraints':>12} {'domain':>8} {'rapidsnark s':>12} {'snarkjs s':>10} {'cuzk s':>8} " \
           + (f"{'cuzk --daemon s':>15} " if daemon else "") \
           + f"{'cuzk/rapidsnark':>15} " + (f"{'daemon/rapidsnark':>17} " if daemon else "") \
           + f"{'cuzk/snarkjs':>12} {'load':>10}  verified"
    lines = [head]
    for r in results:
        t = r.tools
        ok = " ".join(f"{k}:{'ok' if v.verified else 'FAIL' if v.verified is False else '-'}" for k, v in t.items()
                      if v.available)
        d = t.get(DAEMON_TOOL)
        lines.append(f"{r.constraints:>12,} {'2^' + str(r.domain.bit_length() - 1):>8} "
                     f"{_fmt(t['rapidsnark'].median_s):>12} {_fmt(t['snarkjs'].median_s):>10} "
                     f"{_fmt(t['cuzk'].median_s):>8} " + (f"{_fmt(d.median_s if d else None):>15} " if daemon else "")
                     + f"{_fmt(r.ratio_cuzk_rapidsnark):>15} "
                     + (f"{_fmt(r.ratio_resident_rapidsnark):>17} " if daemon else "")
                     + f"{_fmt(r.ratio_cuzk_snarkjs):>12} {r.load_before:4.2f}-{r.load_after:4.2f}  {ok}")
    return "\n".join(lines)


def resident_table(results: list[SizeResult]) -> str:
    lines = [f"{'constraints':>12} {'daemon ms/proof':>15} {'prover ms':>9} {'outside prover ms':>17} "
             f"{'synthesis ms':>12} {'in daemon ms':>12} "
             f"{'rapidsnark s':>12}  backend (ready s, first proof s)  verified"]
    for r in results:
        d = r.resident
        ok = {True: "ok", False: "FAIL", None: "-"}[d.get("verified")]
        dm = d.get("daemon_ms") or {}
        lines.append(f"{r.constraints:>12,} {d['median_ms']:>15.1f} {d['prover_ms']:>9.0f} "
                     f"{d.get('outside_prover_ms', float('nan')):>17.1f} "
                     f"{dm.get('synthesis', float('nan')):>12.0f} {dm.get('total', float('nan')):>12.0f} "
                     f"{_fmt(r.tools['rapidsnark'].median_s):>12}  "
                     f"{d['backend']} ({d['ready_s']:.1f}, {d['warmup_s']:.1f})  {ok}")
    return "\n".join(lines)


def run(sizes: list[int], repeat: int = 3, json_path: str | None = None, workdir: Path | None = None,
        rapidsnark: Path | None = DEFAULT_RAPIDSNARK, snarkjs: Path | None = DEFAULT_SNARKJS, log=print,
        resident: str | None = None) -> list[SizeResult]:
    from cuzk.user_dirs import cache_dir

    workdir = Path(workdir) if workdir else cache_dir() / "bench" / "latency"
    rs, sj = _executable(rapidsnark), _executable(snarkjs)
    if rs is None:
        log(f"rapidsnark: not found at {rapidsnark} (--rapidsnark PATH): cuzk/rapidsnark is not printed")
    if sj is None:
        log(f"snarkjs: not found at {snarkjs} (--snarkjs PATH; `npm ci` installs it): no snarkjs times, "
            "and proofs are not verified")
    log(f"latency: {os.cpu_count()} cores, {repeat} run(s) per tool, files in {workdir}")
    results = []
    for n in sizes:
        log(f"size {n:,} constraints (domain 2^{domain_of(n).bit_length() - 1}):")
        res = measure(n, workdir, repeat, rs, sj, log, resident)
        results.append(res)
        t = res.tools
        log("  " + ", ".join(f"{k} {_fmt(v.median_s)} s" for k, v in t.items() if v.available)
            + (f"; cuzk/rapidsnark {res.ratio_cuzk_rapidsnark:.2f}" if res.ratio_cuzk_rapidsnark else "")
            + (f", cuzk --daemon/rapidsnark {res.ratio_resident_rapidsnark:.2f}" if res.ratio_resident_rapidsnark else ""))
    print(table(results))
    if resident:
        print(resident_table(results))
    if json_path:
        Path(json_path).write_text(json.dumps({"benchmark": "latency", "cores": os.cpu_count(), "repeat": repeat,
                                               "workdir": str(workdir), "sizes": [asdict(r) for r in results]},
                                              indent=2) + "\n")
    return results
