"""Source of the field arithmetic: Montgomery Fp unrolled per limb count, and Fq2.

Each field gets scalar functions on limb tuples (values stay in registers;
LLVM inlines them into the kernels) and parallel array kernels over
`uint64[n, L]` (Fq2: `uint64[n, 2, L]`). Written once; `prefix` names the
field in the generated module (e.g. `fr`, `fq`) so one module holds several.
"""

from __future__ import annotations

from .codegen import (
    INTERNAL,
    Source,
    batch_inverse,
    elementwise,
    fill,
    ladder,
    limbs_literal,
    mont_literal,
    tuple_of,
    u64,
)
from .params import FieldParams


def prime_field_source(f: str, P: FieldParams) -> str:
    """Fp with prefix `f`: constants {F}_*, scalar functions {f}_*, kernels {f}_v*."""
    L = P.limbs
    F = f.upper()
    a, b, t, d = ([f"{x}{i}" for i in range(L)] for x in "abtd")
    p = [f"{F}_P{i}" for i in range(L)]
    s = Source()
    s(*(f"{F}_P{i} = {u64(limb)}" for i, limb in enumerate(P.to_limbs(P.p))))
    s(f"{F}_INV = {u64(P.inv)}", f"{F}_L = {L}")
    for name, x in (("ZERO", 0), ("ONE", P.R), ("R2", P.R2), ("RAW1", 1), ("PM2", P.p - 2),
                    ("SQRT_EXP", (P.p + 1) // 4), ("HALF", (P.p - 1) // 2)):
        s(f"{F}_{name} = {limbs_literal(x, L)}")
    s("")

    def unpack():
        s(f"{', '.join(a)} = a", f"{', '.join(b)} = b")

    def chain(op, x, y, out, flag):
        """out_i, flag = op(x_i, y_i, flag of the limb below)."""
        s(*(f"{out[i]}, {flag} = {op}({x[i]}, {y[i]}, {'Z64' if i == 0 else flag})" for i in range(L)))

    def reduce_once(src):
        """return src - p when src >= p (src < 2p)."""
        chain("sbb", src, p, d, "br")
        with s.block("if br"):
            s(f"return {tuple_of(src)}")
        s(f"return {tuple_of(d)}")

    with s.function(f"{f}_add", ("a", "b")):
        unpack()
        chain("adc", a, b, t, "c")
        reduce_once(t)
    with s.function(f"{f}_sub", ("a", "b")):
        unpack()
        chain("sbb", a, b, t, "br")
        with s.block("if br"):
            chain("adc", t, p, t, "c")
        s(f"return {tuple_of(t)}")
    with s.function(f"{f}_is_zero", ("a",)):
        s("return " + " and ".join(f"a[{i}] == Z64" for i in range(L)))
    with s.function(f"{f}_eq", ("a", "b")):
        s("return " + " and ".join(f"a[{i}] == b[{i}]" for i in range(L)))
    with s.function(f"{f}_gt", ("a", "b"), doc="a > b on canonical limbs (most significant first)."):
        for i in reversed(range(L)):
            with s.block(f"if a[{i}] != b[{i}]"):
                s(f"return a[{i}] > b[{i}]")
        s("return False")
    with s.function(f"{f}_mul", ("a", "b"), doc='CIOS Montgomery product, "no-carry" variant (top bit of p free).'):
        unpack()
        for i in range(L):
            for j in range(L):
                s(f"{t[j]}, c = mac({a[j]}, {b[i]}, {'Z64' if i == 0 else t[j]}, {'Z64' if j == 0 else 'c'})")
            s("A = c", f"m = {t[0]} * {F}_INV", f"_, c = mac(m, {p[0]}, {t[0]}, Z64)")
            s(*(f"{t[j - 1]}, c = mac(m, {p[j]}, {t[j]}, c)" for j in range(1, L)))
            s(f"{t[L - 1]} = c + A")
        reduce_once(t)
    _wide_source(s, f, F, L, p, chain)
    with s.function(f"{f}_load", ("arr", "i")):
        s(f"return {tuple_of(f'arr[i, {k}]' for k in range(L))}")
    with s.function(f"{f}_store", ("arr", "i", "v")):
        s(*(f"arr[i, {k}] = v[{k}]" for k in range(L)))
    ld = f"{f}_load(a, i)"
    kernels = [
        _vector_kernels(f, ("to_mont", "from_mont")),
        elementwise(f"{f}_vscale", ("a", "s", "out"), f"{f}_mul({ld}, k)", store=f"{f}_store", whole=("s",),
                    setup=[f"k = {f}_load(s, 0)"]),
        elementwise(f"{f}_vcanon_gt_half", ("a", "out"), f"{f}_gt({f}_from_mont({ld}), {F}_HALF)",
                    doc="out[i] = canonical(a[i]) > (p-1)/2, the 'lexicographically largest' flag."),
    ]
    return (s.text() + fill(PRIME_TEMPLATE, f=f, INTERNAL=INTERNAL)
            + ladder(f"{f}_pow", f"{F}_ONE", f"{f}_sqr", f"{f}_mul") + "\n".join(kernels) + _vinv_source(f))


def _wide_source(s: Source, f: str, F: str, L: int, p: list[str], chain) -> None:
    """Double-width (2L-limb) values for lazy reduction: a sum of products is
    reduced once ({f}_redc) instead of once per product. The tower's Fq2
    product uses them (3 wide products, 2 reductions instead of 3)."""
    a, b = [f"a{i}" for i in range(2 * L)], [f"b{i}" for i in range(2 * L)]
    w, t = [f"w{i}" for i in range(2 * L)], [f"t{i}" for i in range(2 * L)]
    with s.function(f"{f}_add_nr", ("a", "b"), doc="a + b without reduction (for a, b < p: < 2p fits L limbs)."):
        s(f"{', '.join(a[:L])} = a", f"{', '.join(b[:L])} = b")
        chain("adc", a, b, t, "c")
        s(f"return {tuple_of(t[:L])}")
    with s.function(f"{f}_mulwide", ("a", "b"), doc="The 2L-limb product a b, not reduced."):
        s(f"{', '.join(a[:L])} = a", f"{', '.join(b[:L])} = b")
        for i in range(L):
            s(*(f"{w[i + j]}, c = mac({a[j]}, {b[i]}, {'Z64' if i == 0 else w[i + j]}, {'Z64' if j == 0 else 'c'})"
                for j in range(L)))
            s(f"{w[i + L]} = c")
        s(f"return {tuple_of(w)}")
    with s.function(f"{f}_redc", ("t",), doc="Montgomery reduction t / R mod p of a 2L-limb t < p R."):
        s(f"{', '.join(w)} = t", "k = Z64")
        for i in range(L):
            s(f"m = {w[i]} * {F}_INV", f"_, c = mac(m, {p[0]}, {w[i]}, Z64)")
            s(*(f"{w[i + j]}, c = mac(m, {p[j]}, {w[i + j]}, c)" for j in range(1, L)))
            s(f"{w[i + L]}, k = adc({w[i + L]}, c, k)")
        hi, d = w[L:], [f"d{i}" for i in range(L)]
        chain("sbb", hi, p, d, "br")
        with s.block("if br"):
            s(f"return {tuple_of(hi)}")
        s(f"return {tuple_of(d)}")
    for name, doc, fix in ((f"{f}_wsub", "a - b, plus p R when negative (a, b < p R: stays in [0, p R)).", True),
                           (f"{f}_wsub_exact", "a - b for a >= b.", False)):
        with s.function(name, ("a", "b"), doc=doc):
            s(f"{', '.join(a)} = a", f"{', '.join(b)} = b")
            chain2 = [f"{t[i]}, br = sbb({a[i]}, {b[i]}, {'Z64' if i == 0 else 'br'})" for i in range(2 * L)]
            s(*chain2)
            if fix:
                with s.block("if br"):
                    s(*(f"{t[L + i]}, c = adc({t[L + i]}, {p[i]}, {'Z64' if i == 0 else 'c'})" for i in range(L)))
            s(f"return {tuple_of(t)}")


def _vector_kernels(f: str, extra_unary=()) -> str:
    """{f}_vadd, vsub, vneg, vmul, vsqr, vpow (and `extra_unary`) over `{f}_load`/`{f}_store`."""
    ld = lambda x: f"{f}_load({x}, i)"  # noqa: E731
    ops = [("add", ("a", "b")), ("sub", ("a", "b")), ("neg", ("a",)), ("mul", ("a", "b")), ("sqr", ("a",))]
    ops += [(op, ("a",)) for op in extra_unary]
    out = [elementwise(f"{f}_v{op}", [*args, "out"], f"{f}_{op}({', '.join(map(ld, args))})", store=f"{f}_store")
           for op, args in ops]
    out.append(elementwise(f"{f}_vpow", ["a", "e", "out"], f"{f}_pow({ld('a')}, e)", store=f"{f}_store",
                           whole=("e",)))
    out.append(elementwise(f"{f}_vsqrt", ["a", "out", "ok"], "x", store=f"{f}_store",
                           body=[f"good, x = {f}_sqrt({ld('a')})", "ok[i] = good"]))
    return "\n".join(out)


PRIME_TEMPLATE = '''
{INTERNAL}
def {f}_dbl(a):
    return {f}_add(a, a)

{INTERNAL}
def {f}_neg(a):
    return {f}_sub({F}_ZERO, a)

{INTERNAL}
def {f}_sqr(a):
    return {f}_mul(a, a)

{INTERNAL}
def {f}_inv(a):
    return {f}_pow(a, {F}_PM2)

{INTERNAL}
def {f}_from_mont(a):
    return {f}_mul(a, {F}_RAW1)

{INTERNAL}
def {f}_to_mont(a):
    return {f}_mul(a, {F}_R2)

{INTERNAL}
def {f}_sqrt(a):
    x = {f}_pow(a, {F}_SQRT_EXP)
    return {f}_eq({f}_mul(x, x), a), x
'''

def _vinv_source(f: str) -> str:
    return batch_inverse(f"{f}_vinv", ("a", "out", "nchunks"), f, value=f"{f}_load(a, i)", zero=f"{f}_is_zero(v)",
                         scratch="out", on_zero=f"{f}_store(out, i, {f.upper()}_ZERO)",
                         use=lambda inv: [f"{f}_store(out, i, {inv})"],
                         doc="Batch inversion (Montgomery's trick) per chunk; zero maps to zero.")


def fq2_source(f2: str, f: str, P: FieldParams, xi: tuple[int, int]) -> str:
    """Fq2 = Fq[u]/(u^2 + 1) (both curves) over the Fp of prefix `f`, with the
    tower's non-residue xi = xi0 + u."""
    assert xi[1] == 1
    F2, F = f2.upper(), f.upper()
    head = [
        f"{F2}_XI0 = {mont_literal(xi[0], P)}",
        f"{F2}_ZERO = ({F}_ZERO, {F}_ZERO)",
        f"{F2}_ONE = ({F}_ONE, {F}_ZERO)",
        f"{F2}_MINUS_ONE = ({mont_literal(P.p - 1, P)}, {F}_ZERO)",
        f"{F2}_EXP_P34 = {limbs_literal((P.p - 3) // 4, P.limbs)}",
        f"{F2}_EXP_P12 = {limbs_literal((P.p - 1) // 2, P.limbs)}",
    ]
    vinv = elementwise(f"{f2}_vinv", ["a", "out"], f"x if {f2}_is_zero(x) else {f2}_inv(x)", store=f"{f2}_store",
                       body=[f"x = {f2}_load(a, i)"])
    return ("\n".join(head) + "\n" + _times_small(f"{f2}_times_xi0", f, xi[0], f"{F2}_XI0")
            + fill(FQ2_TEMPLATE, f2=f2, f=f, INTERNAL=INTERNAL)
            + ladder(f"{f2}_pow", f"{F2}_ONE", f"{f2}_sqr", f"{f2}_mul")
            + "\n" + _vector_kernels(f2) + "\n" + vinv)


def _times_small(name: str, f: str, k: int, const: str) -> str:
    """`name(x)` = k x in Fp: for a small k (xi0 is 1 on BLS12-381, 9 on BN254)
    a chain of doublings and additions, each ~1/10 of a Montgomery product,
    which fq2_mul_xi pays twice in every Fq6/Fq12 product."""
    s = Source()
    with s.function(name, ("x",)):
        if k > 64:
            s(f"return {f}_mul(x, {const})")
        else:
            acc = None
            for bit in bin(k)[2:]:  # left to right
                if acc is not None:
                    s(f"r = {f}_add(r, r)")
                if bit == "1":
                    s("r = x" if acc is None else f"r = {f}_add(r, x)")
                    acc = True
            s("return r")
    return s.text() + "\n"


FQ2_TEMPLATE = '''
{INTERNAL}
def {f2}_add(a, b):
    return ({f}_add(a[0], b[0]), {f}_add(a[1], b[1]))

{INTERNAL}
def {f2}_sub(a, b):
    return ({f}_sub(a[0], b[0]), {f}_sub(a[1], b[1]))

{INTERNAL}
def {f2}_dbl(a):
    return ({f}_add(a[0], a[0]), {f}_add(a[1], a[1]))

{INTERNAL}
def {f2}_neg(a):
    return ({f}_neg(a[0]), {f}_neg(a[1]))

{INTERNAL}
def {f2}_conj(a):
    return (a[0], {f}_neg(a[1]))

{INTERNAL}
def {f2}_is_zero(a):
    return {f}_is_zero(a[0]) and {f}_is_zero(a[1])

{INTERNAL}
def {f2}_eq(a, b):
    return {f}_eq(a[0], b[0]) and {f}_eq(a[1], b[1])

{INTERNAL}
def {f2}_mul(a, b):
    """Karatsuba with lazy reduction: 3 wide products, 2 reductions
    (see FlatFq2Code.mul for the bounds)."""
    v0 = {f}_mulwide(a[0], b[0])
    v1 = {f}_mulwide(a[1], b[1])
    s = {f}_mulwide({f}_add_nr(a[0], a[1]), {f}_add_nr(b[0], b[1]))
    return ({f}_redc({f}_wsub(v0, v1)), {f}_redc({f}_wsub_exact({f}_wsub_exact(s, v0), v1)))

{INTERNAL}
def {f2}_sqr(a):
    m = {f}_mul(a[0], a[1])
    return ({f}_mul({f}_add(a[0], a[1]), {f}_sub(a[0], a[1])), {f}_add(m, m))

{INTERNAL}
def {f2}_mul_fq(a, s):
    return ({f}_mul(a[0], s), {f}_mul(a[1], s))

{INTERNAL}
def {f2}_mul_xi(a):
    """a * (xi0 + u)."""
    return ({f}_sub({f2}_times_xi0(a[0]), a[1]), {f}_add({f2}_times_xi0(a[1]), a[0]))

{INTERNAL}
def {f2}_inv(a):
    t = {f}_inv({f}_add({f}_mul(a[0], a[0]), {f}_mul(a[1], a[1])))
    return ({f}_mul(a[0], t), {f}_neg({f}_mul(a[1], t)))

{INTERNAL}
def {f2}_sqrt(a):
    """p = 3 mod 4 square root (Adj, Rodriguez-Henriquez 2012, alg. 9)."""
    a1 = {f2}_pow(a, {F2}_EXP_P34)
    alpha = {f2}_mul({f2}_sqr(a1), a)
    x0 = {f2}_mul(a1, a)
    if {f2}_eq(alpha, {F2}_MINUS_ONE):
        x = ({f}_neg(x0[1]), x0[0])
    else:
        bb = {f2}_pow({f2}_add({F2}_ONE, alpha), {F2}_EXP_P12)
        x = {f2}_mul(bb, x0)
    return {f2}_eq({f2}_sqr(x), a), x

{INTERNAL}
def {f2}_load(arr, i):
    return ({f}_load(arr[:, 0, :], i), {f}_load(arr[:, 1, :], i))

{INTERNAL}
def {f2}_store(arr, i, v):
    {f}_store(arr[:, 0, :], i, v[0])
    {f}_store(arr[:, 1, :], i, v[1])
'''
