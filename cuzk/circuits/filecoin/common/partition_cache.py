"""How a Filecoin circuit's partition is witnessed and its compiled form (and size) cached, in one place.

The PoRep and SnapDeals kinds (porep_kind, snap_kind) each have one circuit per sector size: its
compiled form is recorded once and kept at <cuzk cache>/circuits/<circuit id>-v<wiring version>.pce
(a changed wiring bumps the version, so a stale file is never loaded), and a partition's witness is
the flat Montgomery w = [1, inputs..., aux...] of its synthesis in a WitnessCS, with its public
inputs read back from w.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Callable

import numpy as np

from cuzk.r1cs import WitnessCS
from cuzk.r1cs.compile_cache import load_or_compile as load
from cuzk.r1cs.witness_phases import phase
from cuzk.user_dirs import build_cache_dir

from .fr_bytes import CURVE, ints


def witness(synthesize: Callable, out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """(w, public inputs) of `synthesize(cs)` in a WitnessCS; w written into `out` when given."""
    cs = WitnessCS(CURVE)
    synthesize(cs)
    with phase("witness assembled (w)"):
        w = cs.witness(out)
    return w, ints(w[1 : cs.num_inputs])


def cache_path(circuit_id: str, version: int) -> Path:
    return build_cache_dir() / "circuits" / f"{circuit_id}-v{version}.pce"


def compiler(config_for: Callable, circuit_id: Callable, version: int, synthesize: Callable) -> Callable:
    """A kind's compiled(cfg): the partition circuit `synthesize(cs, cfg)` for cfg's sector size
    (config_for(size) names it), cached in memory and on disk (keyed by the wiring's `version`)."""

    @functools.lru_cache(maxsize=None)
    def by_size(size: int):
        cfg = config_for(size)
        return load_or_compile(circuit_id(cfg), version, lambda cs: synthesize(cs, cfg))

    def compiled(cfg):
        """The partition circuit, cached in memory and on disk (keyed by its wiring version)."""
        return by_size(cfg.sector_size)

    return compiled


def load_or_compile(circuit_id: str, version: int, synthesize: Callable):
    """The compiled circuit of `synthesize(cs)` (recording), from its cache file or built and saved."""
    return load(cache_path(circuit_id, version), CURVE, synthesize)


def kept_counts(circuit_id: str, version: int, count: Callable[[], tuple[int, ...]]) -> tuple[int, ...]:
    """`count()`, a partition's sizes, kept beside its compiled form (same wiring version): counting the
    PoRep records its SHA-256 templates, ~2 s that every process building the circuit registry paid
    (the daemon at each start, `cuzk demo`, the bench client). A file that cannot be read or written
    only means counting again."""
    path = build_cache_dir() / "circuits" / f"{circuit_id}-v{version}.counts.json"
    try:
        kept = json.loads(path.read_text())
        if isinstance(kept, list) and kept and all(type(v) is int and v >= 0 for v in kept):
            return tuple(kept)
    except (OSError, ValueError):
        pass
    value = tuple(count())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(list(value)))
        os.replace(tmp, path)
    except OSError:
        pass
    return value
