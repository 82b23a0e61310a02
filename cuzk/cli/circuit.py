"""`cuzk circuit info|compile`: inspect and compile circuits.

    cuzk circuit info --r1cs FILE [--wtns FILE]     (or --pce FILE)
    cuzk circuit info --kind K --preset P
    cuzk circuit info --kind K --preset P --check [--vanilla FILE | --seed S] [--partition I]
    cuzk circuit info --kind window-post|winning-post|porep --sector-size 32GiB
    cuzk circuit check --kind window-post --vanilla post.vproof --public postpub.json
    cuzk circuit check --kind porep --vanilla c1.json [--partition N] [--miner-id M]
    cuzk circuit compile --r1cs FILE --out FILE.pce
    cuzk circuit compile --kind K --preset P [--out FILE.pce]
    cuzk circuit compile --kind window-post|winning-post --sector-size 2KiB [--out FILE.pce]

info prints the curve, counts and nonzeros; with a witness it checks it:
exit 0 when satisfied, 1 when not (naming the first failing constraint),
and prints the fractions of 0, 1 and other values in the aux assignment.

--kind K is Filecoin's window-post, winning-post or porep circuit (with --sector-size;
cuzk.circuits.filecoin, see post_circuit.py and porep_circuit.py here), or a workload model
(porep-c2-like, snap-like; cuzk.circuits) at --preset P. For a model, without
--check, info answers from the analytic counts (`kind.counts`: template
sizes times instances) without building the circuit, so `--preset 32g`
(~131M constraints per partition) answers in seconds and little memory; it
adds the components, term counts, and estimates of the compiled size and of
the peak memory compiling takes. --check (implied by --vanilla, --seed or
--partition) builds the circuit (`kind.compile`, cached on disk) and checks
one partition's witness from a generated (or given) vanilla proof.

compile --kind builds a workload circuit (or Filecoin's, with --sector-size)
into the cache (and --out).
"""

from __future__ import annotations

import argparse
import sys
import time

from cuzk.errors import CuzkError

from .files import input_file, output_file

FILECOIN_KINDS = ("window-post", "winning-post")
KIND_HELP = ("circuit kind: window-post, winning-post, porep (Filecoin's, with --sector-size) or a workload model "
             "(porep-c2-like, snap-like; with --preset)")


