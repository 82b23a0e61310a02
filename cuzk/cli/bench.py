"""`cuzk bench ...`: kernel, synthesis and proving benchmarks."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    bench = sub.add_parser("bench", help="benchmarks (kernels, ...)", description="Benchmarks that print a table and write JSON.")
    bsub = bench.add_subparsers(dest="bench_command", metavar="BENCH")
    bench.set_defaults(func=lambda a: bench.print_help())

    k = bsub.add_parser("kernels", help="Fr mul, NTT and MSM timings, arkworks side by side",
                        description="Time Fr multiplication, NTT and MSM (G1, G2) on a backend. For BLS12-381 MSMs "
                        "py-arkworks-bls12381 runs on the same inputs in the same process and the ratio is printed.")
    k.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"], help="compute backend (default cpu)")
    k.add_argument("--json", metavar="FILE", help="write the records as JSON")
    k.add_argument("--curve", action="append", choices=["bls12_381", "bn254"], help="curve(s) to run (default both)")
    k.add_argument("--repeat", type=int, default=5, help="timed repetitions per op (median reported)")
    k.set_defaults(func=_kernels)

    from cuzk.cli.bench_daemon import register_daemon_bench
    from cuzk.cli.bench_prove import register_prove
    from cuzk.cli.bench_synth import register_synth
    from cuzk.cli.bench_trace import register_report

    register_daemon_bench(bsub)
    register_synth(bsub)
    register_prove(bsub)
    register_report(bsub)


def _kernels(args) -> int:
    from cuzk.bench import kernels

    kernels.run(args.backend, args.json, curves=tuple(args.curve or ("bls12_381", "bn254")), repeat=args.repeat)
    return 0
