"""`cuzk prove`: a Groth16 proof from a snarkjs .zkey and a circom .wtns.

    cuzk prove --zkey Z --wtns W --proof PROOF.json --public PUBLIC.json [--r1cs C.r1cs | --no-check]
               [--backend auto|cpu|cuda] [--daemon unix:SOCKET]

Writes snarkjs-compatible proof.json and public.json (`snarkjs groth16
verify` accepts them) and prints per-phase timings on stderr.

A witness that does not satisfy the circuit gives a proof no verifier
accepts, so it is refused with exit 1 and nothing is written. With the
circuit's .r1cs at hand (--r1cs, else the one beside the key with its name:
circuit.zkey -> circuit.r1cs, circom's and snarkjs's naming) the witness is
checked before proving (a.w * b.w == c.w on every row, the verdict `cuzk
circuit info --wtns` gives), naming the first failing constraint: a .zkey
holds only A and B, so C is read from the .r1cs; a.w and b.w are the
prover's own, so the check costs one SpMV and a compare. Without one (snarkjs
and rapidsnark prove from the .zkey and .wtns alone, and so does cuzk) the
proof is verified with the key's own verifying key before it is written (one
multi-pairing). --no-check proves unchecked.

The key's points are trusted, as snarkjs's and rapidsnark's provers trust them
(ZKey check_points=False: what the prover does not need is not read or checked).
On a fresh machine the kernels this command calls are compiled first, on every
core (first_run.py). With --daemon (or CUZK_DAEMON) a running daemon makes the
proof and keeps the key for the next one (prove_remote.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cuzk.errors import CuzkError, FormatError

from .files import input_file, output_file

EXIT_UNSATISFIED = 1


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "prove", help="prove from a snarkjs .zkey and a circom .wtns",
        description="Make a Groth16 proof from a snarkjs proving key (.zkey) and a circom witness (.wtns); "
        "writes snarkjs-compatible proof.json and public.json. A witness that does not satisfy the circuit is "
        "refused with exit 1 and nothing is written: checked against the circuit's .r1cs when there is one "
        "(naming the first failing constraint), else the proof is verified with the key's verifying key before "
        "it is written. Per-phase timings go to stderr.",
    )
    p.add_argument("--zkey", required=True, type=input_file, help="snarkjs Groth16 proving key (.zkey)")
    p.add_argument("--wtns", required=True, type=input_file, help="circom witness (.wtns) for the key's circuit")
    p.add_argument("--proof", required=True, type=output_file, metavar="PROOF.json",
                   help="output: proof (snarkjs proof.json)")
    p.add_argument("--public", required=True, type=output_file, metavar="PUBLIC.json",
                   help="output: public signals (snarkjs public.json)")
    check = p.add_mutually_exclusive_group()
    check.add_argument("--r1cs", type=input_file, metavar="CIRCUIT.r1cs",
                       help="the circuit to check the witness against (default: the .r1cs beside the key "
                       "with its name; without one, the proof is verified instead)")
    check.add_argument("--no-check", action="store_true", help="prove without checking that the witness "
                       "satisfies the circuit")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"], help="compute backend (default auto)")
    p.add_argument("--daemon", metavar="ADDR", default=os.environ.get("CUZK_DAEMON") or None,
                   help="have the cuzk daemon at this unix socket make the proof (unix:PATH; default $CUZK_DAEMON): "
                   "it keeps the key decoded between proofs, so small proofs take a fraction of a one-shot "
                   "run; the circuit is registered on first use from --zkey (and --r1cs); a daemon that is "
                   "starting is waited for, up to 5 s")
    p.add_argument("--verbose", "-v", action="store_true", help="also print sizes and the backend")
    p.add_argument("--quiet", "-q", action="store_true", help="print no timings")
    # Nothing cmd_prove starts outlives it (its files are closed, its pools idle): the process may
    # end without the interpreter's teardown (cli/main.py).
    p.set_defaults(func=cmd_prove, fast_exit=True)


class _Phases:
    def __init__(self):
        self.ms: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.ms[name] = (now - self._t) * 1e3
        self._t = now


def _guard(fn, *args):
    try:
        return fn(*args)
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None


def circuit_path(args: argparse.Namespace) -> Path | None:
    """--r1cs, else <key's folder>/<key's name>.r1cs if that exists, else None."""
    if args.r1cs:
        return Path(args.r1cs)
    beside = Path(args.zkey).with_suffix(".r1cs")
    return beside if beside.is_file() else None


def unsatisfied(zkey, wtns, ab, path: Path) -> str | None:
    """The first constraint the witness fails, or None (cuzk.formats.witness_check): a.w and b.w
    are the prover's own (`ab`), C is read alone from the circuit's .r1cs at `path`."""
    from cuzk.formats.circom_r1cs import read_r1cs_c  # numba kernels: loaded when proving
    from cuzk.formats.witness_check import check_matches, first_unsatisfied

    circ = _guard(read_r1cs_c, path)
    check_matches(zkey, circ, len(wtns), str(wtns.path), wtns.curve, str(path))
    bad = first_unsatisfied(zkey, circ, wtns.values, ab)
    return None if bad is None else f"constraint {bad}"


def cmd_prove(args: argparse.Namespace) -> int:
    r1cs = None if args.no_check else circuit_path(args)
    if args.daemon:
        from .prove_remote import run  # imports no numba: the daemon proves

        if r1cs is None and not args.no_check:
            raise CuzkError(f"{Path(args.zkey).with_suffix('.r1cs')}: no such file: through a daemon the witness is "
                            "checked against the circuit's .r1cs; give it with --r1cs, or prove unchecked with "
                            "--no-check (without --daemon the proof is verified instead)")
        return run(args, args.daemon, r1cs)
    from . import first_run

    first_run.import_numba()  # before the modules below import it
    from cuzk.backend import get_backend
    from cuzk.formats.snarkjs_json import write_proof, write_public
    from cuzk.formats.wtns import read_wtns
    from cuzk.formats.zkey import key_shape, read_zkey
    from cuzk.groth16.prover import prove

    t0 = time.perf_counter()
    ph = _Phases()
    backend = get_backend(args.backend)
    shape = key_shape(args.zkey)
    # on a GPU, the device's kernels compile (NVRTC) beside the CPU's
    device = (f"the CUDA kernels for {shape[0]}", lambda: backend.compile_kernels(shape[0])) if (
        shape and backend.name == "cuda") else None
    verifying = r1cs is None and not args.no_check  # no circuit at hand: the proof is verified instead
    compiled = shape and first_run.before(f"prove-{shape[0]}-{backend.name}", "cuzk prove",
                                          shape[1].bit_length() - 1, device)
    if shape and verifying:
        compiled = first_run.before(f"verify-{shape[0]}-cpu", "cuzk prove's verification") or compiled
    if compiled:
        ph.lap("compile")  # once on a fresh machine
    zkey = _guard(read_zkey, args.zkey, False)  # the key's points trusted, as snarkjs and rapidsnark do
    wtns = _guard(read_wtns, args.wtns)
    zkey.check_witness(wtns.curve, len(wtns), str(args.wtns))
    w = wtns.values
    ph.lap("read")
    a, b, c = zkey.row_evaluations(w, backend)
    ph.lap("abc")
    if r1cs is not None:
        failing = unsatisfied(zkey, wtns, c, r1cs)
        if failing is not None:
            print(f"cuzk: error: {args.wtns}: the witness does not satisfy the circuit (first failing: {failing}); "
                  "no proof written (--no-check proves it anyway)", file=sys.stderr)
            return EXIT_UNSATISFIED
        ph.lap("check")
    rows = zkey.matrices.num_rows
    pk = zkey.proving_key
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        pk.bases(name)
    ph.lap("bases")
    proof = prove(pk, w, (a, b, c), backend=backend)
    ph.lap("prove")
    public = zkey.public_signals(w)
    if verifying:
        from cuzk.groth16.verifier import equation_holds

        if not equation_holds(zkey.vk, proof, public):
            print(f"cuzk: error: {args.wtns}: the witness does not satisfy the circuit (the proof does not verify "
                  "with the key's verifying key); no proof written (give the circuit's .r1cs with --r1cs to name "
                  "the first failing constraint)", file=sys.stderr)
            return EXIT_UNSATISFIED
        ph.lap("verify")
    _guard(write_proof, args.proof, proof)
    _guard(write_public, args.public, public)
    ph.lap("write")
    zkey.close()
    total = (time.perf_counter() - t0) * 1e3
    if not args.quiet:
        if args.verbose:
            print(f"cuzk prove: {zkey.curve.name}, nVars {zkey.n_vars}, nPublic {zkey.n_public}, "
                  f"rows {rows}, "
                  f"domain {zkey.domain_size}, backend {backend.describe()}", file=sys.stderr)
        inner = ", ".join(f"{k} {v:.0f}" for k, v in proof.timings.items() if k != "total")
        outer = ", ".join(f"{k} {v:.0f}" for k, v in ph.ms.items() if k != "prove")
        print(f"cuzk prove: {total:.0f} ms ({outer}, prove {ph.ms['prove']:.0f} = {inner})", file=sys.stderr)
    return 0
