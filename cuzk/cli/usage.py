"""A command group run without its subcommand is a usage error: help on stderr, exit 2 (argparse's status)."""

from __future__ import annotations

import argparse
import sys

EXIT_USAGE = 2


def help_and_usage_error(parser: argparse.ArgumentParser):
    """A `func` for `parser.set_defaults` of a command group: prints its help on stderr, returns 2."""

    def run(_args) -> int:
        parser.print_help(sys.stderr)
        return EXIT_USAGE

    return run


def command_group(sub, name: str, dest: str, metavar: str, **parser_args):
    """The subcommands of a new command group `name` (a parser of `sub`, made with `parser_args`):
    the group run without one of them is a usage error."""
    parser = sub.add_parser(name, **parser_args)
    commands = parser.add_subparsers(dest=dest, metavar=metavar)
    parser.set_defaults(func=help_and_usage_error(parser))
    return commands
