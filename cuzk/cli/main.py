"""Entry point of the `cuzk` command (also `python -m cuzk`).

Each command group lives in its own module with `register(subparsers)`;
it sets `func` on its parser. Errors of the project's own types print a
one-line message and exit 2; nothing else is caught, so bugs stay visible.
A command without its subcommand prints the help on stderr and exits 2,
as argparse does for other usage errors.

Output into a pipe that closes early (`cuzk circuit info ... | head`) ends
the command quietly with status 141 (128 + SIGPIPE): what a shell reports
for a C tool stopped by SIGPIPE, so `set -o pipefail` scripts see cuzk as
any other producer. stdout is pointed at /dev/null first, so the flush at
interpreter exit cannot raise again.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from cuzk.errors import CuzkError

from .usage import EXIT_USAGE, help_and_usage_error

# modules under cuzk.cli that contribute commands (missing ones are skipped
# so that a partially installed tree still gives a working --help)
COMMAND_MODULES = ["bench", "circuit", "prove", "verify", "setup", "params", "daemon", "top", "aggregate"]
EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE


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
    parser.set_defaults(func=help_and_usage_error(parser))
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            rc = int(args.func(args) or 0)
        except CuzkError as exc:
            print(f"cuzk: error: {exc}", file=sys.stderr)
            rc = EXIT_USAGE
        except KeyboardInterrupt:
            print("cuzk: interrupted", file=sys.stderr)
            rc = 130
        sys.stdout.flush()  # inside the try: a reader that went away shows up here
        return rc
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout replaced by an object without a descriptor (tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