def register(subparsers) -> None:
    parser = subparsers.add_parser("circuit", help="inspect, check and compile circuits")
    sub = parser.add_subparsers(dest="circuit_command", metavar="SUBCOMMAND", required=True)

    info = sub.add_parser(
        "info", help="print a circuit's sizes (--kind: from its templates, without building it); check a witness",
        description="Print a circuit's sizes. --r1cs/--pce: read the file; with --wtns, check the witness. "
                    "--kind: the counts of a workload circuit computed from its templates, without building "
                    "it (any preset, 32g included, in seconds), with the estimated compiled size and peak "
                    "compile memory; --check builds it and checks a partition's witness (exit 1 if unsatisfied).")
    src = info.add_mutually_exclusive_group(required=True)
    src.add_argument("--r1cs", type=input_file, help="circom .r1cs file")
    src.add_argument("--pce", type=input_file, help="compiled circuit (.pce) file")
    src.add_argument("--kind", help=KIND_HELP)
    info.add_argument("--preset", default="tiny", help="with a model --kind: preset (default tiny)")
    info.add_argument("--sector-size", help="with --kind window-post|winning-post|porep (Filecoin's circuits): "
                                            "2KiB, 8MiB, 512MiB, 32GiB (default) or 64GiB")
    info.add_argument("--check", action="store_true",
                      help="with --kind: build the circuit and check one partition's witness")
    info.add_argument("--vanilla", type=input_file, help="with --kind: vanilla-proof file to check (default: generate one; "
                                        "implies --check)")
    info.add_argument("--seed", type=int, help="with --kind: generator seed (default 1; implies --check)")
    info.add_argument("--partition", type=int, help="with --kind: partition to check (default 0; implies --check)")
    info.add_argument("--wtns", type=input_file, help="circom .wtns witness to check (with --r1cs)")
    info.add_argument("--verify", action="store_true", help="with --pce: check every section (checksums, hash)")
    info.set_defaults(func=cmd_info, validate=_info_flags)

    chk = sub.add_parser(
        "check", help="check Filecoin vanilla proofs (PoSt, PoRep C1) against the real circuit (exit 0 satisfied, "
                      "1 not)",
        description="Decode vanilla proofs as Curio sends them and check them against rust-fil-proofs' circuit. "
                    "PoSt: derive the challenges from the public data and check every distinct sector's "
                    "constraints in FallbackPoSt. PoRep: decode the C1 output, check it as the daemon does at "
                    "submit, then each partition's witness in the StackedDRG circuit. Exit 0 when satisfied, 1 "
                    "naming the first unsatisfied constraint, 2 when the input does not decode.")
    chk.add_argument("--kind", required=True, choices=["window-post", "winning-post", "porep"])
    chk.add_argument("--vanilla", required=True, type=input_file,
                     help="PoSt: one bincode FallbackPoStSectorProof (then --public is needed), or a JSON request "
                          "(`cuzk bench gen-vanilla --kind window-post`); porep: a C1 output (Curio's envelope or "
                          "the bare SealCommitPhase1Output JSON) or a JSON request (`gen-vanilla --kind porep`)")
    chk.add_argument("--miner-id", type=int, help="porep: the miner whose sector the C1 output must be (checks "
                                                  "replica_id; default: the request's)")
    chk.add_argument("--sector-number", type=int, help="porep: the sector number (default: the request's or "
                                                       "the envelope's)")
    chk.add_argument("--public", type=input_file, help="public data: a WindowPoStVerifyInfo JSON (Randomness, Proofs[0].PoStProof, "
                                      "ChallengedSectors with SealedCID)")
    chk.add_argument("--partition", type=int, help="partition index (default: the request's, or 0)")
    chk.set_defaults(func=cmd_check)

    comp = sub.add_parser("compile", help="compile a circom .r1cs (or a built-in circuit) into a .pce file",
                          description="Compile a circom .r1cs into a .pce file, or build a built-in circuit "
                                      "(--kind with --preset, or window-post / winning-post with --sector-size) "
                                      "into the circuit cache (and --out); prints the time and the peak memory "
                                      "of the process.")
    csrc = comp.add_mutually_exclusive_group(required=True)
    csrc.add_argument("--r1cs", type=input_file, help="circom .r1cs file (needs --out)")
    csrc.add_argument("--kind", help=KIND_HELP)
    comp.add_argument("--preset", default="tiny", help="with a model --kind: preset (default tiny)")
    comp.add_argument("--sector-size", help="with --kind window-post|winning-post: 2KiB (default), 8MiB, 512MiB, "
                                            "32GiB or 64GiB")
    comp.add_argument("--out", type=output_file, help="output .pce file (with --kind: a copy of the cached one)")
    comp.set_defaults(func=cmd_compile)


