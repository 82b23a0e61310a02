"""Source template for short-Weierstrass (a = 0) group law, per group.

One template serves G1 (over Fq) and G2 (over Fq2) of both curves. Internal
points use XYZZ coordinates (x = X/ZZ, y = Y/ZZZ; infinity has ZZ = 0): mixed
addition costs 8M+2S, which is what bucket accumulation in Pippenger needs.
Affine points use the host layout; (0, 0) is infinity (never on the curve
since b != 0).
"""

from __future__ import annotations

from cuzk.field.codegen import INTERNAL, batch_inverse, elementwise, fill, ladder


def group_source(g: str, f: str) -> str:
    """Group prefix `g` (g1/g2) over field prefix `f` (fq/fq2)."""
    ld = f"{g}_load_affine(a, i)"
    to_xyzz = f"{g}_store_xyzz"
    kernels = [
        elementwise(f"{g}_vadd", ("a", "b", "out"), f"{g}_xyzz_add_affine({g}_from_affine({ld}), {g}_load_affine(b, i))",
                    store=to_xyzz, doc="affine + affine -> XYZZ."),
        elementwise(f"{g}_vdbl", ("a", "out"), f"{g}_affine_dbl({ld})", store=to_xyzz),
        elementwise(f"{g}_vneg", ("a", "out"), f"{g}_affine_neg({ld})", store=f"{g}_store_affine"),
        elementwise(f"{g}_vscalar_mul", ("a", "k", "out"), f"{g}_mul_limbs({ld}, e)", store=to_xyzz,
                    body=["e = (k[i, 0], k[i, 1], k[i, 2], k[i, 3])"], doc="out[i] = [k[i]] a[i]; k canonical uint64[n, 4]."),
        elementwise(f"{g}_vmul_order", ("a", "out"), f"{g}_mul_limbs({ld}, FR_MODULUS)", store=to_xyzz,
                    doc="out[i] = [r] a[i]; infinity exactly for points in the prime-order subgroup."),
        elementwise(f"{g}_vis_on_curve", ("a", "out"), f"{g}_is_on_curve({ld})"),
        elementwise(f"{g}_vxyzz_is_zero", ("a", "out"), f"{f}_is_zero({f}_load(a[:, 2], i))"),
    ]
    mul = ladder(f"{g}_mul_limbs", f"{g.upper()}_XYZZ_ZERO", f"{g}_xyzz_dbl", f"{g}_xyzz_add_affine",
                 "[e]x for an affine x and canonical little-endian scalar limbs e (double-and-add).")
    zz = f"{f}_load(p[:, 2], i)"
    to_affine = batch_inverse(
        f"{g}_vto_affine", ("p", "out", "nchunks"), f, value=f"{f}_load(p[:, 3], i)", zero=f"{f}_is_zero({zz})",
        scratch="out[:, 0]", on_zero=f"{g}_store_affine(out, i, {g.upper()}_AFFINE_ZERO)",
        use=lambda inv: [f"izzz = {inv}", f"izz = {f}_mul({f}_sqr(izzz), {f}_sqr({zz}))",
                         f"x = {f}_mul({f}_load(p[:, 0], i), izz)", f"y = {f}_mul({f}_load(p[:, 1], i), izzz)",
                         f"{g}_store_affine(out, i, (x, y))"],
        doc="Batch normalization: one inversion per chunk (Montgomery's trick on ZZZ).")
    return fill(GROUP_TEMPLATE, g=g, f=f, INTERNAL=INTERNAL) + "\n" + mul + "\n" + to_affine + "\n" + "\n".join(kernels)


