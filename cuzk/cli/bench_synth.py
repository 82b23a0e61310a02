"""`cuzk bench synth`: synthesis timings of stamped gadgets and workload circuits.

    cuzk bench synth [--json FILE] [--repeat N] [--threads T]      stamped SHA-256 / Poseidon, 2^16 and 2^20
    cuzk bench synth --kind porep-c2-like [--kind ...] --preset medium [--json FILE] [--threads T]
    cuzk bench synth --kind all --preset tiny

(`cuzk bench gen-vanilla`, which writes workload inputs, is in bench_daemon.)
"""

from __future__ import annotations

from cuzk.errors import CuzkError


def register_synth(bsub) -> None:
    """Add `synth` to `cuzk bench`'s subparsers."""
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
