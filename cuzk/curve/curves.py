"""The two pairing-friendly curves as values carrying their constants.

`BLS12_381` and `BN254` each hold Fr, Fq, Fq2 and the groups G1 (over Fq)
and G2 (over Fq2, the sextic twist). Kernels are generated from the one
template in group_source.py, specialized per curve and group.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba
import numpy as np

from cuzk.field import fields_of
from cuzk.field.codegen import build_module, limbs_literal, mont2_literal, mont_literal
from cuzk.field.fields import PrimeField, QuadraticField, field_kernels
from cuzk.field.fq2_ints import fq2_inv, fq2_mul
from cuzk.field.threads import LIGHT_MIN_PARALLEL, threads_for

from .group_source import group_source


@dataclass(frozen=True)
class CurveSpec:
    name: str
    g1_b: int
    g1_gen: tuple[int, int]
    g2_gen: tuple[tuple[int, int], tuple[int, int]]
    # x-coordinate parameter of the family (BLS: u; BN: u with 6u+2 the ate loop)
    param_u: int


SPECS = {
    "bls12_381": CurveSpec(
        "bls12_381",
        4,
        (
            0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
            0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1,
        ),
        (
            (
                0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
                0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E,
            ),
            (
                0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
                0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE,
            ),
        ),
        -0xD201000000010000,
    ),
    "bn254": CurveSpec(
        "bn254",
        3,
        (1, 2),
        (
            (
                10857046999023057135944570762232829481370756359578518086990519993285655852781,
                11559732032986387107991004021392285783925812861821192530917403151452391805634,
            ),
            (
                8495653923123431417604973247489272438418190587263600148770280649306958101930,
                4082367875863433681332203403145435568316851327593401208105741076214120093531,
            ),
        ),
        4965661367192848881,
    ),
}


def twist_b(spec: CurveSpec, p: int, xi: tuple[int, int]) -> tuple[int, int]:
    """b' of the sextic twist: b*xi for the M-twist (BLS12-381), b/xi for the D-twist (BN254)."""
    if spec.name == "bls12_381":
        return fq2_mul((spec.g1_b, 0), xi, p)
    return fq2_mul((spec.g1_b, 0), fq2_inv(xi, p), p)


def curve_source(curve: str) -> str:
    fr, fq, fq2 = fields_of(curve)
    spec = SPECS[curve]
    b2 = twist_b(spec, fq.p, fq2.xi)
    head = [
        f"from {field_kernels(curve).__name__} import *",
        f"G1_B = {mont_literal(spec.g1_b, fq.params)}",
        f"G2_B = {mont2_literal(b2, fq.params)}",
        f"FR_MODULUS = {limbs_literal(fr.p, fr.limbs)}",
    ]
    return "\n".join(head) + "\n" + group_source("g1", "fq") + group_source("g2", "fq2")


@functools.cache
def curve_kernels(curve: str):
    return build_module(f"{curve}_curve", curve_source(curve))


