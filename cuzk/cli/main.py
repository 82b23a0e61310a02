"""Entry point of the `cuzk` command (also `python -m cuzk`).

Each command group lives in its own module with `register(subparsers)`;
it sets `func` on its parser. Errors of the project's own types print a
one-line message and exit 2; nothing else is caught, so bugs stay visible.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cuzk.errors import CuzkError

# modules under cuzk.cli that contribute commands (missing ones are skipped
# so that a partially installed tree still gives a working --help)
COMMAND_MODULES = ["bench", "circuit", "prove", "verify", "setup", "params", "daemon", "top"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cuzk",
        description="Pipelined Groth16 proving engine for BLS12-381 and BN254.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"cuzk.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cuzk.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CuzkError as exc:
        print(f"cuzk: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cuzk: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
