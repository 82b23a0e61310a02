"""Source of the Fq6/Fq12 tower kernels (fq6_*, fq12_*), emitted per curve.

In numba an Fq6 element is a tuple (c0, c1, c2) of Fq2 tuples and an Fq12
element a tuple (c0, c1) of Fq6 tuples, so values stay in registers and the
on-disk numba cache works (no global arrays).

Why the code is generated flat: numba compiles every dispatcher separately
and re-optimizes the whole callee closure in each caller, at roughly 30 ms
per tuple-passing call site on a small CI machine. A nested fq12 -> fq6 ->
fq2 hierarchy therefore compiles several times slower than one straight-line
function per Fq12 operation over the field module's Fq2 primitives, which
`emit_function` makes from the formulas of `tower_formulas`.
"""

from __future__ import annotations

import functools

import numpy as np

from .codegen import INTERNAL, Source, build_module, fill, index_paths, ladder, mont2_literal, nested
from .fields import CURVE_FIELDS, field_kernels
from .frobenius import frobenius_gammas
from .tower_formulas import (
    FlatFq2Code,
    Fq2Code,
    f6_add,
    f6_frob,
    f6_inv,
    f6_mul,
    f6_mul_by_v,
    f6_neg,
    f6_sqr,
    f6_sub,
    f12_conj,
    f12_cyc_sqr,
    f12_frob,
    f12_mul,
    f12_sqr,
)

# ---- function emission -------------------------------------------------------


def _unpack(s: Source, name: str, shape: str):
    """Emit the unpacking of parameter `name`; returns the variable names of its parts."""
    if shape == "fq12":
        v = tuple(tuple(f"{name}{j}{i}" for i in range(3)) for j in range(2))
        s(f"({', '.join(v[0])}), ({', '.join(v[1])}) = {name}")
        return v
    if shape in ("fq6", "g2"):  # g2: projective (X, Y, Z) over Fq2
        v = tuple(f"{name}{i}" for i in range(3))
        s(f"{', '.join(v)} = {name}")
        return v
    return name  # fq2 / fq: used whole


def _pack(v) -> str:
    if v is None:
        return "FQ2_ZERO"
    if isinstance(v, str):
        return v
    return "(" + ", ".join(_pack(x) for x in v) + ("," if len(v) == 1 else "") + ")"


def emit_function(name: str, params: list[tuple[str, str]], body, doc: str = "", flat: bool = False) -> str:
    """Source of a numba function computing body(Fq2Code, *unpacked params);
    params are (name, shape) with shape fq12, fq6, g2, fq2 or fq. flat: emit
    Fq operations (FlatFq2Code), for the hot Fq12 products."""
    e = FlatFq2Code() if flat else Fq2Code()
    with e.function(name, [p for p, _ in params], INTERNAL, doc):
        args = [_unpack(e, p, shape) for p, shape in params]
        e(f"return {_pack(body(e, *args))}")
    return e.text()


def frobenius_source(name: str, order: int, formula, gammas) -> str:
    """`{name}_frob(a, k)` = a^(p^k): one function, k reduced to steps of 3, 2, 1.

    A single dispatcher rather than one per power: each compiled function
    has a fixed numba cost that dominates for bodies this small."""
    e = Fq2Code()
    with e.function(f"{name}_frob", ("a", "k"), INTERNAL, "a^(p^k) for k >= 0."):
        e(f"k = k % {order}")
        with e.block("while k > 0"):
            for j, cond in ((3, "if k >= 3"), (2, "elif k == 2"), (1, "else")):
                with e.block(cond):
                    e.prefix, e.count = f"f{j}_", 0
                    r = formula(e, _unpack(e, "a", name), j, gammas[j])
                    e(f"a = {_pack(r)}", f"k -= {j}")
        e("return a")
    return e.text()


def array_access_source(name: str, dims: tuple[int, ...], L: int) -> str:
    """`{name}_load(arr, i)` / `{name}_store(arr, i, v)` for C-contiguous `uint64[n, *dims, L]`.

    Goes through the field module's fq_load/fq_store on a flat (n*c, L) view:
    one shared specialization, where nested fq2_load over sliced views or
    direct 5-index getitems compile slowly."""
    c = int(np.prod(dims))
    paths = index_paths(dims)
    flat = {q: k for k, q in enumerate(paths)}
    s = Source()
    view = (f"v = arr.reshape(arr.shape[0] * {c}, {L})", f"j = i * {c}")
    with s.function(f"{name}_load", ("arr", "i"), INTERNAL):
        s(*view)
        s("return " + nested(dims, lambda q: f"fq_load(v, j + {flat[q]})" if flat[q] else "fq_load(v, j)"))
    with s.function(f"{name}_store", ("arr", "i", "x"), INTERNAL):
        s(*view)
        s(*(f"fq_store(v, j + {k}, x{''.join(f'[{m}]' for m in q)})" for k, q in enumerate(paths)))
    return s.text()


# The array kernels of the Python API (not a hot path): one kernel per field with an op code, since
# numba re-optimizes each callee inside every caller, so one kernel compiles faster than one per operation.
# An op is an expression of x (the element; b's element: {n}_load(b, i)).
COMMON_OPS = ["{n}_add(x, {n}_load(b, i))", "{n}_sub(x, {n}_load(b, i))", "{n}_mul(x, {n}_load(b, i))", "{n}_neg(x)",
              "{n}_sqr(x)", "{n}_inv(x)", "{n}_frob(x, k)"]


