"""Entry point of the `cuzk` command (also `python -m cuzk`).

Each command group lives in its own module with `register(subparsers)`;
it sets `func` on its parser (and `validate`, a check of option
combinations that runs first). Files named by options are then checked
(inputs) and given their folders (outputs) before the command runs
(cli/files.py).
Errors of the project's own types, and a file the system refuses (an
OSError naming a file: permission denied, disk full), print a one-line
message and exit 2; nothing else is caught, so bugs stay visible.
A command without its subcommand prints the help on stderr and exits 2,
as argparse does for other usage errors.

Output into a pipe that closes early (`cuzk circuit info ... | head`) ends
the command quietly with status 141 (128 + SIGPIPE): what a shell reports
for a C tool stopped by SIGPIPE, so `set -o pipefail` scripts see cuzk as
any other producer. stdout is pointed at /dev/null first, so the flush at
interpreter exit cannot raise again.

Start-up and exit are part of a one-shot command's latency (`cuzk prove`
on a small circuit takes well under a second of work), so the parser is
built from the named command's module alone when argv names one (all of
them otherwise: `cuzk --help`, a misspelled command), and a command that
sets `fast_exit` on its parser ends the process without the interpreter's
teardown when main() runs as the process's entry (argv None): atexit
handlers run and stdout/stderr are flushed first; only the module and
garbage-collector teardown (0.1-0.2 s with numba loaded) is skipped. Such a command also
runs with the cyclic garbage collector off: its passes over the objects numba and numpy
create at start-up cost a one-shot `cuzk prove` 40-50 ms (7 % of a 9,000-constraint proof,
lab/JOURNAL.md 2026-12-07), and a process that ends at once has no use for what they free
(arrays and files are freed by reference counting as before). Not with CUZK_PRECOMPILE=0:
kernels then compile in the process itself, and numba's compiler leaves much cyclic garbage
(a first proof of a 9,260-constraint circuit peaks at 516 MB without collection, 348 MB with it); otherwise
they compile in worker processes (cuzk/cli/first_run.py) and the command only loads them.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
import threading

from cuzk.errors import CuzkError

from . import files
from .usage import EXIT_USAGE, help_and_usage_error

# modules under cuzk.cli that contribute commands (missing ones are skipped
# so that a partially installed tree still gives a working --help)
COMMAND_MODULES = ["bench", "circuit", "prove", "verify", "setup", "params", "daemon", "top", "aggregate", "filecoin"]
EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The `cuzk` parser; `only`: register just the commands of module cuzk.cli.<only>
    (None: every command module)."""
    parser = argparse.ArgumentParser(
        prog="cuzk",
        description="Pipelined Groth16 proving engine for BLS12-381 and BN254.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else [only]:
        try:
            module = importlib.import_module(f"cuzk.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cuzk.cli.{name}":
                continue
            raise
        module.register(sub)
    parser.set_defaults(func=help_and_usage_error(parser))
    return parser


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for `argv`: only the first word's command module when that module
    registers a command of that name, else every command."""
    first = argv[0] if argv else None
    if first in COMMAND_MODULES:
        parser = build_parser(first)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if first in sub.choices:
            return parser
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    """Run the command in argv (None: this process's command line, as the `cuzk`
    script and `python -m cuzk` do; then a command with `fast_exit` ends the
    process here, see the module docstring)."""
    entry = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = _parser_for(argv)
        args = parser.parse_args(argv)
        try:
            if getattr(args, "validate", None) is not None:  # option combinations first: no I/O
                args.validate(args)
            files.prepare(args)
            if entry and getattr(args, "fast_exit", False) and os.environ.get("CUZK_PRECOMPILE", "1") != "0":
                gc.disable()  # the process ends without teardown: see the module docstring
            with _kernel_recording():
                rc = int(args.func(args) or 0)
        except CuzkError as exc:
            print(f"cuzk: error: {exc}", file=sys.stderr)
            rc = EXIT_USAGE
        except OSError as exc:
            if exc.filename is None or isinstance(exc, BrokenPipeError):
                raise
            print(f"cuzk: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
            rc = EXIT_USAGE
        except KeyboardInterrupt:
            print("cuzk: interrupted", file=sys.stderr)
            rc = 130
        sys.stdout.flush()  # inside the try: a reader that went away shows up here
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    if entry and getattr(args, "fast_exit", False):
        _end_process(rc)
    return rc


class _kernel_recording:
    """With CUZK_RECORD_KERNELS=PREFIX, the numba kernels this command compiles are written to
    PREFIX.<pid> when it ends (scripts/kernel_lists.py records a command that starts others, as
    `cuzk demo` starts its daemon, so); otherwise nothing."""

    def __enter__(self):
        self.prefix = os.environ.get("CUZK_RECORD_KERNELS")
        if self.prefix:
            from cuzk.field.precompile import Recorder  # numba: only when recording

            self.rec = Recorder().__enter__()
        return self

    def __exit__(self, *exc):
        if self.prefix:
            self.rec.__exit__(*exc)
            with open(f"{self.prefix}.{os.getpid()}", "w") as f:
                f.writelines(k.line() + "\n" for k in self.rec.kernels)
        return False


def _end_process(rc: int) -> None:
    """Exit now with `rc`, skipping the interpreter's teardown (freeing every module and
    object, 0.1-0.2 s once numba's kernels are loaded), when that is safe: no thread other
    than idle pool workers may still be running (a non-daemon thread is left to the normal
    exit, which waits for it). atexit handlers run and both streams are flushed first; the
    command's own output files are closed by the time it returns (a command sets fast_exit only then)."""
    for t in threading.enumerate():
        if t is not threading.current_thread() and not t.daemon and not _idle_pool_worker(t):
            return
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # anything odd: let the interpreter exit as usual
        return
    os._exit(rc)


def _idle_pool_worker(t: threading.Thread) -> bool:
    """A ThreadPoolExecutor worker waiting for work (its pool's queue is empty); the
    normal exit would only wake it to end."""
    target = getattr(t, "_target", None)
    if getattr(target, "__name__", "") != "_worker":
        return False
    args = getattr(t, "_args", None) or ()
    work_queue = args[1] if len(args) > 1 else None  # _worker(executor_reference, work_queue, ...)
    return hasattr(work_queue, "empty") and work_queue.empty()


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout replaced by an object without a descriptor (tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
