"""`cuzk circuit info|check|compile`: inspect, check and compile circuits.

    cuzk circuit info --r1cs FILE [--wtns FILE]     (or --pce FILE)
    cuzk circuit info --kind window-post|winning-post|porep|snap --sector-size 32GiB
    cuzk circuit check --kind window-post --vanilla post.vproof --public postpub.json
    cuzk circuit check --kind porep --vanilla c1.json [--partition N] [--miner-id M]
    cuzk circuit check --kind snap --vanilla snap.json [--partition N]
    cuzk circuit compile --r1cs FILE --out FILE.pce
    cuzk circuit compile --kind window-post|winning-post|porep|snap --sector-size 2KiB [--out FILE.pce]

info prints the curve, counts and nonzeros; with a witness it checks it:
exit 0 when satisfied, 1 when not (naming the first failing constraint),
and prints the fractions of 0, 1 and other values in the aux assignment.

--kind K is Filecoin's circuit (cuzk.circuits.filecoin; post_circuit.py and sector_circuit.py
here), sized by --sector-size: info answers from its gadgets' sizes without
building it (32 GiB in seconds) beside the counts rust-fil-proofs publishes; check decodes vanilla
proofs as Curio sends them and checks them against the circuit; compile builds it into the cache
(and --out).
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.errors import CuzkError

from .files import input_file, output_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

FILECOIN_KINDS = ("window-post", "winning-post")
CIRCUIT_KINDS = FILECOIN_KINDS + ("porep", "snap")
KIND_HELP = "Filecoin's circuit, with --sector-size: window-post, winning-post, porep or snap"


def register(subparsers) -> None:
    parser = subparsers.add_parser("circuit", help="inspect, check and compile circuits")
    sub = parser.add_subparsers(dest="circuit_command", metavar="SUBCOMMAND", required=True)

    info = sub.add_parser(
        "info", help="print a circuit's sizes (--kind: from its gadgets, without building it); check a witness",
        description="Print a circuit's sizes. --r1cs/--pce: read the file; with --wtns, check the witness. "
                    "--kind: the counts of Filecoin's circuit computed from its gadgets' sizes, without building "
                    "it (32GiB included, in seconds), beside the counts rust-fil-proofs publishes.")
    src = info.add_mutually_exclusive_group(required=True)
    src.add_argument("--r1cs", type=input_file, help="circom .r1cs file")
    src.add_argument("--pce", type=input_file, help="compiled circuit (.pce) file")
    src.add_argument("--kind", choices=CIRCUIT_KINDS, metavar="KIND", help=KIND_HELP)
    info.add_argument("--sector-size", help="with --kind: 2KiB, 8MiB, 512MiB, 32GiB (default) or 64GiB")
    info.add_argument("--wtns", type=input_file, help="circom .wtns witness to check (with --r1cs)")
    info.add_argument("--verify", action="store_true", help="with --pce: check every section (checksums, hash)")
    info.set_defaults(func=cmd_info, validate=_info_flags)

    chk = sub.add_parser(
        "check", help="check Filecoin vanilla proofs (PoSt, PoRep C1, SnapDeals) against the real circuit (exit 0 "
                      "satisfied, 1 not)",
        description="Decode vanilla proofs as Curio sends them and check them against rust-fil-proofs' circuit. "
                    "PoSt: derive the challenges from the public data and check every distinct sector's "
                    "constraints in FallbackPoSt. PoRep: decode the C1 output, check it as the daemon does at "
                    "submit, then each partition's witness in the StackedDRG circuit. SnapDeals: decode and check "
                    "the request's partition proofs as at submit, then each partition's witness in the "
                    "EmptySectorUpdate circuit. Exit 0 when satisfied, 1 naming the first unsatisfied constraint, "
                    "2 when the input does not decode.")
    chk.add_argument("--kind", required=True, choices=CIRCUIT_KINDS)
    chk.add_argument("--vanilla", required=True, type=input_file,
                     help="PoSt: one bincode FallbackPoStSectorProof (then --public is needed), or a JSON request "
                          "(`cuzk bench gen-vanilla --kind window-post`); porep: a C1 output (Curio's envelope or "
                          "the bare SealCommitPhase1Output JSON) or a JSON request (`gen-vanilla --kind porep`); "
                          "snap: a JSON request (`gen-vanilla --kind snap`)")
    chk.add_argument("--miner-id", type=int, help="porep: the miner whose sector the C1 output must be (checks "
                                                  "replica_id; default: the request's)")
    chk.add_argument("--sector-number", type=int, help="porep: the sector number (default: the request's or "
                                                       "the envelope's)")
    chk.add_argument("--public", type=input_file, help="public data: a WindowPoStVerifyInfo JSON (Randomness, Proofs[0].PoStProof, "
                                      "ChallengedSectors with SealedCID)")
    chk.add_argument("--partition", type=int, help="partition index (default: the request's, or 0)")
    chk.set_defaults(func=cmd_check)

    comp = sub.add_parser("compile", help="compile a circom .r1cs (or Filecoin's circuit) into a .pce file",
                          description="Compile a circom .r1cs into a .pce file, or build Filecoin's circuit (--kind "
                                      "with --sector-size) into the circuit cache (and --out); prints the time and "
                                      "the peak memory of the process.")
    csrc = comp.add_mutually_exclusive_group(required=True)
    csrc.add_argument("--r1cs", type=input_file, help="circom .r1cs file (needs --out)")
    csrc.add_argument("--kind", choices=CIRCUIT_KINDS, metavar="KIND", help=KIND_HELP)
    comp.add_argument("--sector-size", help="with --kind: 2KiB (default), 8MiB, 512MiB, 32GiB or 64GiB")
    comp.add_argument("--out", type=output_file, help="output .pce file (with --kind: a copy of the cached one)")
    comp.set_defaults(func=cmd_compile)


def _guard(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _info_flags(args: argparse.Namespace) -> None:
    """CuzkError for `circuit info` flags that do not go together (main runs this before it looks at the
    files, as `validate`)."""
    if args.wtns and not args.r1cs:
        raise CuzkError("--wtns needs --r1cs")
    if args.sector_size and not args.kind:
        raise CuzkError("--sector-size goes with --kind window-post, winning-post, porep or snap")


def cmd_info(args: argparse.Namespace) -> int:
    from cuzk.formats.circom_r1cs import read_r1cs, witness_for
    from cuzk.formats.wtns import read_wtns
    from cuzk.r1cs import load_compiled
    from cuzk.r1cs.evaluation import value_fractions

    _info_flags(args)
    if args.kind:
        return _kind_module(args.kind).info(args)
    t0 = time.perf_counter()
    w = None
    if args.r1cs:
        r1cs = _guard(read_r1cs, args.r1cs)
        cc = r1cs.circuit
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


def _kind_module(kind: str):
    """This CLI's module for Filecoin's circuit `kind` (info, check, config_of)."""
    if kind in ("porep", "snap"):
        from . import sector_circuit as module
    else:
        from . import post_circuit as module
    return module


def cmd_check(args: argparse.Namespace) -> int:
    if args.kind in ("porep", "snap") and args.public:
        raise CuzkError(f"--public goes with the PoSt kinds (a {args.kind} request carries its public data)")
    if args.kind != "porep" and (args.miner_id is not None or args.sector_number is not None):
        raise CuzkError("--miner-id and --sector-number go with --kind porep")
    return _kind_module(args.kind).check(args)


def first_failing_row(cc, w) -> str | None:
    """None when w satisfies every row of cc (a.w * b.w == c.w over Fr), else the first
    failing one: "constraint N" (N counts from 0), or "input row N" for the rows
    that bind the public inputs. `cuzk prove` refuses a witness with this check too."""
    from cuzk.r1cs.evaluation import check_satisfied  # numba kernels: loaded when a command runs, not for --help

    bad = check_satisfied(cc, w)
    if bad is None:
        return None
    return f"constraint {bad}" if bad < cc.num_constraints else f"input row {bad - cc.num_constraints}"


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def cmd_compile(args: argparse.Namespace) -> int:
    from cuzk.formats.circom_r1cs import read_r1cs
    from cuzk.r1cs import save_compiled

    if args.kind:
        return _compile_kind(args)
    if not args.out:
        raise CuzkError("--r1cs needs --out")
    t0 = time.perf_counter()
    r1cs = _guard(read_r1cs, args.r1cs)
    cc = r1cs.circuit
    _guard(save_compiled, cc, args.out)
    print(f"wrote {args.out}: {cc.curve}, {cc.num_constraints} constraints, {cc.nbytes} bytes of arrays "
          f"({cc.bytes_per_constraint():.1f} per constraint), id {cc.id[:16]}, {time.perf_counter() - t0:.2f} s")
    return 0


def _compile_kind(args: argparse.Namespace) -> int:
    from cuzk.r1cs import save_compiled

    from cuzk.circuits.filecoin.porep import provable as porep_kind
    from cuzk.circuits.filecoin.post import provable as post_kind
    from cuzk.circuits.filecoin import kinds as provable
    from cuzk.circuits.filecoin.snap import provable as snap_kind

    module, size = _kind_module(args.kind), args.sector_size or "2KiB"
    cfg = module.config_of(args.kind, size)
    kind = {"porep": porep_kind, "snap": snap_kind}.get(args.kind, post_kind)
    name, path = provable.circuit_id(cfg), kind.cache_path(cfg)
    build = lambda: provable.compiled(cfg)  # noqa: E731
    cached = path.exists()
    t0 = time.perf_counter()
    cc = build()
    seconds = time.perf_counter() - t0
    if args.out:
        _guard(save_compiled, cc, args.out)
    print(f"{'loaded' if cached else 'built'} {name}: {cc.num_constraints} constraints, "
          f"{cc.nbytes} bytes of arrays ({cc.bytes_per_constraint():.1f} per constraint), id {cc.id[:16]}, "
          f"{seconds:.2f} s, peak memory {_gib(_peak_rss())}")
    print(f"cache: {path}" + (f"\nwrote {args.out}" if args.out else ""))
    return 0
