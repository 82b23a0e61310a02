#!/usr/bin/env python3
"""Record cuzk/cli/kernel_lists/*.txt: the numba kernels a command compiles from empty caches.

The commands: `cuzk prove` (prove-CURVE-BACKEND), `cuzk verify` (verify-CURVE-cpu: its pairing above
all; `cuzk prove` without an .r1cs compiles it too, for the proof it verifies) and `cuzk setup --r1cs`
(setup-CURVE-cpu), `cuzk demo` (demo) and the test suite (tests).

usage: .venv/bin/python scripts/kernel_lists.py [LABEL ...]     (default: every list in RUNS but tests
       and the -cuda ones, which a GPU machine records: scripts/device/first_prove.sh)

`tests` records what the whole test suite compiles into tests/kernel_list.txt (~25 min on two
cores): `make test` compiles that list on every core before the tests run (tests/conftest.py).

A command whose list exists compiles those kernels on every core before it starts
(cuzk/cli/first_run.py). For each list, the inputs are made first with the usual
caches; then the command runs in a child process with empty ones (CUZK_CACHE_DIR
and NUMBA_CACHE_DIR in a temporary folder) and CUZK_PRECOMPILE=0, so every kernel
it calls compiles in it, under cuzk.field.precompile.Recorder. Runs of several
inputs (circuits of different sizes take different kernel variants) are merged:
every kernel once, with its longest compile time and the smallest domain (log2) of
a run that compiled it, so that a smaller circuit leaves out what only larger ones
call. Rerun it when a kernel a command
calls is renamed or takes other argument types (tests/cli/test_first_run.py fails
then, naming the kernel that compiled outside the list).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cuzk.cli.first_run import list_path  # noqa: E402
from cuzk.field.precompile import Kernel, parse  # noqa: E402
from cuzk.formats.circom_r1cs import r1cs_shape  # noqa: E402
from cuzk.formats.zkey import key_shape  # noqa: E402

BITS_MIX = REPO / "examples" / "bits_mix"


def _cuzk(*args: str, env=None) -> None:
    subprocess.run([sys.executable, "-m", "cuzk", *args], check=True, env=env, cwd=REPO)


def _circuit(work: Path, curve: str, constraints: int) -> tuple[Path, Path]:
    """A circom-shaped circuit's .r1cs and .wtns (cuzk.bench.circom_like)."""
    from cuzk.bench.circom_like import generate

    stem = work / f"{curve}_{constraints}"
    r1cs, wtns = stem.with_suffix(".r1cs"), stem.with_suffix(".wtns")
    if not r1cs.exists():
        generate(constraints, r1cs, wtns, curve=curve)
    return r1cs, wtns


def _circom_like(work: Path, curve: str, constraints: int) -> tuple[Path, Path, Path]:
    r1cs, wtns = _circuit(work, curve, constraints)
    zkey = r1cs.with_suffix(".zkey")
    _cuzk("setup", "--r1cs", str(r1cs), "--zkey", str(zkey))
    return r1cs, wtns, zkey


def _bits_mix(work: Path) -> tuple[Path, Path, Path]:
    zkey = work / "bits_mix.zkey"
    _cuzk("setup", "--r1cs", str(BITS_MIX / "bits_mix.r1cs"), "--zkey", str(zkey))
    return BITS_MIX / "bits_mix.r1cs", BITS_MIX / "witness.wtns", zkey


def _prove_args(r1cs: Path, wtns: Path, zkey: Path, out: Path, backend: str) -> list[str]:
    return ["prove", "--zkey", str(zkey), "--wtns", str(wtns), "--r1cs", str(r1cs), "--proof",
            str(out / "proof.json"), "--public", str(out / "public.json"), "--backend", backend]


def _prove(make, backend: str):
    """A recorded `cuzk prove` run: its inputs made by `make` (warm caches), its log2 domain, its arguments."""
    def run(work: Path, cold: Path) -> tuple[int, list[str]]:
        r1cs, wtns, zkey = make(work)
        return key_shape(zkey)[1].bit_length() - 1, _prove_args(r1cs, wtns, zkey, cold, backend)
    return run


def _verify(make):
    """A recorded `cuzk verify` run of a proof made with warm caches (its kernels do not grow with the circuit)."""
    def run(work: Path, cold: Path) -> tuple[int, list[str]]:
        r1cs, wtns, zkey = make(work)
        out = work / f"{zkey.stem}-proof"
        _cuzk(*_prove_args(r1cs, wtns, zkey, out, "cpu"))
        return 0, ["verify", "--vk", str(zkey.with_suffix(".vk.json")), "--public", str(out / "public.json"),
                   "--proof", str(out / "proof.json")]
    return run


def _setup(curve: str, constraints: int | None):
    """A recorded `cuzk setup --r1cs ... --zkey` run (None: examples/bits_mix)."""
    def run(work: Path, cold: Path) -> tuple[int, list[str]]:
        r1cs = BITS_MIX / "bits_mix.r1cs" if constraints is None else _circuit(work, curve, constraints)[0]
        return r1cs_shape(r1cs)[1], ["setup", "--r1cs", str(r1cs), "--zkey", str(cold / "setup.zkey")]
    return run


