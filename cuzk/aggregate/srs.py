"""The aggregation reference string: generation, file reader and writer.

Two sequences of powers, of secrets a and b, in both groups (bellperson's
`GenericSRS`): g^(a^i), g^(b^i) in G1 and h^(a^i), h^(b^i) in G2, i < 2N,
for aggregates of up to N proofs (N a power of two). From it:

- the prover key for n proofs: commitment keys v = (h^(a^i), h^(b^i)) and
  w = (g^(a^(n+i)), g^(b^(n+i))), i < n, and the powers g^(a^i), g^(b^i)
  (i < 2n), h^(a^i), h^(b^i) (i < n) for the KZG openings;
- the verifier key: g, h, g^a, g^b, h^a, h^b.

`generate` draws a and b itself: whoever runs it knows them and could forge
aggregates. It is for tests and private deployments, not a ceremony; a
public deployment takes the powers from two independent powers-of-tau
transcripts (as Filecoin did).

File layout (bellperson's `GenericSRS::write`): four vectors g_alpha,
g_beta (G1), h_alpha, h_beta (G2), each a big-endian u32 count followed by
that many points (cuzk.aggregate.encoding: compressed zcash bytes for
BLS12-381, uncompressed for BN254). Readers take only the prefix they need.
"""

from __future__ import annotations

import mmap
import os
import secrets
from dataclasses import dataclass

import numpy as np

from cuzk.backend import get_backend
from cuzk.curve import Curve, get_curve

from . import encoding
from .errors import SrsFormatError, SrsTooSmall

MAX_POWERS = 1 << 24
NAMES = ("g_alpha", "g_beta", "h_alpha", "h_beta")


def padded_count(n: int) -> int:
    """Proofs in an aggregate of n: the next power of two, at least 2."""
    if n < 1:
        raise ValueError("at least one proof is required")
    return max(2, 1 << (n - 1).bit_length())


@dataclass
class GenericSRS:
    curve: Curve
    g_alpha: np.ndarray
    g_beta: np.ndarray
    h_alpha: np.ndarray
    h_beta: np.ndarray

    @property
    def max_proofs(self) -> int:
        return min(len(self.g_alpha), len(self.g_beta), len(self.h_alpha), len(self.h_beta)) // 2


@dataclass
class ProverKey:
    curve: Curve
    n: int
    v1: np.ndarray  # G2 h^(a^i), i < n
    v2: np.ndarray  # G2 h^(b^i)
    w1: np.ndarray  # G1 g^(a^(n+i))
    w2: np.ndarray  # G1 g^(b^(n+i))
    g_alpha: np.ndarray  # G1, 2n powers
    g_beta: np.ndarray
    h_alpha: np.ndarray  # G2, n powers
    h_beta: np.ndarray


@dataclass
class VerifierKey:
    curve: Curve
    max_proofs: int
    g: np.ndarray
    h: np.ndarray
    g_alpha: np.ndarray
    g_beta: np.ndarray
    h_alpha: np.ndarray
    h_beta: np.ndarray


def _powers(curve: Curve, s: int, count: int) -> np.ndarray:
    """Canonical uint64[count, 4]: s^0 .. s^(count-1), by vectorized doubling."""
    fr = curve.fr
    out = fr.ones(1)
    step = fr.from_int(s)[None]
    while out.shape[0] < count:
        out = np.concatenate([out, fr.mul(out, np.broadcast_to(step, out.shape))])
        step = fr.mul(step, step)
    return fr.from_mont(out[:count])


def generate(curve_name: str, max_proofs: int, backend=None, rng_bytes=None) -> GenericSRS:
    """A fresh single-party SRS for up to `max_proofs` proofs (rounded up to a power of two)."""
    curve = get_curve(curve_name)
    n = padded_count(max_proofs)
    if 2 * n > MAX_POWERS:
        raise SrsTooSmall(f"at most {MAX_POWERS // 2} proofs per SRS")
    backend = backend or get_backend("cpu")
    draw = rng_bytes or (lambda: secrets.randbits(256))
    a, b = (int(draw()) % (curve.fr.p - 1) + 1 for _ in range(2))
    vecs = {}
    for name, s in (("alpha", a), ("beta", b)):
        k = _powers(curve, s, 2 * n)
        for grp in ("g1", "g2"):
            table = backend.fixed_base(curve, grp, getattr(curve, grp).generator)
            vecs[("g_" if grp == "g1" else "h_") + name] = table.mul(k)
    return GenericSRS(curve, vecs["g_alpha"], vecs["g_beta"], vecs["h_alpha"], vecs["h_beta"])


def write(srs: GenericSRS, path) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as fh:
        for name in NAMES:
            pts = getattr(srs, name)
            grp = srs.curve.g1 if name.startswith("g") else srs.curve.g2
            fh.write(len(pts).to_bytes(4, "big"))
            fh.write(encoding.encode_points(grp, pts))
    os.replace(tmp, path)


