"""Per-user directories, by the XDG base-directory rule (cheap: the CLI's help texts show them).

cache: $XDG_CACHE_HOME/cuzk, else ~/.cache/cuzk (what can be rebuilt: parameters of the
demo and benchmarks). build cache: $CUZK_CACHE_DIR, else the cache (what cuzk builds once
and every later run reuses: compiled kernels under kernels/, compiled circuits under circuits/,
Poseidon constants under poseidon/). state: $XDG_STATE_HOME/cuzk, else ~/.local/state/cuzk
(the daemon's socket, journal and parameters). A relative or empty $XDG_* is ignored, as the
rule says.
"""

from __future__ import annotations

import os
from pathlib import Path


def _base(variable: str, fallback: str) -> Path:
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path(os.path.expanduser("~")) / fallback


def cache_dir() -> Path:
    return _base("XDG_CACHE_HOME", ".cache") / "cuzk"


def build_cache_dir() -> Path:
    """Where cuzk keeps what it builds once (kernels/, circuits/, poseidon/): $CUZK_CACHE_DIR, else cache_dir()."""
    return Path(os.environ.get("CUZK_CACHE_DIR") or cache_dir())


def state_dir() -> Path:
    return _base("XDG_STATE_HOME", ".local/state") / "cuzk"


def default_socket() -> Path:
    """Where a daemon with the default config listens (daemon.listen empty)."""
    return state_dir() / "cuzk.sock"