# label -> its recorded runs: each makes its inputs in the work folder and gives the log2 domain and the
# command's arguments (then run with empty caches)
RUNS = {
    "prove-bn254-cpu": [_prove(_bits_mix, "cpu"), _prove(lambda w: _circom_like(w, "bn254", 10_000), "cpu"),
                        _prove(lambda w: _circom_like(w, "bn254", (1 << 16) - 3), "cpu")],
    "prove-bls12_381-cpu": [_prove(lambda w: _circom_like(w, "bls12_381", 10_000), "cpu")],
    # on a GPU machine, asked by name: the CPU's part of a GPU proof (reading, checking) does not grow
    # with the MSMs, so small circuits cover it
    "prove-bn254-cuda": [_prove(_bits_mix, "cuda"), _prove(lambda w: _circom_like(w, "bn254", 10_000), "cuda")],
    "prove-bls12_381-cuda": [_prove(lambda w: _circom_like(w, "bls12_381", 10_000), "cuda")],
    "verify-bn254-cpu": [_verify(_bits_mix)],
    "verify-bls12_381-cpu": [_verify(lambda w: _circom_like(w, "bls12_381", 1000))],
    "setup-bn254-cpu": [_setup("bn254", None), _setup("bn254", 10_000), _setup("bn254", (1 << 16) - 3)],
    "setup-bls12_381-cpu": [_setup("bls12_381", 10_000)],
    "demo": [],  # recorded by record_processes
    "tests": [],  # likewise; written to tests/kernel_list.txt
}


def record_processes(command: list[str], quiet: bool = True) -> list[Kernel]:
    """`command` from empty caches: the kernels it and the processes it starts compile (each writes
    its own under CUZK_RECORD_KERNELS: cuzk's commands, and pytest through tests/conftest.py), every
    one with `since` 0. A failing command is reported, not fatal: recording itself changes what a
    few tests see (a client that records imports numba)."""
    merged: dict[tuple[str, str, str], Kernel] = {}
    with tempfile.TemporaryDirectory(prefix="cuzk-kernel-lists-") as tmp:
        cold = Path(tmp)
        env = {**os.environ, "CUZK_CACHE_DIR": str(cold / "cuzk"), "NUMBA_CACHE_DIR": str(cold / "numba"),
               "CUZK_PRECOMPILE": "0", "CUZK_PROGRESS": "0", "CUZK_RECORD_KERNELS": str(cold / "kernels")}
        rc = subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL if quiet else None).returncode
        if rc:
            print(f"{' '.join(command)} exited {rc}; its kernels are recorded all the same", file=sys.stderr)
        for part in sorted(cold.glob("kernels.*")):
            for k in parse(part.read_text()):
                key = (k.module, k.function, k.signature)
                old = merged.get(key)
                merged[key] = Kernel(k.module, k.function, k.signature, max(k.seconds, old.seconds if old else 0), 0)
    return list(merged.values())


def record(label: str) -> list[Kernel]:
    if label == "demo":  # make run
        return record_processes([sys.executable, "-m", "cuzk", "demo"])
    if label == "tests":  # make test: the suite's kernels, compiled on every core before it runs (~25 min)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=40"]
        return [k for k in record_processes(command, quiet=False)
                if k.module.startswith(("cuzk.", "bls12_381_", "bn254_"))]
    merged: dict[tuple[str, str, str], Kernel] = {}
    with tempfile.TemporaryDirectory(prefix="cuzk-kernel-lists-") as tmp:
        work = Path(tmp)
        for i, run in enumerate(RUNS[label]):
            cold = work / f"cold{i}"
            cold.mkdir()
            log_domain, argv = run(work, cold)
            out = cold / "list.txt"
            env = {**os.environ, "CUZK_CACHE_DIR": str(cold / "cuzk"), "NUMBA_CACHE_DIR": str(cold / "numba"),
                   "CUZK_PRECOMPILE": "0", "CUZK_PROGRESS": "0"}
            subprocess.run([sys.executable, __file__, "--child", str(out), "--", *argv], check=True, env=env,
                           cwd=REPO)
            for k in parse(out.read_text()):
                key = (k.module, k.function, k.signature)
                old = merged.get(key, k)
                merged[key] = Kernel(k.module, k.function, k.signature, max(k.seconds, old.seconds),
                                     min(log_domain, old.since if key in merged else log_domain))
            print(f"{label}: run {i + 1}/{len(RUNS[label])}: {len(merged)} kernels so far", file=sys.stderr)
    smallest = min(k.since for k in merged.values())  # what the smallest run calls, any smaller one does too
    return [Kernel(k.module, k.function, k.signature, k.seconds, 0 if k.since == smallest else k.since)
            for k in merged.values()]


def child(out: str, argv: list[str]) -> None:
    """Run `cuzk ARGV` in this process under a Recorder; write what compiled to `out`."""
    from cuzk.cli.main import main
    from cuzk.field.precompile import Recorder

    with Recorder() as rec:
        rc = main(argv)
    if rc:
        sys.exit(f"cuzk {' '.join(argv)} exited {rc}")
    Path(out).write_text("".join(k.line() + "\n" for k in rec.kernels))


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--child"]:
        child(args[1], args[3:])
        return
    # tests (~25 min) and the GPU lists are asked for by name
    for label in args or [label for label in RUNS if label != "tests" and not label.endswith("-cuda")]:
        kernels = sorted(record(label), key=lambda k: (k.module, k.function, k.signature))
        out = REPO / "tests" / "kernel_list.txt" if label == "tests" else list_path(label)
        header = (f"# {label}: the numba kernels it compiles from empty caches, written by scripts/kernel_lists.py\n"
                  "# seconds<TAB>since (log2 domain)<TAB>module<TAB>function<TAB>argument types\n")
        out.parent.mkdir(exist_ok=True)
        out.write_text(header + "".join(k.line() + "\n" for k in kernels))
        total = sum(k.seconds for k in kernels)
        print(f"wrote {out}: {len(kernels)} kernels, {total:.0f} s of compiling one at a time",
              file=sys.stderr)


if __name__ == "__main__":
    main()