def _layout(buf, curve: Curve, what: str):
    """(offset, count, group) of each of the four vectors; checks the total length."""
    pos, out = 0, []
    for name in NAMES:
        grp = curve.g1 if name.startswith("g") else curve.g2
        if pos + 4 > len(buf):
            raise SrsFormatError(f"{what}: truncated before the {name} count")
        count = int.from_bytes(buf[pos : pos + 4], "big")
        if not 2 <= count <= MAX_POWERS:
            raise SrsFormatError(f"{what}: {name} count {count} is out of range [2, {MAX_POWERS}]")
        pos += 4
        size = count * encoding.point_size(grp)
        if pos + size > len(buf):
            raise SrsFormatError(
                f"{what}: {name} needs {size} bytes at offset {pos}, the file has {len(buf) - pos} left "
                f"(is it a {curve.name} SRS?)")
        out.append((pos, count, grp))
        pos += size
    if pos != len(buf):
        raise SrsFormatError(f"{what}: {len(buf) - pos} trailing bytes (is it a {curve.name} SRS?)")
    return out


def _read(path, curve: Curve, take, check_subgroup: bool):
    what = f"SRS {os.fspath(path)}"
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise SrsFormatError(f"{what}: cannot open: {exc.strerror}") from None
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            raise SrsFormatError(f"{what}: empty file")
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            layout = _layout(buf, curve, what)
            out = {}
            for name, (pos, count, grp) in zip(NAMES, layout):
                k = take(name, count)
                raw = buf[pos : pos + k * encoding.point_size(grp)]
                pts = encoding.decode_points(grp, raw, check_subgroup=check_subgroup, what=f"{what} {name}")
                if not pts[0].any() or not pts.reshape(len(pts), -1).any(axis=1).all():
                    raise SrsFormatError(f"{what}: {name} holds the point at infinity")
                out[name] = pts
            counts = {name: c for name, (_, c, _) in zip(NAMES, layout)}
    same_g = np.array_equal(out["g_alpha"][0], out["g_beta"][0])
    if not (same_g and np.array_equal(out["h_alpha"][0], out["h_beta"][0])):
        raise SrsFormatError(f"{what}: the two sequences do not start at the same generators")
    return out, counts


def read(path, curve_name: str) -> GenericSRS:
    """The whole file (for tests and small SRSs)."""
    curve = get_curve(curve_name)
    out, _ = _read(path, curve, lambda name, count: count, check_subgroup=True)
    return GenericSRS(curve, out["g_alpha"], out["g_beta"], out["h_alpha"], out["h_beta"])


def _capacity(counts) -> int:
    return min(counts.values()) // 2


def read_prover_key(path, curve_name: str, n: int) -> ProverKey:
    """The prover key for aggregates of n proofs (n a power of two), reading
    only the powers it needs. Subgroup checks are skipped: the prover trusts
    its own SRS (a wrong one only yields aggregates that fail to verify)."""
    curve = get_curve(curve_name)

    def take(name, count):
        need = 2 * n if name.startswith("g") else n
        if count < 2 * n:
            raise SrsTooSmall(f"SRS {os.fspath(path)} is for at most {count // 2} proofs; {n} (padded) are needed")
        return need

    out, _ = _read(path, curve, take, check_subgroup=False)
    return _slice(curve, n, out["g_alpha"], out["g_beta"], out["h_alpha"], out["h_beta"])


def read_verifier_key(path, curve_name: str) -> VerifierKey:
    curve = get_curve(curve_name)
    out, counts = _read(path, curve, lambda name, count: 2, check_subgroup=True)
    return VerifierKey(curve, _capacity(counts), out["g_alpha"][0], out["h_alpha"][0], out["g_alpha"][1],
                       out["g_beta"][1], out["h_alpha"][1], out["h_beta"][1])


def prover_key(srs: GenericSRS, n: int) -> ProverKey:
    if n & (n - 1) or n < 2:
        raise ValueError("the number of proofs must be a power of two >= 2")
    if srs.max_proofs < n:
        raise SrsTooSmall(f"the SRS is for at most {srs.max_proofs} proofs; {n} (padded) are needed")
    return _slice(srs.curve, n, srs.g_alpha, srs.g_beta, srs.h_alpha, srs.h_beta)


def _slice(curve, n, g_alpha, g_beta, h_alpha, h_beta) -> ProverKey:
    return ProverKey(curve, n, v1=h_alpha[:n], v2=h_beta[:n], w1=g_alpha[n : 2 * n], w2=g_beta[n : 2 * n],
                     g_alpha=g_alpha[: 2 * n], g_beta=g_beta[: 2 * n], h_alpha=h_alpha[:n], h_beta=h_beta[:n])


def verifier_key(srs: GenericSRS) -> VerifierKey:
    return VerifierKey(srs.curve, srs.max_proofs, srs.g_alpha[0], srs.h_alpha[0], srs.g_alpha[1], srs.g_beta[1],
                       srs.h_alpha[1], srs.h_beta[1])