class Group:
    """G1 or G2 of a curve: vectorized operations on affine point arrays.

    Affine points are `uint64[n, 2, *coord]` where coord is (L,) for G1 and
    (2, L) for G2; internal XYZZ arrays are `uint64[n, 4, *coord]`.
    """

    def __init__(self, curve: str, name: str, field: PrimeField | QuadraticField, generator):
        self.curve = curve
        self.name = name  # "g1" | "g2"
        self.field = field
        self.coord = (field.limbs,) if name == "g1" else (2, field.limbs)
        self._generator = generator

    def __repr__(self):
        return f"{self.curve}.{self.name}"

    @functools.cached_property
    def k(self):
        return curve_kernels(self.curve)

    def _fn(self, name):
        return getattr(self.k, f"{self.name}_{name}")

    def _pts(self, a, width=2):
        a = np.ascontiguousarray(a, dtype=np.uint64)
        tail = (width,) + self.coord
        if a.shape[-len(tail):] != tail:
            raise ValueError(f"{self}: expected trailing shape {tail}, got {a.shape}")
        return a.reshape((-1,) + tail), a.shape

    # ---- constructors / conversions -------------------------------------
    @functools.cached_property
    def generator(self) -> np.ndarray:
        return self.from_ints([self._generator])[0]

    def identity(self, n: int = 1) -> np.ndarray:
        return np.zeros((n, 2) + self.coord, dtype=np.uint64)

    def from_ints(self, points) -> np.ndarray:
        """Affine points from coordinate ints; None means infinity.

        G1: [(x, y)]; G2: [((x0, x1), (y0, y1))]. No validation (see encoding)."""
        out = self.identity(len(points))
        for i, pt in enumerate(points):
            if pt is None:
                continue
            if self.name == "g1":
                out[i] = self.field.from_ints(pt)
            else:
                out[i] = self.field.from_ints(pt).reshape((2,) + self.coord)
        return out

    def to_ints(self, pts) -> list:
        pts, _ = self._pts(pts)
        res = []
        for p in pts:
            if not p.any():
                res.append(None)
            elif self.name == "g1":
                res.append(tuple(self.field.to_ints(p)))
            else:
                res.append(tuple(self.field.to_ints(p)))
        return res

    def to_affine(self, xyzz) -> np.ndarray:
        x, shape = self._pts(xyzz, 4)
        out = np.empty((x.shape[0], 2) + self.coord, dtype=np.uint64)
        with threads_for(x.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vto_affine")(x, out, 8 * numba.get_num_threads())
        return out.reshape(shape[:-len(self.coord) - 1] + (2,) + self.coord)

    # ---- group law -------------------------------------------------------
    def add(self, a, b) -> np.ndarray:
        a2, shape = self._pts(a)
        b2, _ = self._pts(b)
        tmp = np.empty((a2.shape[0], 4) + self.coord, dtype=np.uint64)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vadd")(a2, b2, tmp)
        return self.to_affine(tmp).reshape(shape)

    def double(self, a) -> np.ndarray:
        a2, shape = self._pts(a)
        tmp = np.empty((a2.shape[0], 4) + self.coord, dtype=np.uint64)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vdbl")(a2, tmp)
        return self.to_affine(tmp).reshape(shape)

    def neg(self, a) -> np.ndarray:
        a2, shape = self._pts(a)
        out = np.empty_like(a2)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vneg")(a2, out)
        return out.reshape(shape)

    def scalar_mul(self, a, scalars) -> np.ndarray:
        """[k_i] a_i for canonical scalars uint64[n, 4] (or Python ints)."""
        a2, shape = self._pts(a)
        k = self._scalars(scalars, a2.shape[0])
        tmp = np.empty((a2.shape[0], 4) + self.coord, dtype=np.uint64)
        with threads_for(256 * a2.shape[0]):  # ~256 group ops per point
            self._fn("vscalar_mul")(a2, k, tmp)
        return self.to_affine(tmp).reshape(shape)

    def _scalars(self, scalars, n):
        if isinstance(scalars, np.ndarray) and scalars.dtype == np.uint64:
            k = np.ascontiguousarray(scalars).reshape(-1, 4)
        else:
            ints = [int(s) for s in scalars]
            if any(s < 0 or s >> 256 for s in ints):
                raise ValueError("scalars must be in [0, 2^256)")
            k = np.frombuffer(b"".join(s.to_bytes(32, "little") for s in ints), dtype="<u8").reshape(-1, 4)
            k = k.astype(np.uint64)
        if k.shape[0] != n:
            raise ValueError(f"{n} points but {k.shape[0]} scalars")
        return k

    def is_on_curve(self, a) -> np.ndarray:
        a2, shape = self._pts(a)
        out = np.empty(a2.shape[0], dtype=np.bool_)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vis_on_curve")(a2, out)
        return out.reshape(shape[: -len(self.coord) - 1])

    def is_in_subgroup(self, a) -> np.ndarray:
        """[r]P == O (P assumed on the curve)."""
        a2, shape = self._pts(a)
        tmp = np.empty((a2.shape[0], 4) + self.coord, dtype=np.uint64)
        with threads_for(256 * a2.shape[0]):
            self._fn("vmul_order")(a2, tmp)
        out = np.empty(a2.shape[0], dtype=np.bool_)
        with threads_for(tmp.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vxyzz_is_zero")(tmp, out)
        return out.reshape(shape[: -len(self.coord) - 1])

    def random(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """n random subgroup points ([k] generator for uniform k)."""
        fr = fields_of(self.curve)[0]
        k = fr.from_mont(fr.random(n, rng))
        return self.scalar_mul(np.broadcast_to(self.generator, (n,) + self.generator.shape), k)

    def equal(self, a, b) -> np.ndarray:
        a2, shape = self._pts(a)
        b2, _ = self._pts(b)
        return (a2 == b2).reshape(a2.shape[0], -1).all(axis=1).reshape(shape[: -len(self.coord) - 1])


class Curve:
    """A pairing-friendly curve: its fields and groups."""

    def __init__(self, name: str):
        self.name = name
        self.spec = SPECS[name]
        self.fr, self.fq, self.fq2 = fields_of(name)
        self.g1 = Group(name, "g1", self.fq, self.spec.g1_gen)
        self.g2 = Group(name, "g2", self.fq2, self.spec.g2_gen)

    def __repr__(self):
        return f"Curve({self.name})"


BLS12_381 = Curve("bls12_381")
BN254 = Curve("bn254")
CURVES = {"bls12_381": BLS12_381, "bn254": BN254}


def get_curve(name: str) -> Curve:
    key = name.lower().replace("-", "_").replace("bn128", "bn254").replace("bls12381", "bls12_381")
    try:
        return CURVES[key]
    except KeyError:
        raise ValueError(f"unknown curve {name!r}; expected one of {sorted(CURVES)}") from None
