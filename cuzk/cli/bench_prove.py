"""`cuzk bench prove`: whole Groth16 proofs of a stamped workload with the per-phase breakdown."""

from __future__ import annotations

import argparse


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes takes log2 row counts like 20,22,24, not {text!r}") from None
    if not sizes or any(not 6 <= s <= 27 for s in sizes):
        raise argparse.ArgumentTypeError("--sizes: each log2 row count must be between 6 and 27")
    return sizes


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return n


def register_prove(bsub) -> None:
    p = bsub.add_parser(
        "prove", help="Groth16 proofs of a stamped SHA-256 workload, per-phase timings",
        description="Prove a stamped SHA-256 circuit of about 2^k constraints with setup-generated keys (proofs "
        "verified) up to --verify-up-to, random keys of the same shape above it (timed only). Prints the median "
        "wall time and every phase (CUDA-event timings on the GPU) after one warm-up proof.")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"], help="compute backend (default auto)")
    p.add_argument("--sizes", type=_sizes, default=[16], metavar="K,K,...", help="log2 constraint counts (default 16)")
    p.add_argument("--repeat", type=_positive, default=5,
                   help="timed proofs (batches with --batch) per case (median reported; default 5)")
    p.add_argument("--transfer", action="append", choices=["pageable", "pinned"],
                   help="host-to-device transfer mode(s) to compare (GPU only; default pageable)")
    p.add_argument("--batch", type=_positive, default=1, metavar="K",
                   help="prove K jobs of the same size per prove_batch call and report ms per proof; on the GPU the "
                        "next job's witness uploads while the current proof runs (default 1: one proof at a time)")
    p.add_argument("--verify-up-to", type=int, default=20, metavar="K",
                   help="largest size proved with a real setup and verified (default 20)")
    p.add_argument("--json", metavar="FILE", help="write the records as JSON")
    p.set_defaults(func=_run)


def _run(args) -> int:
    from cuzk.backend import get_backend
    from cuzk.bench import prove

    name = get_backend(args.backend).name  # BackendUnavailable: one line, exit 2 (cli.main)
    transfers = tuple(args.transfer or ["pageable"]) if name == "cuda" else ("pageable",)
    prove.run(name, sizes=args.sizes, repeat=args.repeat, transfers=transfers, verify_up_to=args.verify_up_to,
              json_path=args.json, batch=args.batch)
    return 0
