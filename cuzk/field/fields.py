"""Vectorized field API over Montgomery limb arrays (docs/design.md section 2).

`PrimeField` works on `uint64[..., L]`, `QuadraticField` on
`uint64[..., 2, L]`. Python ints appear only in the conversion helpers,
which exist for parsing, tests and the CLI.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from .arithmetic_source import fq2_source, prime_field_source
from .codegen import build_module
from .params import BLS12_381_FQ, BLS12_381_FR, BN254_FQ, BN254_FR, FieldParams
from .threads import LIGHT_MIN_PARALLEL, threads_for

# (fr params, fq params, Fq2 non-residue xi for the Fq6 tower) per curve
CURVE_FIELDS = {
    "bls12_381": (BLS12_381_FR, BLS12_381_FQ, (1, 1)),
    "bn254": (BN254_FR, BN254_FQ, (9, 1)),
}


def field_source(curve: str) -> str:
    fr, fq, xi = CURVE_FIELDS[curve]
    return prime_field_source("fr", fr) + prime_field_source("fq", fq) + fq2_source("fq2", "fq", fq, xi)


@functools.cache
def field_kernels(curve: str):
    """The generated module holding fr_*, fq_*, fq2_* for `curve`."""
    return build_module(f"{curve}_field", field_source(curve))


# Up to this many elements, from_ints / to_ints convert in Python (a multiplication mod p each):
# the few values at the edges (a proof's points, the public signals, constants) then need no
# Montgomery kernel, which a one-shot command would otherwise load (or, on a first run, compile).
PYTHON_CONVERSION_MAX = 1024


def _as2d(x: np.ndarray, width: tuple[int, ...]):
    x = np.ascontiguousarray(x, dtype=np.uint64)
    if x.shape[-len(width):] != width:
        raise ValueError(f"expected trailing shape {width}, got {x.shape}")
    return x.reshape((-1,) + width), x.shape


def _exponent_limbs(e: int) -> np.ndarray:
    return np.array(
        [(e >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(max(1, (e.bit_length() + 63) // 64))],
        dtype=np.uint64,
    )


class _ElementwiseField:
    """The elementwise arithmetic PrimeField and QuadraticField share: each kernel maps
    `uint64[n, *element]` to `uint64[n, *element]`; a subclass names `element` and `_fn`."""

    element: tuple[int, ...]

    def _launch(self, name, a2, shape, *args):
        out = np.empty_like(a2)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn(name)(a2, *args, out)
        return out.reshape(shape)

    def _unary(self, name, a):
        a2, shape = _as2d(a, self.element)
        return self._launch(name, a2, shape)

    def add(self, a, b):
        return self._binary("vadd", a, b)

    def sub(self, a, b):
        return self._binary("vsub", a, b)

    def mul(self, a, b):
        return self._binary("vmul", a, b)

    def neg(self, a):
        return self._unary("vneg", a)

    def sqr(self, a):
        return self._unary("vsqr", a)

    def pow(self, a, e: int):
        a2, shape = _as2d(a, self.element)
        return self._launch("vpow", a2, shape, _exponent_limbs(e))

    def _sqrt(self, a):
        a2, shape = _as2d(a, self.element)
        out = np.empty_like(a2)
        ok = np.empty(a2.shape[0], dtype=np.bool_)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vsqrt")(a2, out, ok)
        return ok.reshape(shape[: -len(self.element)]), out.reshape(shape)


class PrimeField(_ElementwiseField):
    """A prime field with elements as little-endian Montgomery limbs."""

    def __init__(self, curve: str, prefix: str, params: FieldParams):
        self.curve = curve
        self.prefix = prefix
        self.params = params
        self.p = params.p
        self.limbs = params.limbs
        self.nbytes = params.nbytes

    def __repr__(self):
        return f"PrimeField({self.params.name})"

    @functools.cached_property
    def k(self):
        return field_kernels(self.curve)

    def _fn(self, name):
        return getattr(self.k, f"{self.prefix}_{name}")

    # ---- conversions (edges only) -------------------------------------
    def canonical_from_ints(self, values) -> np.ndarray:
        """uint64[n, L] canonical limbs; values must already be in [0, p)."""
        n8 = 8 * self.limbs
        values = list(values)
        buf = b"".join(int(v).to_bytes(n8, "little") for v in values)
        return np.frombuffer(buf, dtype="<u8").reshape(len(values), self.limbs).astype(np.uint64)

    def canonical_to_ints(self, arr: np.ndarray) -> list[int]:
        arr = np.ascontiguousarray(arr, dtype="<u8").reshape(-1, self.limbs)
        raw = arr.tobytes()
        n8 = 8 * self.limbs
        return [int.from_bytes(raw[i : i + n8], "little") for i in range(0, len(raw), n8)]

    def from_ints(self, values) -> np.ndarray:
        """Montgomery uint64[n, L] from ints (reduced mod p)."""
        values = [int(v) % self.p for v in values]
        if len(values) <= PYTHON_CONVERSION_MAX:
            return self.canonical_from_ints(v * self.params.R % self.p for v in values)
        return self.to_mont(self.canonical_from_ints(values))

    def from_int(self, value: int) -> np.ndarray:
        return self.from_ints([value])[0]

    def to_ints(self, arr: np.ndarray) -> list[int]:
        arr = np.asarray(arr)
        if arr.size <= PYTHON_CONVERSION_MAX * self.limbs:
            return [v * self._r_inverse % self.p for v in self.canonical_to_ints(arr)]
        return self.canonical_to_ints(self.from_mont(arr))

    @functools.cached_property
    def _r_inverse(self) -> int:
        return pow(self.params.R, -1, self.p)

    def to_int(self, arr: np.ndarray) -> int:
        return self.to_ints(np.asarray(arr).reshape(1, self.limbs))[0]

    def to_mont(self, canonical: np.ndarray) -> np.ndarray:
        return self._unary("vto_mont", canonical)

    def from_mont(self, mont: np.ndarray) -> np.ndarray:
        return self._unary("vfrom_mont", mont)

    def is_canonical(self, canonical: np.ndarray) -> np.ndarray:
        """bool[n]: limbs represent an integer < p."""
        a, shape = _as2d(canonical, (self.limbs,))
        p = np.array(self.params.to_limbs(self.p), dtype=np.uint64)
        lt = np.zeros(a.shape[0], dtype=bool)
        eq = np.ones(a.shape[0], dtype=bool)
        for i in reversed(range(self.limbs)):
            lt |= eq & (a[:, i] < p[i])
            eq &= a[:, i] == p[i]
        return lt.reshape(shape[:-1])

    def from_bytes(self, data: bytes | np.ndarray, byteorder: str = "little") -> np.ndarray:
        """Canonical big/little-endian encodings (nbytes each) -> Montgomery.

        Raises ValueError naming the first element that is not < p.
        """
        raw = np.frombuffer(bytes(data), dtype=np.uint8).reshape(-1, self.nbytes)
        if byteorder == "big":
            raw = raw[:, ::-1]
        padded = np.zeros((raw.shape[0], 8 * self.limbs), dtype=np.uint8)
        padded[:, : self.nbytes] = raw
        limbs = padded.view("<u8").astype(np.uint64)
        ok = self.is_canonical(limbs)
        if not ok.all():
            raise ValueError(f"{self.params.name}: element {int(np.argmin(ok))} is not canonical (>= p)")
        return self.to_mont(limbs)

    def to_bytes(self, mont: np.ndarray, byteorder: str = "little") -> bytes:
        c = np.ascontiguousarray(self.from_mont(mont), dtype="<u8").reshape(-1, self.limbs)
        raw = c.view(np.uint8).reshape(-1, 8 * self.limbs)[:, : self.nbytes]
        if byteorder == "big":
            raw = raw[:, ::-1]
        return np.ascontiguousarray(raw).tobytes()

    def random(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """n uniform elements (Montgomery form; uniform either way)."""
        rng = rng or np.random.default_rng()
        out = np.empty((n, self.limbs), dtype=np.uint64)
        top_bits = self.params.bits - 64 * (self.limbs - 1)
        filled = 0
        while filled < n:
            m = max(16, 2 * (n - filled))
            cand = rng.integers(0, 2**64, size=(m, self.limbs), dtype=np.uint64)
            cand[:, -1] &= np.uint64((1 << top_bits) - 1)
            cand = cand[self.is_canonical(cand)][: n - filled]
            out[filled : filled + len(cand)] = cand
            filled += len(cand)
        return out

    def zeros(self, n: int) -> np.ndarray:
        return np.zeros((n, self.limbs), dtype=np.uint64)

    def ones(self, n: int) -> np.ndarray:
        return np.tile(np.array(self.params.to_limbs(self.params.R), dtype=np.uint64), (n, 1))

    # ---- arithmetic ----------------------------------------------------
    @property
    def element(self):
        return (self.limbs,)

    def _binary(self, name, a, b):
        a2, shape = _as2d(a, (self.limbs,))
        b2, bshape = _as2d(b, (self.limbs,))
        if bshape != shape:
            a2, b2 = (
                np.ascontiguousarray(x.reshape(-1, self.limbs))
                for x in np.broadcast_arrays(a.reshape(shape), b.reshape(bshape))
            )
            shape = np.broadcast_shapes(shape, bshape)
        return self._launch(name, a2, shape, b2)

    def inv(self, a):
        """Batch inverse; zero maps to zero."""
        a2, shape = _as2d(a, (self.limbs,))
        out = np.empty_like(a2)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vinv")(a2, out, 8 * numba.get_num_threads())
        return out.reshape(shape)

    def sqrt(self, a):
        """(ok bool[...], root) with root**2 == a where ok (p = 3 mod 4 fields: the base fields)."""
        if self.p % 4 != 3:
            raise NotImplementedError(f"{self.params.name}: square roots are implemented for p = 3 mod 4 only")
        return self._sqrt(a)

    def lexicographically_largest(self, a) -> np.ndarray:
        """bool[...]: canonical(a) > (p-1)/2 (the zcash 'sort' flag)."""
        a2, shape = _as2d(a, (self.limbs,))
        out = np.empty(a2.shape[0], dtype=np.bool_)
        with threads_for(a2.shape[0], LIGHT_MIN_PARALLEL):
            self._fn("vcanon_gt_half")(a2, out)
        return out.reshape(shape[:-1])


class QuadraticField(_ElementwiseField):
    """Fq2 = Fq[u]/(u^2 + 1); elements are uint64[..., 2, L] (c0, c1)."""

    def __init__(self, base: PrimeField, xi: tuple[int, int]):
        self.base = base
        self.curve = base.curve
        self.limbs = base.limbs
        self.xi = xi
        self.p = base.p

    def __repr__(self):
        return f"QuadraticField({self.base.params.name}^2)"

    @property
    def k(self):
        return self.base.k

    def _fn(self, name):
        return getattr(self.k, f"fq2_{name}")

    def from_ints(self, pairs) -> np.ndarray:
        flat = [c for pair in pairs for c in pair]
        return self.base.from_ints(flat).reshape(-1, 2, self.limbs)

    def to_ints(self, arr) -> list[tuple[int, int]]:
        flat = self.base.to_ints(np.asarray(arr).reshape(-1, self.limbs))
        return list(zip(flat[0::2], flat[1::2]))

    def random(self, n, rng=None):
        return self.base.random(2 * n, rng).reshape(n, 2, self.limbs)

    def zeros(self, n):
        return np.zeros((n, 2, self.limbs), dtype=np.uint64)

    def ones(self, n):
        out = self.zeros(n)
        out[:, 0] = self.base.ones(n)
        return out

    @property
    def element(self):
        return (2, self.limbs)

    def _binary(self, name, a, b):
        a2, shape = _as2d(a, (2, self.limbs))
        b2, bshape = _as2d(b, (2, self.limbs))
        if bshape != shape:
            raise ValueError(f"shape mismatch {shape} vs {bshape}")
        return self._launch(name, a2, shape, b2)

    def inv(self, a):
        return self._unary("vinv", a)

    def sqrt(self, a):
        return self._sqrt(a)


@functools.cache
def fields_of(curve: str) -> tuple[PrimeField, PrimeField, QuadraticField]:
    fr_p, fq_p, xi = CURVE_FIELDS[curve]
    fq = PrimeField(curve, "fq", fq_p)
    return PrimeField(curve, "fr", fr_p), fq, QuadraticField(fq, xi)
