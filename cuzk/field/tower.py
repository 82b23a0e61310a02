"""The pairing tower Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v).

In numba an Fq6 element is a tuple (c0, c1, c2) of Fq2 tuples and an Fq12
element a tuple (c0, c1) of Fq6 tuples, so values stay in registers and the
on-disk numba cache works (no global arrays).

Why the code is generated flat: numba compiles every dispatcher separately
and re-optimizes the whole callee closure in each caller, at roughly 30 ms
per tuple-passing call site on a small CI machine. A nested fq12 -> fq6 ->
fq2 hierarchy therefore compiles several times slower than one straight-line
function per Fq12 operation over the field module's Fq2 primitives. The
formulas below are written once in Python over an `Emitter` that records
Fq2 operations (None is a known zero, which turns the generic Karatsuba
product into the sparse line multiplications for free) and the same
formulas are emitted for both curves.

Array layout (Montgomery limbs, like Fq2's `uint64[..., 2, L]`):
  Fq6:  `uint64[..., 3, 2, L]`     a[..., i, k]    = part k of c_i (times v^i)
  Fq12: `uint64[..., 2, 3, 2, L]`  a[..., j, i, k] = part k of c_j.c_i,
                                   the coefficient of w^(2i+j).
The "poly" basis 1, w, ..., w^11 over Fq with w^6 = xi (py_ecc's FQ12)
maps to the tower by u = w^6 - xi0.

Frobenius coefficients are derived from the modulus at generation time:
(c w^k)^(p^j) = frob_j(c) * gamma_j^k * w^k with gamma_j = xi^((p^j - 1)/6).
"""

from __future__ import annotations

import functools

import numpy as np

from .codegen import _t, _u64
from .fields import CURVE_FIELDS, _as2d, field_kernels, fields_of
from .jit import build_module

# decorator of internal (numba-only) functions: no CPython wrapper to build
NJIT = "@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)"


# ---- Python-int Fq2 helpers (generation time only) ------------------------


