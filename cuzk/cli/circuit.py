"""`cuzk circuit info|compile`: inspect and compile circuits.

    cuzk circuit info --r1cs FILE [--wtns FILE]     (or --pce FILE)
    cuzk circuit info --kind K --preset P [--vanilla FILE | --seed S] [--partition I]
    cuzk circuit compile --r1cs FILE --out FILE.pce

info prints the curve, counts and nonzeros; with a witness it checks it:
exit 0 when satisfied, 1 when not (naming the first failing constraint),
and prints the fractions of 0, 1 and other values in the aux assignment.
With --kind, the circuit is a workload model (cuzk.circuits) and the
witness comes from a generated (or given) vanilla proof.
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.errors import CuzkError


def register(subparsers) -> None:
    parser = subparsers.add_parser("circuit", help="inspect, check and compile circuits")
    sub = parser.add_subparsers(dest="circuit_command", metavar="SUBCOMMAND", required=True)

    info = sub.add_parser("info", help="print a circuit's sizes; with --wtns, check the witness")
    src = info.add_mutually_exclusive_group(required=True)
    src.add_argument("--r1cs", help="circom .r1cs file")
    src.add_argument("--pce", help="compiled circuit (.pce) file")
    src.add_argument("--kind", help="workload circuit kind (cuzk.circuits), e.g. porep-c2-like")
    info.add_argument("--preset", default="tiny", help="with --kind: preset (default tiny)")
    info.add_argument("--vanilla", help="with --kind: vanilla-proof file (default: generate one)")
    info.add_argument("--seed", type=int, default=1, help="with --kind: generator seed (default 1)")
    info.add_argument("--partition", type=int, default=0, help="with --kind: partition to check (default 0)")
    info.add_argument("--wtns", help="circom .wtns witness to check (with --r1cs)")
    info.add_argument("--verify", action="store_true", help="with --pce: check every section (checksums, hash)")
    info.set_defaults(func=cmd_info)

    comp = sub.add_parser("compile", help="compile a circom .r1cs into a .pce file")
    comp.add_argument("--r1cs", required=True, help="circom .r1cs file")
    comp.add_argument("--out", required=True, help="output .pce file")
    comp.set_defaults(func=cmd_compile)


def _guard(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def cmd_info(args: argparse.Namespace) -> int:
    from cuzk.formats.circom_r1cs import read_r1cs, witness_for
    from cuzk.formats.wtns import read_wtns
    from cuzk.r1cs import load_compiled
    from cuzk.r1cs.evaluation import value_fractions

    if args.wtns and not args.r1cs:
        raise CuzkError("--wtns needs --r1cs")
    t0 = time.perf_counter()
    w = None
    if args.r1cs:
        r1cs = _guard(read_r1cs, args.r1cs)
        cc = r1cs.circuit
    elif args.kind:
        r1cs = None
        cc, w = _workload(args)
    else:
        r1cs = None
        cc = _guard(load_compiled, args.pce, verify=args.verify)
    load_s = time.perf_counter() - t0
    if args.wtns:
        w = witness_for(r1cs, _guard(read_wtns, args.wtns))

    out = sys.stdout.write
    out(f"curve: {cc.curve}\n")
    out(f"constraints: {cc.num_constraints}\n")
    if r1cs is not None:
        out(f"wires: {r1cs.n_wires}\n")
        out(f"public inputs: {r1cs.num_public} ({r1cs.n_pub_out} outputs, {r1cs.n_pub_in} public inputs)\n")
        out(f"private inputs: {r1cs.n_prv_in}\n")
        out(f"internal wires: {r1cs.n_wires - 1 - r1cs.num_public - r1cs.n_prv_in}\n")
        out(f"labels: {r1cs.n_labels}\n")
    else:
        out(f"public inputs: {cc.num_inputs - 1}\n")
        out(f"aux variables: {cc.num_aux}\n")
    rows = cc.num_constraints
    nnz = [int(m.indptr[rows]) for m in cc.matrices]
    out(f"nonzeros: A {nnz[0]}, B {nnz[1]}, C {nnz[2]}\n")
    out(f"distinct coefficients: {len(cc.coeff_table)}\n")
    out(f"density: A aux {cc.density_count('a_aux')}/{cc.num_aux}, "
        f"B input {cc.density_count('b_input')}/{cc.num_inputs}, B aux {cc.density_count('b_aux')}/{cc.num_aux}\n")
    out(f"compiled size: {cc.nbytes} bytes ({cc.bytes_per_constraint():.1f} per constraint)\n")
    out(f"topology id: {cc.id}\n")
    out(f"load time: {load_s:.3f} s\n")
    if w is None:
        return 0
    zero, one, other = value_fractions(cc.fr, w[cc.num_inputs :])
    out(f"aux values: zero {_percent(zero)}, one {_percent(one)}, other {_percent(other)}\n")
    failing = first_failing_row(cc, w)
    if failing is None:
        out("satisfied: yes\n")
        return 0
    out(f"satisfied: no (first failing: {failing})\n")
    return 1


def first_failing_row(cc, w) -> str | None:
    """None when w satisfies every row of cc (a.w * b.w == c.w over Fr), else the first
    failing one: "constraint N" (N counts from 0), or "input row N" for the rows
    that bind the public inputs. `cuzk prove` refuses a witness with this check too."""
    from cuzk.r1cs.evaluation import check_satisfied  # numba kernels: loaded when a command runs, not for --help

    bad = check_satisfied(cc, w)
    if bad is None:
        return None
    return f"constraint {bad}" if bad < cc.num_constraints else f"input row {bad - cc.num_constraints}"


def _workload(args):
    """(compiled circuit, witness of one partition) of a workload kind."""
    from cuzk.circuits import get_kind
    from cuzk.formats.vanilla import parse_vanilla

    kind = get_kind(args.kind)
    cc = kind.compile(args.preset)
    if args.vanilla:
        from pathlib import Path

        vanilla = parse_vanilla(kind, args.preset, _guard(Path(args.vanilla).read_bytes))
    else:
        vanilla = kind.make_vanilla(args.preset, args.seed)
    if not 0 <= args.partition < kind.partitions:
        raise CuzkError(f"--partition: {kind.name} has partitions 0..{kind.partitions - 1}")
    w, _ = kind.witness(args.preset, vanilla, args.partition)
    sys.stdout.write(f"circuit: {kind.circuit_id(args.preset)} ({kind.proof_kind}, {kind.partitions} partition(s); "
                     f"a model, not the Filecoin circuit), partition {args.partition}\n")
    return cc, w


def cmd_compile(args: argparse.Namespace) -> int:
    from cuzk.formats.circom_r1cs import read_r1cs
    from cuzk.r1cs import save_compiled

    t0 = time.perf_counter()
    r1cs = _guard(read_r1cs, args.r1cs)
    cc = r1cs.circuit
    _guard(save_compiled, cc, args.out)
    print(f"wrote {args.out}: {cc.curve}, {cc.num_constraints} constraints, {cc.nbytes} bytes of arrays "
          f"({cc.bytes_per_constraint():.1f} per constraint), id {cc.id[:16]}, {time.perf_counter() - t0:.2f} s")
    return 0
