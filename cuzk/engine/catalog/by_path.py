"""circom circuits a client names by their files, registered on first use (`cuzk prove --daemon`).

A request whose circuit_id is a key id (cuzk.key_ids: "zkey:/abs/c.zkey", with
"|r1cs:/abs/c.r1cs" to check each witness) is served as a `[[circuits.circom]]`
entry for those files would be, registered the first time one names them; the
key's parameters then stay with the daemon's others (hot while used, evicted by
the SRS manager when idle), so the next proof does not read or decode the key
again: what `cuzk prove` in a loop gains over a process per proof.

The files are read by the daemon, on its own host, so only a daemon listening
on a unix socket registers them (a client that can reach the socket shares the
machine; over TCP a client could make the daemon open any file it can read):
elsewhere such ids are refused in one line naming the config entry to add.
The registered circuit's id carries the files' sizes and modification times: a
key written again (a new setup at the same path) is registered anew and the old
version's parameters dropped, never proven with.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from cuzk import key_ids

from ..errors import InvalidRequest
from . import circom
from .registry import CircuitSpec


class KeysByPath:
    def __init__(self, registry, srs, allowed: bool):
        """`registry`, `srs`: where a new circuit and its parameters are registered; `allowed`: whether
        this engine registers files named by clients (its daemon listens on a unix socket)."""
        self.registry, self.srs, self.allowed = registry, srs, allowed
        self._current: dict[str, CircuitSpec] = {}  # key id -> its registered version
        self._lock = threading.Lock()

    def resolve(self, circuit_id: str) -> CircuitSpec:
        zkey, r1cs = key_ids.parse(circuit_id)
        if not self.allowed:
            raise InvalidRequest(f"{circuit_id}: this daemon does not listen on a unix socket, so it does not open "
                                 "files its clients name; list the key as a [[circuits.circom]] entry of its config")
        files = [Path(p) for p in (zkey, r1cs) if p]
        for p in files:
            if not p.is_absolute():
                raise InvalidRequest(f"{circuit_id}: {p} is not an absolute path")
        version = self._version(circuit_id, files)
        with self._lock:
            spec = self._current.get(circuit_id)
            if spec is not None and spec.circuit_id == version:
                return spec
            try:
                new = circom.make_spec({"id": version, "zkey": zkey, **({"r1cs": r1cs} if r1cs else {})})
            except Exception as exc:  # noqa: BLE001 -- ConfigError, FormatError, OSError: one line to the client
                raise InvalidRequest(str(exc).replace("circuits.circom ", "", 1)) from None
            self.registry.register(new)
            self.srs.register(new.circuit_id, new.params)
            self._current[circuit_id] = new
        if spec is not None:
            self._drop(spec.circuit_id)
        return new

    @staticmethod
    def _version(circuit_id: str, files: list[Path]) -> str:
        h = hashlib.sha256()
        for p in files:
            try:
                st = os.stat(p)
            except OSError as exc:
                raise InvalidRequest(f"{p}: {exc.strerror} (on the daemon's host)") from None
            h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}\0".encode())
        return f"{circuit_id}#{h.hexdigest()[:12]}"

    def _drop(self, circuit_id: str) -> None:
        """The old version's parameters, when no job holds them (else the SRS manager's idle eviction)."""
        try:
            self.srs.evict(circuit_id)
        except Exception:  # noqa: BLE001 -- in use, or never loaded: nothing to free now
            pass
