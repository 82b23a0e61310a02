"""`cuzk prove`: a Groth16 proof from a snarkjs .zkey and a circom .wtns.

    cuzk prove --zkey Z --wtns W --proof PROOF.json --public PUBLIC.json [--backend auto|cpu|cuda]

Writes snarkjs-compatible proof.json and public.json (`snarkjs groth16
verify` accepts them) and prints per-phase timings on stderr.
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.errors import CuzkError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "prove", help="prove from a snarkjs .zkey and a circom .wtns",
        description="Make a Groth16 proof from a snarkjs proving key (.zkey) and a circom witness (.wtns); "
        "writes snarkjs-compatible proof.json and public.json. Per-phase timings go to stderr.",
    )
    p.add_argument("--zkey", required=True, help="snarkjs Groth16 proving key (.zkey)")
    p.add_argument("--wtns", required=True, help="circom witness (.wtns) for the key's circuit")
    p.add_argument("--proof", required=True, metavar="PROOF.json", help="output: proof (snarkjs proof.json)")
    p.add_argument("--public", required=True, metavar="PUBLIC.json", help="output: public signals (snarkjs public.json)")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"], help="compute backend (default auto)")
    p.add_argument("--verbose", "-v", action="store_true", help="also print sizes and the backend")
    p.add_argument("--quiet", "-q", action="store_true", help="print no timings")
    p.set_defaults(func=cmd_prove)


class _Phases:
    def __init__(self):
        self.ms: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.ms[name] = (now - self._t) * 1e3
        self._t = now


def cmd_prove(args: argparse.Namespace) -> int:
    from cuzk.backend import get_backend
    from cuzk.formats.snarkjs_json import write_proof, write_public
    from cuzk.formats.zkey import read_zkey
    from cuzk.groth16.prover import prove
    from cuzk.r1cs.circom import read_wtns

    t0 = time.perf_counter()
    ph = _Phases()
    backend = get_backend(args.backend)
    try:
        zkey = read_zkey(args.zkey)
        wtns = read_wtns(args.wtns)
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None
    zkey.check_witness(wtns.curve, len(wtns), str(args.wtns))
    w = wtns.values
    ph.lap("read")
    a, b, c = zkey.row_evaluations(w, backend)
    ph.lap("abc")
    rows = zkey.matrices.num_rows
    pk = zkey.proving_key
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        pk.bases(name)
    ph.lap("bases")
    proof = prove(pk, w, (a, b, c), backend=backend)
    ph.lap("prove")
    try:
        write_proof(args.proof, proof)
        write_public(args.public, zkey.public_signals(w))
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None
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