GROUP_TEMPLATE = '''
{G}_XYZZ_ZERO = ({F}_ONE, {F}_ONE, {F}_ZERO, {F}_ZERO)
{G}_AFFINE_ZERO = ({F}_ZERO, {F}_ZERO)

{INTERNAL}
def {g}_affine_is_zero(q):
    return {f}_is_zero(q[0]) and {f}_is_zero(q[1])

{INTERNAL}
def {g}_xyzz_is_zero(p):
    return {f}_is_zero(p[2])

{INTERNAL}
def {g}_affine_neg(q):
    if {g}_affine_is_zero(q):
        return q
    return (q[0], {f}_neg(q[1]))

{INTERNAL}
def {g}_xyzz_neg(p):
    return (p[0], {f}_neg(p[1]), p[2], p[3])

{INTERNAL}
def {g}_from_affine(q):
    if {g}_affine_is_zero(q):
        return {G}_XYZZ_ZERO
    return (q[0], q[1], {F}_ONE, {F}_ONE)

{INTERNAL}
def {g}_xyzz_dbl(p):
    """dbl-2008-s-1; a 2-torsion input (Y = 0) yields ZZ = 0, i.e. infinity."""
    X1, Y1, ZZ1, ZZZ1 = p
    U = {f}_dbl(Y1)
    V = {f}_sqr(U)
    W = {f}_mul(U, V)
    S = {f}_mul(X1, V)
    X1s = {f}_sqr(X1)
    M = {f}_add({f}_dbl(X1s), X1s)
    X3 = {f}_sub({f}_sqr(M), {f}_dbl(S))
    Y3 = {f}_sub({f}_mul(M, {f}_sub(S, X3)), {f}_mul(W, Y1))
    return (X3, Y3, {f}_mul(V, ZZ1), {f}_mul(W, ZZZ1))

{INTERNAL}
def {g}_affine_dbl(q):
    """Double an affine point into XYZZ (the rare P == Q case of mixed addition)."""
    return {g}_xyzz_dbl({g}_from_affine(q))

{INTERNAL}
def {g}_xyzz_add_affine(p, q):
    """madd-2008-s with the exceptional cases (infinity, P == Q, P == -Q)."""
    if {g}_affine_is_zero(q):
        return p
    if {f}_is_zero(p[2]):
        return (q[0], q[1], {F}_ONE, {F}_ONE)
    X1, Y1, ZZ1, ZZZ1 = p
    U2 = {f}_mul(q[0], ZZ1)
    S2 = {f}_mul(q[1], ZZZ1)
    P = {f}_sub(U2, X1)
    R = {f}_sub(S2, Y1)
    if {f}_is_zero(P):
        if {f}_is_zero(R):
            return {g}_affine_dbl(q)
        return {G}_XYZZ_ZERO
    PP = {f}_sqr(P)
    PPP = {f}_mul(P, PP)
    Q = {f}_mul(X1, PP)
    X3 = {f}_sub({f}_sub({f}_sqr(R), PPP), {f}_dbl(Q))
    Y3 = {f}_sub({f}_mul(R, {f}_sub(Q, X3)), {f}_mul(Y1, PPP))
    return (X3, Y3, {f}_mul(ZZ1, PP), {f}_mul(ZZZ1, PPP))

{INTERNAL}
def {g}_xyzz_add(p, q):
    """add-2008-s with the exceptional cases."""
    if {f}_is_zero(q[2]):
        return p
    if {f}_is_zero(p[2]):
        return q
    X1, Y1, ZZ1, ZZZ1 = p
    X2, Y2, ZZ2, ZZZ2 = q
    U1 = {f}_mul(X1, ZZ2)
    U2 = {f}_mul(X2, ZZ1)
    S1 = {f}_mul(Y1, ZZZ2)
    S2 = {f}_mul(Y2, ZZZ1)
    P = {f}_sub(U2, U1)
    R = {f}_sub(S2, S1)
    if {f}_is_zero(P):
        if {f}_is_zero(R):
            return {g}_xyzz_dbl(p)
        return {G}_XYZZ_ZERO
    PP = {f}_sqr(P)
    PPP = {f}_mul(P, PP)
    Q = {f}_mul(U1, PP)
    X3 = {f}_sub({f}_sub({f}_sqr(R), PPP), {f}_dbl(Q))
    Y3 = {f}_sub({f}_mul(R, {f}_sub(Q, X3)), {f}_mul(S1, PPP))
    return (X3, Y3, {f}_mul({f}_mul(ZZ1, ZZ2), PP), {f}_mul({f}_mul(ZZZ1, ZZZ2), PPP))

{INTERNAL}
def {g}_xyzz_eq(p, q):
    if {f}_is_zero(p[2]) or {f}_is_zero(q[2]):
        return {f}_is_zero(p[2]) and {f}_is_zero(q[2])
    return {f}_eq({f}_mul(p[0], q[2]), {f}_mul(q[0], p[2])) and {f}_eq(
        {f}_mul(p[1], q[3]), {f}_mul(q[1], p[3])
    )

{INTERNAL}
def {g}_to_affine(p):
    if {f}_is_zero(p[2]):
        return {G}_AFFINE_ZERO
    izzz = {f}_inv(p[3])
    izz = {f}_mul({f}_sqr(izzz), {f}_sqr(p[2]))
    return ({f}_mul(p[0], izz), {f}_mul(p[1], izzz))

{INTERNAL}
def {g}_is_on_curve(q):
    """y^2 == x^3 + b; infinity counts as on the curve."""
    if {g}_affine_is_zero(q):
        return True
    x, y = q
    return {f}_eq({f}_sqr(y), {f}_add({f}_mul({f}_sqr(x), x), {G}_B))

{INTERNAL}
def {g}_load_affine(arr, i):
    return ({f}_load(arr[:, 0], i), {f}_load(arr[:, 1], i))

{INTERNAL}
def {g}_store_affine(arr, i, q):
    {f}_store(arr[:, 0], i, q[0])
    {f}_store(arr[:, 1], i, q[1])

{INTERNAL}
def {g}_load_xyzz(arr, i):
    return ({f}_load(arr[:, 0], i), {f}_load(arr[:, 1], i), {f}_load(arr[:, 2], i), {f}_load(arr[:, 3], i))

{INTERNAL}
def {g}_store_xyzz(arr, i, p):
    for k in range(4):
        {f}_store(arr[:, k], i, p[k])

@njit(cache=True)
def {g}_xyzz_sum(arr, out):
    """out[0] = sum of the XYZZ points in arr (sequential; for few points)."""
    acc = {G}_XYZZ_ZERO
    for i in range(arr.shape[0]):
        acc = {g}_xyzz_add(acc, {g}_load_xyzz(arr, i))
    {g}_store_xyzz(out, 0, acc)
'''
