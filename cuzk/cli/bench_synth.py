"""`cuzk bench synth` and `cuzk bench gen-vanilla` (workload circuits).

    cuzk bench synth [--json FILE] [--repeat N] [--threads T]      stamped SHA-256 / Poseidon, 2^16 and 2^20
    cuzk bench synth --kind porep-c2-like [--kind ...] --preset medium [--json FILE] [--threads T]
    cuzk bench synth --kind all --preset tiny
    cuzk bench gen-vanilla --kind K --preset P --out FILE [--seed S]

gen-vanilla writes the raw container (`cuzk.circuits.vanilla`): exactly the
bytes SubmitProof's `vanilla_proof` carries for that circuit.
"""

from __future__ import annotations

import sys

from cuzk.errors import CuzkError


def register_synth(bsub) -> None:
    """Add `synth` and `gen-vanilla` to `cuzk bench`'s subparsers."""
    from cuzk.circuits import KINDS, PRESETS

    kinds = list(KINDS) + ["all"]
    s = bsub.add_parser("synth", help="synthesis (witness + SpMV) timings: stamped gadgets or workload circuits",
                        description="Without --kind: stamped SHA-256 compressions and Poseidon hashes at 2^16 and "
                        "2^20 constraints. With --kind/--preset: the workload circuits (cuzk.circuits), one "
                        "partition, including vanilla-proof generation and aux 0/1/other fractions.")
    s.add_argument("--kind", action="append", choices=kinds, help="workload kind (repeatable; 'all')")
    s.add_argument("--preset", default="medium", choices=list(PRESETS), help="preset with --kind (default medium)")
    s.add_argument("--sizes", default="16,20", help="without --kind: log2 sizes (default 16,20)")
    s.add_argument("--repeat", type=int, default=3, help="timed repetitions (median; default 3)")
    s.add_argument("--seed", type=int, default=1, help="vanilla-proof seed with --kind (default 1)")
    s.add_argument("--threads", type=int, default=0, help="kernel threads (default 0: all cores); on a shared "
                   "machine 1 avoids stalls of parallel regions whose workers are descheduled")
    s.add_argument("--json", metavar="FILE", help="write the records as JSON")
    s.set_defaults(func=cmd_synth)

    existing = bsub.choices.get("gen-vanilla")
    if existing is not None:  # the daemon benchmarks' generator (engine circuits): extend it
        _extend_gen_vanilla(existing)
        return
    g = bsub.add_parser("gen-vanilla", help="write a vanilla proof for a workload circuit",
                        description="Generate random sector data, its trees and labels, and write the vanilla "
                        "proof (private and public inputs) of a workload circuit as the raw container that "
                        "SubmitProof's vanilla_proof carries.")
    g.add_argument("--kind", required=True, choices=list(KINDS), help="workload kind")
    g.add_argument("--preset", required=True, choices=list(PRESETS), help="preset")
    g.add_argument("--out", "-o", "--output", dest="out", required=True, help="output file")
    g.add_argument("--seed", type=int, help="generator seed (default: random)")
    g.set_defaults(func=cmd_gen_vanilla)


def _extend_gen_vanilla(parser) -> None:
    """Route `gen-vanilla --kind <workload kind>` to cmd_gen_vanilla (raw container,
    --seed); every other kind stays with the parser's own handler."""
    from cuzk.circuits import KINDS

    if not any("--seed" in a.option_strings for a in parser._actions):
        parser.add_argument("--seed", type=int, help="generator seed for workload kinds (default: random)")
    original = parser.get_default("func")

    def dispatch(args):
        if args.kind in KINDS:
            args.out = getattr(args, "out", None) or getattr(args, "output", None)
            return cmd_gen_vanilla(args)
        return original(args)

    parser.set_defaults(func=dispatch)
    parser.epilog = ((parser.epilog or "") + " Workload kinds (" + ", ".join(KINDS) + ") write one raw "
                     "vanilla-proof container (cuzk.circuits.vanilla) for --preset, optionally --seed.").strip()


def cmd_synth(args) -> int:
    from cuzk.bench import synth

    synth.set_threads(args.threads)
    if args.kind:
        from cuzk.circuits import KINDS

        kinds = list(KINDS) if "all" in args.kind else list(dict.fromkeys(args.kind))
        synth.run_kinds(kinds, args.preset, args.json, repeat=args.repeat, seed=args.seed)
    else:
        try:
            sizes = tuple(int(x) for x in args.sizes.split(",") if x)
        except ValueError:
            raise CuzkError(f"--sizes: expected comma-separated integers, got {args.sizes!r}") from None
        synth.run_default(args.json, sizes=sizes, repeat=args.repeat)
    return 0


def cmd_gen_vanilla(args) -> int:
    import time

    from cuzk.circuits import get_kind

    kind = get_kind(args.kind)
    t0 = time.perf_counter()
    data = kind.generate_vanilla(args.preset, args.seed)
    try:
        with open(args.out, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise CuzkError(f"{args.out}: {exc.strerror or exc}") from None
    print(f"wrote {args.out}: {kind.circuit_id(args.preset)} vanilla proof, {kind.partitions} partition(s), "
          f"{len(data):,} bytes in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return 0
