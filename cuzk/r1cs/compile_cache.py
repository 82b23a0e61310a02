"""A built-in circuit compiled once and kept on disk: load it if its file is sound, else build it.

Built-in circuits (the workload models, Filecoin's) are keyed by a file path that carries their
wiring version; one lock serializes building, so two threads asking for the same large circuit
build it once. A damaged file is rebuilt, not reported: it is our own cache.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from cuzk.errors import FormatError

from . import RecordingCS, load_compiled, save_compiled

_lock = threading.Lock()


def load_or_compile(path: Path, curve: str, synthesize: Callable) -> "CompiledCircuit":  # noqa: F821
    """The compiled circuit at `path`, or `synthesize(RecordingCS(curve))` compiled and saved there."""
    with _lock:
        if path.exists():
            try:
                return load_compiled(path)
            except (FormatError, OSError, ValueError):
                pass  # a damaged cache file: rebuild it
        cs = RecordingCS(curve)
        synthesize(cs)
        cc = cs.compile()
        path.parent.mkdir(parents=True, exist_ok=True)
        save_compiled(cc, path)
        return cc
