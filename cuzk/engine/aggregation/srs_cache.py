"""Aggregation reference strings, read once and kept: an SRS file is megabytes to gigabytes of points
(subgroup-checked on reading), and a daemon aggregates with the same one again and again."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections import OrderedDict

from cuzk.aggregate import srs
from cuzk.aggregate.errors import SrsTooSmall
from cuzk.errors import FormatError

from ..errors import InvalidRequest
from ..types import SrsSource

log = logging.getLogger("cuzk.engine.aggregate")

SRS_CACHE = 4  # reference strings kept


def check_source(source: SrsSource | None) -> SrsSource:
    """The source itself, or InvalidRequest unless it names exactly one of a path and bytes."""
    if source is None or bool(source.path) == bool(source.data):
        raise InvalidRequest("srs: give either the path of an SRS file on the daemon's host or its bytes")
    return source


class SrsCache:
    """Reference strings by path (reread when its size or mtime changes) or by the SHA-256 of the
    bytes sent; the last SRS_CACHE kept. The verifier key (6 points) and the prover key (all powers)
    are read separately, each when first needed: a verifying daemon never reads the powers."""

    def __init__(self, capacity: int = SRS_CACHE):
        self.capacity = capacity
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()  # one reader at a time: a second request for the same SRS waits for it

    def verifier_key(self, source: SrsSource, curve: str) -> srs.VerifierKey:
        return self._get(source, curve, "vkey", lambda path: srs.read_verifier_key(path, curve))

    def prover_key(self, source: SrsSource, curve: str, n: int) -> srs.ProverKey:
        """The prover key for n (padded) proofs, sliced from the whole SRS's."""
        vkey = self.verifier_key(source, curve)
        if n > vkey.max_proofs:
            raise SrsTooSmall(f"the SRS is for at most {vkey.max_proofs} proofs; {n} (padded) are needed")
        full = self._get(source, curve, "pk", lambda path: srs.read_prover_key(path, curve, vkey.max_proofs))
        return _sub_key(full, n)

    def _get(self, source: SrsSource, curve: str, part: str, load):
        source = check_source(source)
        if source.path:
            path = os.path.realpath(os.path.expanduser(source.path))
            try:
                st = os.stat(path)
            except OSError as exc:
                raise FormatError(f"SRS {source.path}: cannot open: {exc.strerror}") from None
            key, stamp = ("path", path, curve), (st.st_size, st.st_mtime_ns)
        else:
            key, stamp = ("data", hashlib.sha256(source.data).digest(), curve), None
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry["stamp"] != stamp:
                entry = self._entries[key] = {"stamp": stamp}
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            if part not in entry:
                t = time.perf_counter()
                entry[part] = load(path) if source.path else _from_bytes(source.data, load)
                log.info("read the %s of SRS %s in %.0f ms", "verifier key" if part == "vkey" else "prover key",
                         source.path or f"(sent, sha256 {key[1].hex()[:12]})", (time.perf_counter() - t) * 1e3)
            return entry[part]


def _from_bytes(data: bytes, load):
    """The SRS readers map files: write the sent bytes to a private temporary file for them."""
    fd, path = tempfile.mkstemp(prefix="cuzk-srs-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            return load(path)
        except FormatError as exc:
            raise type(exc)(str(exc).replace(f"SRS {path}", "srs.data")) from None
    finally:
        os.unlink(path)


def _sub_key(pk: srs.ProverKey, n: int) -> srs.ProverKey:
    """The prover key for n proofs from one for more (srs._slice of the same powers)."""
    if n == pk.n:
        return pk
    return srs.ProverKey(pk.curve, n, v1=pk.h_alpha[:n], v2=pk.h_beta[:n], w1=pk.g_alpha[n : 2 * n],
                         w2=pk.g_beta[n : 2 * n], g_alpha=pk.g_alpha[: 2 * n], g_beta=pk.g_beta[: 2 * n],
                         h_alpha=pk.h_alpha[:n], h_beta=pk.h_beta[:n])
