"""Fiat-Shamir transcript of the aggregation (bellperson's `Transcript` shape).

A transcript is SHA-256 over a label (e.g. "random-r", "gipa-3") followed by
the canonical bytes of the values written to it (cuzk.aggregate.encoding for
points and scalars, gt.encode for GT). A challenge appends a big-endian
64-bit counter 1, 2, ... to the running hash until the digest, read
little-endian with the bits above r's bit length cleared, is a field element
other than 0 and 1 (bellperson also refuses 1 and non-invertible values).

`statement_digest` is what bellperson calls `transcript_include`: the bytes
the caller binds into the first challenge r. Ours hashes a domain separator,
the curve, the verifying key, the number of real (unpadded) proofs and every
public input, so an aggregate is tied to exactly one statement.
"""

from __future__ import annotations

import hashlib

import numpy as np

from cuzk.curve import Curve

from . import encoding, gt

DOMAIN = b"cuzk-snarkpack-v1"


class Transcript:
    def __init__(self, curve: Curve, label: str):
        self.curve = curve
        self._h = hashlib.sha256(label.encode())

    def bytes(self, data: bytes) -> "Transcript":
        self._h.update(data)
        return self

    def fr(self, *xs: int) -> "Transcript":
        for x in xs:
            self._h.update(encoding.scalar_bytes(int(x) % self.curve.fr.p))
        return self

    def g1(self, *pts) -> "Transcript":
        for p in pts:
            self._h.update(encoding.encode_points(self.curve.g1, np.asarray(p)))
        return self

    def g2(self, *pts) -> "Transcript":
        for p in pts:
            self._h.update(encoding.encode_points(self.curve.g2, np.asarray(p)))
        return self

    def gt(self, *vals) -> "Transcript":
        for v in vals:
            self._h.update(gt.encode(self.curve.name, np.asarray(v)))
        return self

    def challenge(self) -> int:
        r = self.curve.fr.p
        mask = (1 << r.bit_length()) - 1
        counter = 0
        while True:
            counter += 1
            self._h.update(counter.to_bytes(8, "big"))
            c = int.from_bytes(self._h.copy().digest(), "little") & mask
            if 1 < c < r:
                return c


def statement_digest(vk, public_inputs: np.ndarray, n_real: int, domain: bytes = DOMAIN) -> bytes:
    """SHA-256 of the domain, curve, key, real proof count and public inputs
    (canonical Fr uint64[n_real, k, 4], written as 32-byte little-endian)."""
    curve = vk.curve
    h = hashlib.sha256()
    h.update(len(domain).to_bytes(4, "big") + domain)
    h.update(curve.name.encode())
    h.update(encoding.encode_points(curve.g1, vk.alpha_g1[None]))
    h.update(encoding.encode_points(curve.g2, np.stack([vk.beta_g2, vk.gamma_g2, vk.delta_g2])))
    h.update(len(vk.ic).to_bytes(4, "big") + encoding.encode_points(curve.g1, vk.ic))
    h.update(int(n_real).to_bytes(8, "big"))
    h.update(np.ascontiguousarray(public_inputs, dtype="<u8").tobytes())
    return h.digest()
