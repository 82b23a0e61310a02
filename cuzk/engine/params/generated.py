"""Parameters the engine makes itself, for circuits without ceremony files.

The synthetic test circuit has no published parameters (Filecoin's circuits
read theirs by their Filecoin names: catalog/filecoin_post.py), so the first job (or preload) of a circuit runs a Groth16 setup
and keeps the result as bellperson .params/.vk files in the parameter
directory: a restarted daemon, or another daemon sharing the directory,
proves with the same keys. Files are named by circuit id and the compiled
circuit's topology hash, so a changed circuit never meets stale parameters.
"""

from __future__ import annotations

import fcntl
import logging
import time
from pathlib import Path
from typing import Callable

from cuzk.formats.bellperson import write_params, write_vk
from cuzk.groth16 import setup

from .sources import BellpersonParams

log = logging.getLogger("cuzk.engine")


class GeneratedParams(BellpersonParams):
    def __init__(self, circuit_id: str, compiled: Callable, directory: Path):
        self.circuit_id, self.directory = circuit_id, Path(directory)
        super().__init__(None, compiled, checked=False)  # our own files: skip the subgroup checks
        self.description = f"generated ({self.directory})"

    def missing(self) -> str | None:
        return None  # made on first use

    def stem(self) -> Path:
        return self.directory / f"{self.circuit_id}-{self.compiled().topology_hash.hex()[:16]}"

    def open(self):
        self.path = self.stem().with_suffix(".params")
        if not self.path.exists():
            self.directory.mkdir(parents=True, exist_ok=True)
            # one generator per directory and circuit (daemons or cluster nodes may share it):
            # the .vk and .params written by two setups must never be mixed
            with open(self.stem().with_suffix(".lock"), "a+b") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not self.path.exists():
                    # the key just made is the file's content: use it as it is rather than decode
                    # the file back (47.5 GB at 32g); a later open (after eviction) reads the file
                    return self._generate()
        return super().open()

    def _generate(self):
        cc = self.compiled()
        log.info("generating parameters of %s (%d constraints; once, kept in %s)", self.circuit_id,
                 cc.num_constraints, self.directory)
        t0 = time.perf_counter()
        pk = setup.generate(cc, progress=False)
        write_vk(self.stem().with_suffix(".vk"), pk.vk)
        t1 = time.perf_counter()
        write_params(self.path, pk)  # written last, atomically: its presence means complete
        log.info("parameters of %s generated in %.1f s, written in %.1f s (%.1f GB)", self.circuit_id, t1 - t0,
                 time.perf_counter() - t1, self.path.stat().st_size / 1e9)
        return pk
