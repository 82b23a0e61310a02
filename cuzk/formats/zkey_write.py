"""Writing snarkjs Groth16 proving keys (`.zkey`): the layout zkey.py reads.

The sections go out as 1..10 in numeric order, the way snarkjs writes a
key after a contribution (zkey_utils.writeZKey), with zkey.py's encodings:
points are our affine arrays' bytes as they are (little-endian Montgomery
limbs, infinity all zero), coefficient values c R^2 mod r. Rows and H bases
must already be in snarkjs's domain order (zkey_setup.py puts them there).

Section 10 holds a 64-byte hash and no contributions. snarkjs's own circuit
hash is taken over a ceremony's initial key (gamma = delta = 1, H from the
ptau's monomial powers), which a key made without a ptau does not have; we
store BLAKE2b-512 of sections 2-9 as written, a fingerprint of the key.
`snarkjs groth16 prove`, `zkey export verificationkey` and rapidsnark do not
read section 10; `snarkjs zkey contribute` appends to it.

The file is written beside its target and renamed into place, so a failed
or interrupted setup never leaves a half key at the path.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cuzk.curve import Curve
from cuzk.groth16.keys import VerifyingKey

from .zkey import COEFF_RECORD, GROTH16_PROTOCOL, ZKEY_MAGIC, ZKEY_VERSION


@dataclass(frozen=True, eq=False)
class ZkeySections:
    """What a Groth16 .zkey holds, as arrays (affine points, Montgomery limbs)."""

    curve: Curve
    n_public: int  # public signals, ONE excluded
    domain_size: int
    alpha1: np.ndarray
    beta1: np.ndarray
    beta2: np.ndarray
    gamma2: np.ndarray
    delta1: np.ndarray
    delta2: np.ndarray
    ic: np.ndarray  # G1[n_public + 1]
    coefficients: np.ndarray  # COEFF_RECORD[k], snarkjs's record order
    a: np.ndarray  # G1[n_vars]
    b1: np.ndarray  # G1[n_vars]
    b2: np.ndarray  # G2[n_vars]
    c: np.ndarray  # G1[n_vars - n_public - 1]
    h: np.ndarray  # G1[domain_size], snarkjs's odd-coset order

    @property
    def n_vars(self) -> int:
        return len(self.a)

    def verifying_key(self) -> VerifyingKey:
        return VerifyingKey(curve=self.curve, alpha_g1=self.alpha1, beta_g1=self.beta1, beta_g2=self.beta2,
                            gamma_g2=self.gamma2, delta_g1=self.delta1, delta_g2=self.delta2, ic=self.ic)

    def check_shapes(self) -> None:
        """Refuse inconsistent contents before a byte is written (a bug, not bad input)."""
        g1, g2 = (2, self.curve.fq.limbs), (2, 2, self.curve.fq.limbs)
        want = {
            "ic": (self.n_public + 1,) + g1, "a": (self.n_vars,) + g1, "b1": (self.n_vars,) + g1,
            "b2": (self.n_vars,) + g2, "c": (self.n_vars - self.n_public - 1,) + g1, "h": (self.domain_size,) + g1,
            "alpha1": g1, "beta1": g1, "delta1": g1, "beta2": g2, "gamma2": g2, "delta2": g2,
        }
        for name, shape in want.items():
            got = getattr(self, name).shape
            if got != shape:
                raise ValueError(f"zkey {name}: shape {got}, expected {shape}")
        if self.coefficients.dtype != COEFF_RECORD:
            raise ValueError(f"zkey coefficients: dtype {self.coefficients.dtype}, expected {COEFF_RECORD}")
        if max(self.n_vars, self.domain_size) >= 1 << 32:
            raise ValueError("nVars and domainSize must fit the format's u32 fields")


def _u32(v: int) -> bytes:
    return int(v).to_bytes(4, "little")


def _raw(arr: np.ndarray) -> memoryview:
    """An array's bytes without a copy when it is already little-endian and contiguous."""
    return memoryview(np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))).cast("B")


def _groth16_header(key: ZkeySections) -> bytes:
    fq, fr = key.curve.fq, key.curve.fr
    n8q = 8 * fq.limbs
    parts = [
        _u32(n8q), fq.p.to_bytes(n8q, "little"), _u32(32), fr.p.to_bytes(32, "little"),
        _u32(key.n_vars), _u32(key.n_public), _u32(key.domain_size),
    ]
    parts += [bytes(_raw(p)) for p in (key.alpha1, key.beta1, key.beta2, key.gamma2, key.delta1, key.delta2)]
    return b"".join(parts)


def _section_bodies(key: ZkeySections) -> dict[int, list]:
    """Section type -> its body as a list of byte buffers (big arrays are not copied)."""
    return {
        1: [_u32(GROTH16_PROTOCOL)],
        2: [_groth16_header(key)],
        3: [_raw(key.ic)],
        4: [_u32(len(key.coefficients)), _raw(key.coefficients)],
        5: [_raw(key.a)],
        6: [_raw(key.b1)],
        7: [_raw(key.b2)],
        8: [_raw(key.c)],
        9: [_raw(key.h)],
    }


def write_zkey(path, key: ZkeySections) -> bytes:
    """Write `key` to `path` as a snarkjs Groth16 .zkey; returns the section-10 hash."""
    key.check_shapes()
    bodies = _section_bodies(key)
    digest = hashlib.blake2b(digest_size=64)
    for stype in range(2, 10):
        for buf in bodies[stype]:
            digest.update(buf)
    cs_hash = digest.digest()
    bodies[10] = [cs_hash, _u32(0)]  # no contributions
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(ZKEY_MAGIC + _u32(ZKEY_VERSION) + _u32(len(bodies)))
            for stype in sorted(bodies):
                fh.write(_u32(stype) + sum(len(b) for b in bodies[stype]).to_bytes(8, "little"))
                for buf in bodies[stype]:
                    fh.write(buf)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return cs_hash