def f2_mul_int(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def f2_pow_int(a, e, p):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2_mul_int(r, a, p)
        a = f2_mul_int(a, a, p)
        e >>= 1
    return r


def frobenius_gammas(p: int, xi: tuple[int, int], j: int) -> list[tuple[int, int]]:
    """gamma_j^k = xi^(k (p^j - 1) / 6) for k = 0..5 (Fq2 ints)."""
    assert (p**j - 1) % 6 == 0
    g = f2_pow_int(xi, (p**j - 1) // 6, p)
    out = [(1, 0)]
    for _ in range(5):
        out.append(f2_mul_int(out[-1], g, p))
    return out


def mont_fq(x: int, P) -> str:
    return _t([_u64(v) for v in P.to_limbs(x % P.p * P.R % P.p)])


def mont_fq2(c, P) -> str:
    return f"({mont_fq(c[0], P)}, {mont_fq(c[1], P)})"


def naf(e: int) -> tuple[int, ...]:
    """Non-adjacent form of e >= 0, most significant digit first."""
    digits = []
    while e:
        d = (2 - (e & 3)) if e & 1 else 0
        e -= d
        digits.append(d)
        e >>= 1
    return tuple(reversed(digits))


# ---- straight-line code emitter ---------------------------------------------


class Emitter:
    """Records Fq2 operations as numba source lines; values are variable names.

    None stands for a known zero and is propagated (x*0 = 0, x+0 = x), so a
    product with a sparse operand emits only the multiplications it needs.
    """

    def __init__(self, indent: str = "    ", prefix: str = "t"):
        self.lines: list[str] = []
        self.n = 0
        self.indent = indent
        self.prefix = prefix

    def let(self, expr: str) -> str:
        name = f"{self.prefix}{self.n}"
        self.n += 1
        self.lines.append(f"{self.indent}{name} = {expr}")
        return name

    def add(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self.let(f"fq2_add({a}, {b})")

    def sub(self, a, b):
        if b is None:
            return a
        if a is None:
            return self.neg(b)
        return self.let(f"fq2_sub({a}, {b})")

    def _un(self, fn, a):
        return None if a is None else self.let(f"{fn}({a})")

    def neg(self, a):
        return self._un("fq2_neg", a)

    def dbl(self, a):
        return self._un("fq2_dbl", a)

    def sqr(self, a):
        return self._un("fq2_sqr", a)

    def xi(self, a):
        return self._un("fq2_mul_xi", a)

    def conj(self, a):
        return self._un("fq2_conj", a)

    def inv(self, a):
        return self._un("fq2_inv", a)

    def mul(self, a, b):
        if a is None or b is None:
            return None
        return self.let(f"fq2_mul({a}, {b})")

    def mul_fq(self, a, s: str):
        """a * s for an Fq expression s."""
        return None if a is None else self.let(f"fq2_mul_fq({a}, {s})")

    def mul_const(self, a, c: tuple[int, int], name: str):
        """a * c for a constant c (ints) bound to the module constant `name`."""
        if a is None or c == (0, 0):
            return None
        if c == (1, 0):
            return a
        if c[1] == 0:
            return self.mul_fq(a, f"{name}[0]")
        return self.let(f"fq2_mul({a}, {name})")


# ---- tower formulas (written once, emitted per curve) ---------------------


def f6_add(e, a, b):
    return tuple(e.add(x, y) for x, y in zip(a, b))


def f6_sub(e, a, b):
    return tuple(e.sub(x, y) for x, y in zip(a, b))


def f6_neg(e, a):
    return tuple(e.neg(x) for x in a)


def f6_mul_by_v(e, a):
    return (e.xi(a[2]), a[0], a[1])


def f6_mul(e, a, b):
    """Karatsuba: 6 Fq2 products (fewer for sparse operands)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    t0, t1, t2 = e.mul(a0, b0), e.mul(a1, b1), e.mul(a2, b2)
    s12 = e.sub(e.sub(e.mul(e.add(a1, a2), e.add(b1, b2)), t1), t2)
    s01 = e.sub(e.sub(e.mul(e.add(a0, a1), e.add(b0, b1)), t0), t1)
    s02 = e.sub(e.sub(e.mul(e.add(a0, a2), e.add(b0, b2)), t0), t2)
    return (e.add(e.xi(s12), t0), e.add(s01, e.xi(t2)), e.add(s02, t1))


def f6_sqr(e, a):
    """Chung-Hasan SQR2: 2 products + 3 squarings."""
    a0, a1, a2 = a
    s0 = e.sqr(a0)
    s1 = e.dbl(e.mul(a0, a1))
    s2 = e.sqr(e.add(e.sub(a0, a1), a2))
    s3 = e.dbl(e.mul(a1, a2))
    s4 = e.sqr(a2)
    c2 = e.sub(e.sub(e.add(e.add(s1, s2), s3), s0), s4)
    return (e.add(s0, e.xi(s3)), e.add(s1, e.xi(s4)), c2)


def f6_inv(e, a):
    a0, a1, a2 = a
    c0 = e.sub(e.sqr(a0), e.xi(e.mul(a1, a2)))
    c1 = e.sub(e.xi(e.sqr(a2)), e.mul(a0, a1))
    c2 = e.sub(e.sqr(a1), e.mul(a0, a2))
    t = e.inv(e.add(e.mul(a0, c0), e.xi(e.add(e.mul(a2, c1), e.mul(a1, c2)))))
    return (e.mul(c0, t), e.mul(c1, t), e.mul(c2, t))


def f12_mul(e, a, b):
    """Karatsuba over Fq6: 18 Fq2 products, 13 against a line."""
    t0 = f6_mul(e, a[0], b[0])
    t1 = f6_mul(e, a[1], b[1])
    c1 = f6_sub(e, f6_sub(e, f6_mul(e, f6_add(e, a[0], a[1]), f6_add(e, b[0], b[1])), t0), t1)
    return (f6_add(e, t0, f6_mul_by_v(e, t1)), c1)


def f12_sqr(e, a):
    """Complex squaring: 2 Fq6 products."""
    a0, a1 = a
    ab = f6_mul(e, a0, a1)
    c0 = f6_mul(e, f6_add(e, a0, a1), f6_add(e, a0, f6_mul_by_v(e, a1)))
    c0 = f6_sub(e, f6_sub(e, c0, ab), f6_mul_by_v(e, ab))
    return (c0, f6_add(e, ab, ab))


def f12_conj(e, a):
    return (a[0], f6_neg(e, a[1]))


def _fq4_sqr(e, a, b):
    """(a + b s)^2 in Fq4 = Fq2[s]/(s^2 - xi)."""
    t0, t1 = e.sqr(a), e.sqr(b)
    return e.add(e.xi(t1), t0), e.sub(e.sub(e.sqr(e.add(a, b)), t0), t1)


def f12_cyc_sqr(e, f):
    """Granger-Scott squaring; valid in the cyclotomic subgroup only."""
    (z0, z4, z3), (z2, z1, z5) = f
    t0, t1 = _fq4_sqr(e, z0, z1)
    z0 = e.add(e.dbl(e.sub(t0, z0)), t0)
    z1 = e.add(e.dbl(e.add(t1, z1)), t1)
    t0, t1 = _fq4_sqr(e, z2, z3)
    t2, t3 = _fq4_sqr(e, z4, z5)
    z4 = e.add(e.dbl(e.sub(t0, z4)), t0)
    z5 = e.add(e.dbl(e.add(t1, z5)), t1)
    t0 = e.xi(t3)
    z2 = e.add(e.dbl(e.add(t0, z2)), t0)
    z3 = e.add(e.dbl(e.sub(t2, z3)), t2)
    return ((z0, z4, z3), (z2, z1, z5))


def f12_frob(e, a, j, gammas):
    """a^(p^j); gammas = frobenius_gammas(p, xi, j)."""
    def c(x, k):
        x = e.conj(x) if j % 2 else x
        return e.mul_const(x, gammas[k], f"FROB{j}_G{k}")

    return (tuple(c(a[0][i], 2 * i) for i in range(3)), tuple(c(a[1][i], 2 * i + 1) for i in range(3)))


def f6_frob(e, a, j, gammas):
    """a^(p^j) in Fq6 (v = w^2)."""
    return f12_frob(e, (a, (None,) * 3), j, gammas)[0]


# ---- function emission -------------------------------------------------------

FQ12_VARS = lambda s: ((f"{s}00", f"{s}01", f"{s}02"), (f"{s}10", f"{s}11", f"{s}12"))  # noqa: E731
FQ6_VARS = lambda s: (f"{s}0", f"{s}1", f"{s}2")  # noqa: E731


def _unpack(name, shape):
    if shape == "fq12":
        v = FQ12_VARS(name)
        return v, f"    ({', '.join(v[0])}), ({', '.join(v[1])}) = {name}"
    if shape in ("fq6", "g2"):  # g2: projective (X, Y, Z) over Fq2
        v = FQ6_VARS(name)
        return v, f"    {', '.join(v)} = {name}"
    return name, None  # fq2 / fq: used whole


def _pack(v) -> str:
    if v is None:
        return "FQ2_ZERO"
    if isinstance(v, str):
        return v
    return "(" + ", ".join(_pack(x) for x in v) + ("," if len(v) == 1 else "") + ")"


def emit_function(name: str, params: list[tuple[str, str]], body, doc: str = "") -> str:
    """Source of an njit function computing body(emitter, *unpacked params)."""
    e = Emitter()
    head, args = [], []
    for pname, shape in params:
        v, line = _unpack(pname, shape)
        args.append(v)
        if line:
            head.append(line)
    result = body(e, *args)
    lines = [NJIT, f"def {name}({', '.join(p for p, _ in params)}):"]
    if doc:
        lines.append(f'    """{doc}"""')
    lines += head + e.lines + [f"    return {_pack(result)}", "", ""]
    return "\n".join(lines)


def frobenius_source(name: str, order: int, formula, gammas) -> str:
    """`{name}_frob(a, k)` = a^(p^k): one function, k reduced to steps of 3, 2, 1.

    A single dispatcher rather than one per power: each compiled function
    has a fixed numba cost that dominates for bodies this small."""
    shape = name  # "fq12" | "fq6"
    v, unpack = _unpack("a", shape)
    lines = [NJIT, f"def {name}_frob(a, k):", '    """a^(p^k) for k >= 0."""', f"    k = k % {order}", "    while k > 0:"]
    for j, cond in ((3, "if k >= 3"), (2, "elif k == 2"), (1, "else")):
        e = Emitter(indent=" " * 12, prefix=f"f{j}_")
        r = formula(e, v, j, gammas[j])
        lines += [f"        {cond}:", " " * 12 + unpack.strip()]
        lines += e.lines + [f"            a = {_pack(r)}", f"            k -= {j}"]
    return "\n".join(lines + ["    return a", "", ""])


def array_access_source(name: str, dims: tuple[int, ...], L: int) -> str:
    """`{name}_load(arr, i)` / `{name}_store(arr, i, v)` for C-contiguous `uint64[n, *dims, L]`.

    Goes through the field module's fq_load/fq_store on a flat (n*c, L) view:
    one shared specialization, where nested fq2_load over sliced views or
    direct 5-index getitems compile slowly."""
    c = int(np.prod(dims))

    def nest(k, d):
        if d == len(dims):
            return f"fq_load(v, j + {k})" if k else "fq_load(v, j)"
        step = int(np.prod(dims[d + 1 :]))
        return _t([nest(k + m * step, d + 1) for m in range(dims[d])])

    def paths(d, prefix):
        if d == len(dims):
            return [prefix]
        return [q for m in range(dims[d]) for q in paths(d + 1, prefix + (m,))]

    view = [f"    v = arr.reshape(arr.shape[0] * {c}, {L})", f"    j = i * {c}"]
    store = [f"    fq_store(v, j + {k}, x{''.join(f'[{m}]' for m in q)})" for k, q in enumerate(paths(0, ()))]
    return "\n".join(
        [NJIT, f"def {name}_load(arr, i):"] + view + [f"    return {nest(0, 0)}", "", NJIT, f"def {name}_store(arr, i, x):"]
        + view + store + ["", ""]
    )


def tower_source(curve: str) -> str:
    _, P, xi = CURVE_FIELDS[curve]
    head, fns = [], []
    gam = {j: frobenius_gammas(P.p, xi, j) for j in (1, 2, 3)}
    for j in (1, 2, 3):
        for k in range(1, 6):
            head.append(f"FROB{j}_G{k} = {mont_fq2(gam[j][k], P)}")
    F12, F6 = [("a", "fq12")], [("a", "fq6")]
    F12x2, F6x2 = [("a", "fq12"), ("b", "fq12")], [("a", "fq6"), ("b", "fq6")]
    fns += [
        emit_function("fq6_add", F6x2, f6_add),
        emit_function("fq6_sub", F6x2, f6_sub),
        emit_function("fq6_neg", F6, f6_neg),
        emit_function("fq6_mul_by_v", F6, f6_mul_by_v),
        emit_function("fq6_mul", F6x2, f6_mul),
        emit_function("fq6_sqr", F6, f6_sqr),
        emit_function("fq6_inv", F6, f6_inv, "Inverse; zero maps to zero."),
        emit_function("fq12_add", F12x2, lambda e, a, b: (f6_add(e, a[0], b[0]), f6_add(e, a[1], b[1]))),
        emit_function("fq12_sub", F12x2, lambda e, a, b: (f6_sub(e, a[0], b[0]), f6_sub(e, a[1], b[1]))),
        emit_function("fq12_neg", F12, lambda e, a: (f6_neg(e, a[0]), f6_neg(e, a[1]))),
        emit_function("fq12_conj", F12, f12_conj, "a^(p^6): the inverse once a is unitary."),
        emit_function("fq12_mul", F12x2, f12_mul),
        emit_function("fq12_sqr", F12, f12_sqr),
        emit_function("fq12_cyc_sqr", F12, f12_cyc_sqr, "Squaring in the cyclotomic subgroup only."),
        emit_function(
            "fq12_mul_by_014",
            [("a", "fq12"), ("c0", "fq2"), ("c1", "fq2"), ("c4", "fq2")],
            lambda e, a, c0, c1, c4: f12_mul(e, a, ((c0, c1, None), (None, c4, None))),
            "a * (c0 + c1 w^2 + c4 w^3): a line of the M-twist.",
        ),
        emit_function(
            "fq12_mul_by_034",
            [("a", "fq12"), ("c0", "fq2"), ("c3", "fq2"), ("c4", "fq2")],
            lambda e, a, c0, c3, c4: f12_mul(e, a, ((c0, None, None), (c3, c4, None))),
            "a * (c0 + c3 w + c4 w^3): a line of the D-twist.",
        ),
    ]
    fns.append(frobenius_source("fq12", 12, f12_frob, gam))
    fns.append(frobenius_source("fq6", 6, f6_frob, gam))
    fns.append(array_access_source("fq6", (3, 2), P.limbs))
    fns.append(array_access_source("fq12", (2, 3, 2), P.limbs))
    return "\n".join(head) + "\n" + TOWER_TEMPLATE.replace("{NJIT}", NJIT) + "\n" + "".join(fns)


TOWER_TEMPLATE = '''
FQ6_ZERO = (FQ2_ZERO, FQ2_ZERO, FQ2_ZERO)
FQ6_ONE = (FQ2_ONE, FQ2_ZERO, FQ2_ZERO)
FQ12_ZERO = (FQ6_ZERO, FQ6_ZERO)
FQ12_ONE = (FQ6_ONE, FQ6_ZERO)

{NJIT}
def fq6_eq(a, b):
    return fq2_eq(a[0], b[0]) and fq2_eq(a[1], b[1]) and fq2_eq(a[2], b[2])

{NJIT}
def fq12_eq(a, b):
    return fq6_eq(a[0], b[0]) and fq6_eq(a[1], b[1])

{NJIT}
def fq12_inv(a):
    """Inverse, zero to zero: conj(a) / N with the norm N = a conj(a) in Fq6.

    Reuses fq12_mul instead of a flat body: inversion is rare (once per
    final exponentiation) and every instruction here is compiled again in
    each kernel that calls it."""
    c = fq12_conj(a)
    return fq12_mul(c, (fq6_inv(fq12_mul(a, c)[0]), FQ6_ZERO))

# ---- array kernels of the Python API (not a hot path) ----
# One kernel per field with an op code: numba re-optimizes each callee inside
# every caller, so one kernel compiles faster than one per operation.

@njit(cache=True)
def fq6_vop(op, a, b, k, out):
    """op 0 add, 1 sub, 2 mul, 3 neg, 4 sqr, 5 inv, 6 frobenius^k, 7 mul by v."""
    for i in range(a.shape[0]):
        x = fq6_load(a, i)
        if op == 0:
            r = fq6_add(x, fq6_load(b, i))
        elif op == 1:
            r = fq6_sub(x, fq6_load(b, i))
        elif op == 2:
            r = fq6_mul(x, fq6_load(b, i))
        elif op == 3:
            r = fq6_neg(x)
        elif op == 4:
            r = fq6_sqr(x)
        elif op == 5:
            r = fq6_inv(x)
        elif op == 6:
            r = fq6_frob(x, k)
        else:
            r = fq6_mul_by_v(x)
        fq6_store(out, i, r)

@njit(cache=True)
def fq12_vop(op, a, b, k, e, digits, out):
    """op 0 add, 1 sub, 2 mul, 3 neg, 4 sqr, 5 inv, 6 frobenius^k, 7 conj,
    8 cyclotomic sqr, 9 pow (e: uint64 limbs), 10 cyclotomic pow (signed digits)."""
    for i in range(a.shape[0]):
        x = fq12_load(a, i)
        if op == 0:
            r = fq12_add(x, fq12_load(b, i))
        elif op == 1:
            r = fq12_sub(x, fq12_load(b, i))
        elif op == 2:
            r = fq12_mul(x, fq12_load(b, i))
        elif op == 3:
            r = fq12_neg(x)
        elif op == 4:
            r = fq12_sqr(x)
        elif op == 5:
            r = fq12_inv(x)
        elif op == 6:
            r = fq12_frob(x, k)
        elif op == 7:
            r = fq12_conj(x)
        elif op == 8:
            r = fq12_cyc_sqr(x)
        elif op == 9:  # square-and-multiply over the limbs of e
            r = FQ12_ONE
            for j in range(len(e) * 64 - 1, -1, -1):
                r = fq12_sqr(r)
                if (e[j >> 6] >> np.uint64(j & 63)) & ONE64:
                    r = fq12_mul(r, x)
        else:  # signed digits, cyclotomic subgroup: conj is the inverse
            r = FQ12_ONE
            for d in digits:
                r = fq12_cyc_sqr(r)
                if d != 0:
                    r = fq12_mul(r, x if d > 0 else fq12_conj(x))
        fq12_store(out, i, r)
'''


@functools.cache
def tower_kernels(curve: str):
    """The generated module holding fq6_*, fq12_* (and the field's names)."""
    fk = field_kernels(curve)
    return build_module(f"{curve}_tower", f"from {fk.__name__} import *\n" + tower_source(curve))


# ---- vectorized Python API ---------------------------------------------------


class _Ext:
    """Shared code of the Fq6 / Fq12 array APIs (element shape `self.shape`)."""

    degree: int  # over Fq2
    shape_tail: tuple[int, ...]

    def __init__(self, curve: str):
        self.curve = curve
        _, self.fq, self.fq2 = fields_of(curve)
        self.limbs = self.fq.limbs
        self.p = self.fq.p
        self.xi = self.fq2.xi
        self.shape = self.shape_tail + (2, self.limbs)

    def __repr__(self):
        return f"{type(self).__name__}({self.curve})"

    @property
    def k(self):
        return tower_kernels(self.curve)

    # ---- conversions (edges only) --------------------------------------
    def from_ints(self, elems) -> np.ndarray:
        """Elements as flat int sequences in layout order (2*degree Fq ints each)."""
        flat = []
        for e in elems:
            e = tuple(e)
            if len(e) != 2 * self.degree:
                raise ValueError(f"expected {2 * self.degree} ints per element, got {len(e)}")
            flat.extend(int(c) for c in e)
        return self.fq.from_ints(flat).reshape((-1,) + self.shape)

    def to_ints(self, arr) -> list[tuple[int, ...]]:
        flat = self.fq.to_ints(np.asarray(arr).reshape(-1, self.limbs))
        n = 2 * self.degree
        return [tuple(flat[i : i + n]) for i in range(0, len(flat), n)]

    def zeros(self, n: int) -> np.ndarray:
        return np.zeros((n,) + self.shape, dtype=np.uint64)

    def ones(self, n: int) -> np.ndarray:
        out = self.zeros(n).reshape(n, -1, self.limbs)
        out[:, 0] = self.fq.ones(n)
        return out.reshape((n,) + self.shape)

    def random(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        return self.fq.random(2 * self.degree * n, rng).reshape((n,) + self.shape)

    def equal(self, a, b) -> np.ndarray:
        a2, shape = _as2d(a, self.shape)
        b2, _ = _as2d(b, self.shape)
        return (a2 == b2).reshape(a2.shape[0], -1).all(axis=1).reshape(shape[: -len(self.shape)])

    def is_one(self, a) -> np.ndarray:
        a2, shape = _as2d(a, self.shape)
        return self.equal(a2, self.ones(a2.shape[0])).reshape(shape[: -len(self.shape)])

    # ---- arithmetic -----------------------------------------------------
    def _op(self, op, a, b=None, k=0, **extra):
        a2, shape = _as2d(a, self.shape)
        if b is None:
            b2 = a2
        else:
            b2, bshape = _as2d(b, self.shape)
            if bshape != shape:
                raise ValueError(f"shape mismatch {shape} vs {bshape}")
        out = np.empty_like(a2)
        self._call(op, a2, b2, int(k), out, **extra)
        return out.reshape(shape)

    def add(self, a, b):
        return self._op(0, a, b)

    def sub(self, a, b):
        return self._op(1, a, b)

    def mul(self, a, b):
        return self._op(2, a, b)

    def neg(self, a):
        return self._op(3, a)

    def sqr(self, a):
        return self._op(4, a)

    def inv(self, a):
        """Inverse; zero maps to zero."""
        return self._op(5, a)

    def frobenius(self, a, k: int = 1):
        """a^(p^k), k >= 0."""
        if k < 0:
            raise ValueError("k must be >= 0")
        return self._op(6, a, k=k)


class Fq6Field(_Ext):
    """Fq6 = Fq2[v]/(v^3 - xi); elements `uint64[..., 3, 2, L]`.

    from_ints/to_ints order: (c0.0, c0.1, c1.0, c1.1, c2.0, c2.1)."""

    degree = 3
    shape_tail = (3,)

    def _call(self, op, a, b, k, out):
        self.k.fq6_vop(op, a, b, k, out)

    def mul_by_v(self, a):
        return self._op(7, a)


class Fq12Field(_Ext):
    """Fq12 = Fq6[w]/(w^2 - v); elements `uint64[..., 2, 3, 2, L]`.

    from_ints/to_ints order is the layout order: the Fq6 c0 (as in Fq6Field)
    then c1; component (j, i, k) is part k of the coefficient of w^(2i+j)."""

    degree = 6
    shape_tail = (2, 3)

    _NO_E = np.zeros(1, dtype=np.uint64)
    _NO_DIGITS = np.zeros(1, dtype=np.int64)

    def _call(self, op, a, b, k, out, e=_NO_E, digits=_NO_DIGITS):
        self.k.fq12_vop(op, a, b, k, e, digits, out)

    def conj(self, a):
        """a^(p^6)."""
        return self._op(7, a)

    def cyclotomic_sqr(self, a):
        """a^2 for a in the cyclotomic subgroup (wrong elsewhere)."""
        return self._op(8, a)

    def pow(self, a, e: int):
        """a^e for any element (plain square-and-multiply); e < 0 inverts first."""
        if e < 0:
            return self.pow(self.inv(a), -e)
        nl = max(1, (e.bit_length() + 63) // 64)
        limbs = np.array([(e >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(nl)], dtype=np.uint64)
        return self._op(9, a, e=limbs)

    def cyclotomic_pow(self, a, e: int):
        """a^e (e may be negative) for a in the cyclotomic subgroup."""
        digits = naf(abs(e)) or (0,)
        if e < 0:
            digits = tuple(-d for d in digits)
        return self._op(10, a, digits=np.array(digits, dtype=np.int64))

    # ---- the polynomial basis 1, w, ..., w^11 over Fq (py_ecc's FQ12) ----
    def to_poly_ints(self, arr) -> list[tuple[int, ...]]:
        """Coefficients of 1, w, ..., w^11 (w^6 = xi, u = w^6 - xi0)."""
        p, x0 = self.p, self.xi[0]
        out = []
        for e in self.to_ints(arr):
            co = [0] * 12
            for j in range(2):
                for i in range(3):
                    a, b = e[6 * j + 2 * i], e[6 * j + 2 * i + 1]
                    co[2 * i + j] = (a - x0 * b) % p
                    co[2 * i + j + 6] = b
            out.append(tuple(co))
        return out

    def from_poly_ints(self, polys) -> np.ndarray:
        """Inverse of to_poly_ints."""
        p, x0 = self.p, self.xi[0]
        elems = []
        for co in polys:
            co = [int(c) % p for c in co]
            if len(co) != 12:
                raise ValueError("expected 12 coefficients")
            e = [0] * 12
            for j in range(2):
                for i in range(3):
                    b = co[2 * i + j + 6]
                    e[6 * j + 2 * i] = (co[2 * i + j] + x0 * b) % p
                    e[6 * j + 2 * i + 1] = b
            elems.append(e)
        return self.from_ints(elems)


@functools.cache
def towers_of(curve: str) -> tuple[Fq6Field, Fq12Field]:
    return Fq6Field(curve), Fq12Field(curve)