def vop_source(n: str, extra_args: str, doc: str, ops: list[str]) -> str:
    """`{n}_vop(op, a, b, EXTRA_ARGS, out)`: out[i] = ops[op] applied to a[i] (and b[i])."""
    lines = ["@njit(cache=True)", f"def {n}_vop(op, a, b, {extra_args}, out):", f'    """{doc}"""',
             "    for i in range(a.shape[0]):", f"        x = {n}_load(a, i)"]
    for code, op in enumerate(ops):
        test = "else:" if code == len(ops) - 1 else f"{'if' if code == 0 else 'elif'} op == {code}:"
        lines += [f"        {test}", f"            r = {op.replace('{n}', n)}"]
    lines.append(f"        {n}_store(out, i, r)")
    return "\n".join(lines) + "\n\n"


def sparse_mul_source(slots: str, place, doc: str) -> str:
    """`fq12_mul_by_{slots}(a, c0, ..)`: a times the Fq12 element whose only non-zero Fq2 coefficients are
    the three arguments, at the places `place` puts them (a Miller loop's line values)."""
    params = [("a", "fq12")] + [(f"c{k}", "fq2") for k in slots]
    return emit_function(f"fq12_mul_by_{slots}", params, lambda e, a, *c: f12_mul(e, a, place(*c)), doc, flat=True)


def tower_source(curve: str) -> str:
    _, P, xi = CURVE_FIELDS[curve]
    gam = {j: frobenius_gammas(P.p, xi, j) for j in (1, 2, 3)}
    head = [f"FROB{j}_G{k} = {mont2_literal(gam[j][k], P)}" for j in (1, 2, 3) for k in range(1, 6)]
    F12, F6 = [("a", "fq12")], [("a", "fq6")]
    F12x2, F6x2 = [("a", "fq12"), ("b", "fq12")], [("a", "fq6"), ("b", "fq6")]
    fns = [
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
        emit_function("fq12_mul", F12x2, f12_mul, flat=True),
        emit_function("fq12_sqr", F12, f12_sqr, flat=True),
        emit_function("fq12_cyc_sqr", F12, f12_cyc_sqr, "Squaring in the cyclotomic subgroup only.", flat=True),
        sparse_mul_source("014", lambda c0, c1, c4: ((c0, c1, None), (None, c4, None)),
                          "a * (c0 + c1 w^2 + c4 w^3): a line of the M-twist."),
        sparse_mul_source("034", lambda c0, c3, c4: ((c0, None, None), (c3, c4, None)),
                          "a * (c0 + c3 w + c4 w^3): a line of the D-twist."),
        frobenius_source("fq12", 12, f12_frob, gam),
        frobenius_source("fq6", 6, f6_frob, gam),
        array_access_source("fq6", (3, 2), P.limbs),
        array_access_source("fq12", (2, 3, 2), P.limbs),
        ladder("fq12_pow_limbs", "FQ12_ONE", "fq12_sqr", "fq12_mul"),
        vop_source("fq6", "k", "op 0 add, 1 sub, 2 mul, 3 neg, 4 sqr, 5 inv, 6 frobenius^k, 7 mul by v.",
                   COMMON_OPS + ["fq6_mul_by_v(x)"]),
        vop_source("fq12", "k, e, digits", "op 0 add, 1 sub, 2 mul, 3 neg, 4 sqr, 5 inv, 6 frobenius^k, 7 conj,\n"
                   "    8 cyclotomic sqr, 9 pow (e: uint64 limbs), 10 cyclotomic pow (signed digits).",
                   COMMON_OPS + ["fq12_conj(x)", "fq12_cyc_sqr(x)", "fq12_pow_limbs(x, e)",
                                 "fq12_pow_digits(x, digits)"]),
    ]
    return "\n".join(head) + "\n" + fill(TOWER_TEMPLATE, INTERNAL=INTERNAL) + "\n" + "".join(fns)


TOWER_TEMPLATE = '''
FQ6_ZERO = (FQ2_ZERO, FQ2_ZERO, FQ2_ZERO)
FQ6_ONE = (FQ2_ONE, FQ2_ZERO, FQ2_ZERO)
FQ12_ZERO = (FQ6_ZERO, FQ6_ZERO)
FQ12_ONE = (FQ6_ONE, FQ6_ZERO)

{INTERNAL}
def fq6_eq(a, b):
    return fq2_eq(a[0], b[0]) and fq2_eq(a[1], b[1]) and fq2_eq(a[2], b[2])

{INTERNAL}
def fq12_eq(a, b):
    return fq6_eq(a[0], b[0]) and fq6_eq(a[1], b[1])

{INTERNAL}
def fq12_inv(a):
    """Inverse, zero to zero: conj(a) / N with the norm N = a conj(a) in Fq6.

    Reuses fq12_mul instead of a flat body: inversion is rare (once per
    final exponentiation) and every instruction here is compiled again in
    each kernel that calls it."""
    c = fq12_conj(a)
    return fq12_mul(c, (fq6_inv(fq12_mul(a, c)[0]), FQ6_ZERO))

{INTERNAL}
def fq12_pow_digits(x, digits):
    """x^e from e's signed digits, for x in the cyclotomic subgroup (where conj is the inverse)."""
    r = FQ12_ONE
    for d in digits:
        r = fq12_cyc_sqr(r)
        if d != 0:
            r = fq12_mul(r, x if d > 0 else fq12_conj(x))
    return r
'''


@functools.cache
def tower_kernels(curve: str):
    """The generated module holding fq6_*, fq12_* (and the field's names)."""
    fk = field_kernels(curve)
    return build_module(f"{curve}_tower", f"from {fk.__name__} import *\n" + tower_source(curve))
