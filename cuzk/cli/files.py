"""Files named on the command line, checked in one place before a command runs.

An option says what its value is with `type=`: `input_file` (a file the command
reads), `output_file` (a file it writes) or `output_dir` (a folder it writes
into). The value stays a plain string (a str subclass that remembers its kind);
main() calls `prepare(args)` after parsing and before the command, so:

* an input that is absent is "PATH: no such file", one that is a folder
  "PATH: is a directory, not a file" (exit 2, before any work);
* an output's missing folders are created, as `mkdir -p` would
  (`cuzk setup ... --zkey build/x.zkey` works where build/ does not exist yet);
  a folder that cannot be created, or an output that is an existing folder, is
  one line naming it (exit 2), before any work.

Paths a command derives itself (the .vk.json beside a --zkey) go through
`ensure_parent` at the point they are chosen.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cuzk.errors import CuzkError


class InputFile(str):
    """A file the command reads (`what` names it in messages: "file", "config file", ...)."""

    what = "file"


class OutputFile(str):
    """A file the command writes."""


class OutputDir(str):
    """A folder the command writes into (created when absent)."""


def input_file(text: str) -> InputFile:
    return InputFile(text)


def input_of(what: str):
    """A `type=` for an input file that messages call `what` ("PATH: no such config file")."""

    def convert(text: str) -> InputFile:
        value = InputFile(text)
        value.what = what
        return value

    return convert


def output_file(text: str) -> OutputFile:
    return OutputFile(text)


def output_dir(text: str) -> OutputDir:
    return OutputDir(text)


def check_input(path, what: str = "file") -> None:
    """CuzkError unless `path` names something readable as a file (not a folder, not absent)."""
    p = Path(path)
    if p.is_dir():
        raise CuzkError(f"{path}: is a directory, not a {what}")
    if not p.exists():
        raise CuzkError(f"{path}: no such {what}")


def _make_dir(folder: Path, why: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where a folder must be (mkdir's exist_ok only forgives folders)
        raise CuzkError(f"{why}: cannot create the folder {folder}: a file of that name exists") from None
    except OSError as exc:
        raise CuzkError(f"{why}: cannot create the folder {exc.filename or folder}: "
                        f"{exc.strerror or exc}") from None


def ensure_parent(path) -> None:
    """Create the folder `path` goes into; CuzkError (one line, naming it) when that fails or when
    `path` is itself a folder."""
    p = Path(path)
    if p.is_dir():
        raise CuzkError(f"{path}: is a directory; give a file name to write")
    parent = p.parent
    if not parent.is_dir():
        _make_dir(parent, str(path))


def ensure_dir(path) -> None:
    """Create the folder `path` (and its parents); CuzkError when that fails."""
    if not Path(path).is_dir():
        _make_dir(Path(path), str(path))


def prepare(args: argparse.Namespace) -> None:
    """Check every input file and create the folders of every output that `args` names."""
    values = []
    for value in vars(args).values():
        values.extend(value if isinstance(value, (list, tuple)) else [value])
    for v in values:  # inputs first: a command that cannot read its inputs creates nothing
        if isinstance(v, InputFile):
            check_input(v, v.what)
    for v in values:
        if isinstance(v, OutputFile):
            ensure_parent(v)
        elif isinstance(v, OutputDir):
            ensure_dir(v)