def _guard(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except OSError as exc:
        raise CuzkError(f"{exc.filename or ''}: {exc.strerror or exc}") from None


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _info_flags(args: argparse.Namespace) -> bool:
    """Whether `circuit info` checks a witness; CuzkError for flags that do not go together (main runs
    this before it looks at the files, as `validate`)."""
    if args.wtns and not args.r1cs:
        raise CuzkError("--wtns needs --r1cs")
    checks = args.check or args.vanilla is not None or args.seed is not None or args.partition is not None
    if checks and not args.kind:
        raise CuzkError("--check, --vanilla, --seed and --partition need --kind")
    return checks


def cmd_info(args: argparse.Namespace) -> int:
    from cuzk.formats.circom_r1cs import read_r1cs, witness_for
    from cuzk.formats.wtns import read_wtns
    from cuzk.r1cs import load_compiled
    from cuzk.r1cs.evaluation import value_fractions

    checks = _info_flags(args)
    if args.kind == "porep":
        if checks:
            raise CuzkError("--kind porep: --check, --vanilla, --seed and --partition are not offered yet")
        from . import porep_circuit

        return porep_circuit.info(args)
    if args.kind in FILECOIN_KINDS:
        if checks:
            raise CuzkError(f"--kind {args.kind}: use `cuzk circuit check` to check vanilla proofs")
        from . import post_circuit

        return post_circuit.info(args)
    if args.sector_size:
        raise CuzkError("--sector-size goes with --kind window-post, winning-post or porep")
    if args.kind and not checks:
        return _counts_info(args)
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


def cmd_check(args: argparse.Namespace) -> int:
    if args.kind == "porep":
        if args.public:
            raise CuzkError("--public goes with the PoSt kinds (a C1 output carries its public data)")
        from . import porep_circuit

        return porep_circuit.check(args)
    if args.miner_id is not None or args.sector_number is not None:
        raise CuzkError("--miner-id and --sector-number go with --kind porep")
    from . import post_circuit

    return post_circuit.check(args)


def first_failing_row(cc, w) -> str | None:
    """None when w satisfies every row of cc (a.w * b.w == c.w over Fr), else the first
    failing one: "constraint N" (N counts from 0), or "input row N" for the rows
    that bind the public inputs. `cuzk prove` refuses a witness with this check too."""
    from cuzk.r1cs.evaluation import check_satisfied  # numba kernels: loaded when a command runs, not for --help

    bad = check_satisfied(cc, w)
    if bad is None:
        return None
    return f"constraint {bad}" if bad < cc.num_constraints else f"input row {bad - cc.num_constraints}"


def _get_kind(name: str):
    """A workload model by name; an unknown name's error lists Filecoin's kinds too."""
    from cuzk.circuits import KINDS, UnknownKind, get_kind

    try:
        return get_kind(name)
    except UnknownKind:
        raise CuzkError(f"unknown circuit kind {name!r} (have {', '.join(FILECOIN_KINDS)} with --sector-size; "
                        f"{', '.join(KINDS)} with --preset)") from None


def _workload(args):
    """(compiled circuit, witness of one partition) of a workload kind."""
    from cuzk.formats.vanilla import parse_vanilla

    kind = _get_kind(args.kind)
    kind.shape(args.preset)  # an unknown preset fails before any work
    partition = 0 if args.partition is None else args.partition
    if not 0 <= partition < kind.partitions:
        raise CuzkError(f"--partition: {kind.name} has partitions 0..{kind.partitions - 1}")
    cc = kind.compile(args.preset)
    if args.vanilla:
        from pathlib import Path

        vanilla = parse_vanilla(kind, args.preset, _guard(Path(args.vanilla).read_bytes))
    else:
        vanilla = kind.make_vanilla(args.preset, 1 if args.seed is None else args.seed)
    w, _ = kind.witness(args.preset, vanilla, partition)
    sys.stdout.write(f"circuit: {kind.circuit_id(args.preset)} ({kind.proof_kind}, {kind.partitions} partition(s); "
                     f"a model, not the Filecoin circuit), partition {partition}\n")
    return cc, w


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def _counts_info(args: argparse.Namespace) -> int:
    """A workload circuit's sizes from its templates (`kind.counts`), not building it."""
    from cuzk.r1cs.assembly import peak_bytes_estimate
    from cuzk.r1cs.compiled import nbytes_for

    t0 = time.perf_counter()
    kind = _get_kind(args.kind)
    c = kind.counts(args.preset)
    nnz = c.nnz
    size = nbytes_for(c.rows, nnz, c.inputs, c.aux, c.coefficients)
    peak = _peak_rss() + peak_bytes_estimate(c.rows, sum(nnz), c.aux)
    out = sys.stdout.write
    out(f"circuit: {kind.circuit_id(args.preset)} ({kind.proof_kind}, {kind.partitions} partition(s); "
        f"a model, not the Filecoin circuit)\n")
    out(f"curve: {kind.curve}\n")
    out(f"constraints: {c.constraints}\n")
    out(f"public inputs: {c.inputs - 1}\n")
    out(f"aux variables: {c.aux}\n")
    out(f"rows: {c.rows} (constraints + one per input)\n")
    out(f"domain: 2^{c.domain_log2}\n")
    out(f"partitions: {kind.partitions}\n")
    out(f"nonzeros (from the templates): A {nnz[0]}, B {nnz[1]}, C {nnz[2]}\n")
    out(f"distinct coefficients (from the templates): {c.coefficients}\n")
    out("components (per partition):\n")
    out(f"  {'instances':>10} {'constraints':>12} {'aux':>8} {'total constraints':>18}  name\n")
    for comp in c.components:
        out(f"  {comp.instances:>10} {comp.constraints:>12} {comp.aux:>8} {comp.total_constraints:>18}  {comp.name}\n")
    out(f"estimated compiled size: {size} bytes ({_gib(size)}, {size / max(1, c.constraints):.1f} per constraint)\n")
    out(f"estimated peak memory to compile: {_gib(peak)}\n")
    out(f"counted in {time.perf_counter() - t0:.2f} s, not built (--check builds it and checks a witness)\n")
    return 0


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

    if args.kind in FILECOIN_KINDS:
        from cuzk.circuits.filecoin import post_kind

        from . import post_circuit

        cfg = post_circuit.config_of(args.kind, args.sector_size or "2KiB")
        name, path, build = post_kind.circuit_id(cfg), post_kind.cache_path(cfg), lambda: post_kind.compiled(cfg)
    else:
        if args.sector_size:
            raise CuzkError("--sector-size goes with --kind window-post, winning-post or porep")
        kind = _get_kind(args.kind)
        name, path = kind.circuit_id(args.preset), kind.cache_path(args.preset)
        build = lambda: kind.compile(args.preset)  # noqa: E731
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
