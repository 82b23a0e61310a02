"""Optimal ate pairing on BN254 and BLS12-381 (numba, CPU).

Miller loop: the twisted point T stays in homogeneous projective coordinates
on the twist; each doubling/addition step yields a line with three non-zero
Fq2 coefficients (Costello-Lange-Naehrig / Aranha et al. 2011 formulas, as in
arkworks), multiplied into f by a sparse Fq12 product. Many pairs share one f
(multi-Miller loop), so the Fq12 squarings are paid once per product.

BLS12-381 has x < 0: f_{|x|,Q} is conjugated at the end (f_{x,Q} up to a
factor the final exponentiation kills), as blst, arkworks and zkcrypto do.
py_ecc skips that step, so its BLS12-381 value is the inverse of ours.

Final exponentiation to (p^12 - 1)/r exactly (not a multiple), so values are
comparable with other libraries: easy part f^((p^6 - 1)(p^2 + 1)), then the
hard part (p^4 - p^2 + 1)/r as
  prod_i frob_i( f^d_i * prod_j (g^(x^j))^c_ij ),   g = f^e,
with small integers c_ij, d_i and the exponent e chosen per family:
  BN:    e = 1, the Scott et al. (2009) base-p digits of the hard part;
  BLS12: e = (x - 1)^2 / 3, from h = e (x + p)(x^2 + p^2 - 1) + 1.
The whole chain is compiled in Python into a short register program (load,
store, cyclotomic square, multiply, Frobenius, ...) that the kernel runs in
one small loop; the program is checked at generation time by running it on
exponents, which must come out as (p^12 - 1)/r. Keeping Fq12 call sites few
matters: each one costs numba compile time.

The loop scalar, twist type (M for BLS12-381, D for BN254), twist constants
and Frobenius coefficients are all derived from the curve parameters here;
the code is emitted from one template with the tower formulas of
cuzk.field.tower_formulas.

Inputs are affine points (G1 `uint64[n, 2, L]`, G2 `uint64[n, 2, 2, L]`,
Montgomery form, all-zero = infinity) assumed to be in G1 and G2: this module
does not check membership (the verifier does, once per key/proof).
"""

from __future__ import annotations

import functools

import numpy as np

from cuzk.field import fields_of
from cuzk.field.codegen import build_module, fill, mont2_literal, mont_literal
from cuzk.field.fq2_ints import fq2_mul, fq2_pow
from cuzk.field.signed_digits import sparsest_digits
from cuzk.field.tower import towers_of
from cuzk.field.tower_formulas import Fq2Code
from cuzk.field.tower_source import array_access_source, emit_function, tower_kernels

from .curves import SPECS, get_curve, twist_b

# ---- curve-family parameters (Python ints, generation time) ---------------


@functools.cache
def pairing_params(curve: str) -> dict:
    spec = SPECS[curve]
    _, fq, fq2 = fields_of(curve)
    p, x, xi = fq.p, spec.param_u, fq2.xi
    r = fields_of(curve)[0].p
    h, rem = divmod(p**4 - p**2 + 1, r)
    assert rem == 0
    if p == 36 * x**4 + 36 * x**3 + 24 * x**2 + 6 * x + 1:
        family, s = "bn", 6 * x + 2
        e = 1
        # columns: g^(x^0..3), f
        c = [
            [-2, -18, -30, -36, 0],
            [1, -12, -18, -36, 0],
            [1, 0, 6, 0, 0],
            [1, 0, 0, 0, 0],
        ]
    elif 3 * (p - x) == (x - 1) ** 2 * (x**4 - x**2 + 1):
        family, s = "bls12", x
        e = (x - 1) ** 2 // 3
        c = [
            [0, -1, 0, 1, 1],
            [-1, 0, 1, 0, 0],
            [0, 1, 0, 0, 0],
            [1, 0, 0, 0, 0],
        ]
    else:
        raise ValueError(f"{curve}: neither a BN nor a BLS12 curve")
    got = sum(p**i * (sum(row[j] * e * x**j for j in range(4)) + row[4]) for i, row in enumerate(c))
    assert got == h, "hard-part decomposition does not match (p^4 - p^2 + 1)/r"
    b2 = twist_b(spec, p, xi)
    if b2 == fq2_mul((spec.g1_b, 0), xi, p):
        twist = "M"
    elif fq2_mul(b2, xi, p) == (spec.g1_b % p, 0):
        twist = "D"
    else:
        raise ValueError(f"{curve}: unknown twist")
    if family == "bn":
        assert s > 0 and twist == "D", "only D-twist BN curves with 6x+2 > 0 are handled"
    loop = sparsest_digits(abs(s))  # f_{|s|}; conjugated at the end when s < 0
    assert loop[0] == 1
    return dict(
        family=family, twist=twist, p=p, x=x, s=s, e=e, c=c, b2=b2, xi=xi,
        loop=loop[1:], x_digits=sparsest_digits(x), e_digits=sparsest_digits(e),
    )


# ---- final exponentiation as a register program ------------------------------

# opcodes on acc, the working Fq12 value, and R, the register file: acc = 1,
# R[a], conj(R[a]); R[a] = acc; cyclotomic squaring; acc *= R[a] or
# conj(R[a]); acc^(p^a); 1/acc for acc in Fq6 (INV6: the norm f conj(f) is
# there, so 1/f = conj(f) / N(f) costs one Fq6 inversion and the product
# already in the kernel, not a second Fq12 inversion compiled into it).
# The kernel gets the same names.
OPCODES = ("ONE", "LOAD", "LOADC", "STORE", "CSQR", "MUL", "MULC", "FROB", "INV6")
OP_ONE, OP_LOAD, OP_LOADC, OP_STORE, OP_CSQR, OP_MUL, OP_MULC, OP_FROB, OP_INV6 = range(len(OPCODES))


class _Asm:
    def __init__(self):
        self.code: list[int] = []

    def __call__(self, op: int, arg: int = 0):
        self.code += [op, arg]

    def pow(self, src: int, digits):
        """acc = R[src]^e (cyclotomic), e by signed digits, leading one non-zero."""
        self(OP_LOAD if digits[0] > 0 else OP_LOADC, src)
        for d in digits[1:]:
            self(OP_CSQR)
            if d:
                self(OP_MUL if d > 0 else OP_MULC, src)

    def multiexp(self, coeffs, regs):
        """acc = prod R[regs[j]]^coeffs[j] (joint square-and-multiply)."""
        started = False
        for bit in reversed(range(max(abs(c) for c in coeffs).bit_length())):
            if started:
                self(OP_CSQR)
            for c, r in zip(coeffs, regs):
                if (abs(c) >> bit) & 1:
                    if started:
                        self(OP_MUL if c > 0 else OP_MULC, r)
                    else:
                        self(OP_LOAD if c > 0 else OP_LOADC, r)
                        started = True
        if not started:
            self(OP_ONE)


def run_on_exponents(code, p: int) -> int:
    """The exponent of the input f that `code` computes, mod p^12 - 1.

    Also checks that cyclotomic squarings only see cyclotomic values, i.e.
    exponents that are multiples of (p^6 - 1)(p^2 + 1), and that INV6 only
    sees values in Fq6 (f^a is in Fq6 for every f iff p^6 + 1 divides a)."""
    n = p**12 - 1
    cyc = (p**6 - 1) * (p**2 + 1)
    acc, R = 1, {}
    for op, a in zip(map(int, code[0::2]), map(int, code[1::2])):
        if op == OP_ONE:
            acc = 0
        elif op == OP_LOAD:
            acc = R[a]
        elif op == OP_LOADC:
            acc = R[a] * p**6 % n
        elif op == OP_STORE:
            R[a] = acc
        elif op == OP_CSQR:
            assert acc % cyc == 0, "cyclotomic squaring outside the cyclotomic subgroup"
            acc = 2 * acc % n
        elif op == OP_MUL:
            acc = (acc + R[a]) % n
        elif op == OP_MULC:
            acc = (acc + R[a] * p**6) % n
        elif op == OP_FROB:
            acc = acc * p**a % n
        elif op == OP_INV6:
            assert acc % (p**6 + 1) == 0, "INV6 outside Fq6"
            acc = -acc % n
    return acc


@functools.cache
def final_exp_program(curve: str) -> np.ndarray:
    """int64[2k]: (opcode, argument) pairs computing f^((p^12 - 1)/r) from acc = f."""
    pp = pairing_params(curve)
    A = _Asm()
    A(OP_STORE, 0)
    A(OP_MULC, 0)  # N = f conj(f), in Fq6
    A(OP_INV6)
    A(OP_MULC, 0)
    A(OP_MULC, 0)  # conj(f)^2 / N = conj(f) / f = f^(p^6 - 1)
    A(OP_STORE, 0)
    A(OP_FROB, 2)
    A(OP_MUL, 0)  # ^(p^2 + 1): cyclotomic from here on
    A(OP_STORE, 0)
    if pp["e"] == 1:
        A(OP_STORE, 1)
    else:
        A.pow(0, pp["e_digits"])
        A(OP_STORE, 1)  # R1..R4 = g^(x^j), g = f^e
    for j in (2, 3, 4):
        A.pow(j - 1, pp["x_digits"])
        A(OP_STORE, j)
    for i, row in enumerate(pp["c"]):
        A.multiexp(row, (1, 2, 3, 4, 0))
        if i:
            A(OP_FROB, i)
            A(OP_MUL, 5)
        A(OP_STORE, 5)
    p, r = pp["p"], fields_of(curve)[0].p
    assert run_on_exponents(A.code, p) == (p**12 - 1) // r, "final exponentiation program is wrong"
    return np.array(A.code, dtype=np.int64)


# ---- source generation -------------------------------------------------------


def dbl_step_code(e: Fq2Code, T, x3, ny, b3, twist):
    """Emits T <- 2T; line coefficients in the order the sparse product takes them (also the
    aggregate's shared Miller loops, with their own scaling)."""
    X, Y, Z = T
    a = e.mul_fq(e.mul(X, Y), "TWO_INV")
    b, c = e.sqr(Y), e.sqr(Z)
    ee = e.mul_const(c, b3, "TWIST_B3")  # 3 b' Z^2
    f = e.add(e.dbl(ee), ee)
    g = e.mul_fq(e.add(b, f), "TWO_INV")
    h = e.sub(e.sqr(e.add(Y, Z)), e.add(b, c))  # 2 Y Z
    i = e.sub(ee, b)
    j = e.sqr(X)
    e2 = e.sqr(ee)
    T2 = (e.mul(a, e.sub(b, f)), e.sub(e.sqr(g), e.add(e.dbl(e2), e2)), e.mul(b, h))
    lx, ly = e.mul_fq(j, x3), e.mul_fq(h, ny)  # 3 X^2 xP, -2 Y Z yP
    return T2, ((i, lx, ly) if twist == "M" else (ly, lx, i))


def add_step_code(e: Fq2Code, T, qx, qy, x, ny, twist):
    """T <- T + Q (Q affine on the twist) and the line through T and Q."""
    X, Y, Z = T
    theta = e.sub(Y, e.mul(qy, Z))
    lam = e.sub(X, e.mul(qx, Z))
    c, d = e.sqr(theta), e.sqr(lam)
    ee = e.mul(lam, d)
    f = e.mul(Z, c)
    g = e.mul(X, d)
    h = e.sub(e.add(ee, f), e.dbl(g))
    T2 = (e.mul(lam, h), e.sub(e.mul(theta, e.sub(g, h)), e.mul(ee, Y)), e.mul(Z, ee))
    j = e.sub(e.mul(lam, qy), e.mul(theta, qx))
    lx, ly = e.mul_fq(theta, x), e.mul_fq(lam, ny)
    return T2, ((j, lx, ly) if twist == "M" else (ly, lx, j))


def raw_steps(curve: str):
    """The doubling and addition steps with the line left unscaled, as formulas
    `dbl(e, T)` and `add(e, T, qx, qy)` over an Fq2Code emitter: the factors of P
    (3 xP or xP on one coefficient, -yP on another) are then applied per pair, so
    pairs that share a G2 point share its steps (the aggregate's multi-Miller loops,
    on both backends). 3 b' is k xi with k small on BLS12-381 (k = 12): xi's
    addition chain and k doublings/additions instead of a product."""
    pk = pairing_params(curve)
    b3 = tuple(3 * v % pk["p"] for v in pk["b2"])
    xi = tuple(pk["xi"])
    small = next((k for k in range(1, 17) if tuple(k * v % pk["p"] for v in xi) == b3), None)

    def times(e, a, k):  # k a by doublings and additions
        acc = None
        for bit in bin(k)[2:]:
            acc = e.dbl(acc)
            if bit == "1":
                acc = e.add(acc, a)
        return acc

    def raw(e):
        mul_fq, mul_const = e.mul_fq, e.mul_const
        e.mul_fq = lambda a, s: a if s == "RAW" else mul_fq(a, s)
        e.mul_const = lambda a, c, name: (times(e, e.xi(a), small) if name == "TWIST_B3" and small
                                          else mul_const(a, c, name))
        return e

    return (lambda e, T: dbl_step_code(raw(e), T, "RAW", "RAW", b3, pk["twist"]),
            lambda e, T, qx, qy: add_step_code(raw(e), T, qx, qy, "RAW", "RAW", pk["twist"]))


def twist_frobenius_constants(curve: str):
    """BN only: the Fq2 factors of pi(Q) = (conj(x) g_x1, conj(y) g_y1) and
    -pi^2(Q) = (x g_x2, y) on the D-twist, for the last two lines of the loop."""
    pp = pairing_params(curve)
    p, xi = pp["p"], pp["xi"]
    gx1, gy1 = (fq2_pow(xi, (p - 1) // k, p) for k in (3, 2))
    gx2, gy2 = (fq2_pow(xi, (p * p - 1) // k, p) for k in (3, 2))
    assert gy2 == (p - 1, 0)  # xi is a non-square, so -pi^2(Q) keeps y
    return gx1, gy1, gx2


def twist_frobenius_code(e, qx, qy, consts):
    """pi(Q) and -pi^2(Q) from the constants of twist_frobenius_constants."""
    gx1, gy1, gx2 = consts
    return ((e.mul_const(e.conj(qx), gx1, "FQ_X1"), e.mul_const(e.conj(qy), gy1, "FQ_Y1")),
            (e.mul_const(qx, gx2, "FQ_X2"), qy))


def pairing_source(curve: str) -> str:
    pp = pairing_params(curve)
    _, fq, _ = fields_of(curve)
    P, p, xi, L = fq.params, pp["p"], pp["xi"], fq.limbs
    b3 = tuple(3 * v % p for v in pp["b2"])
    head = [
        f"L = {L}",
        f"TWO_INV = {mont_literal(pow(2, -1, p), P)}",
        f"TWIST_B3 = {mont2_literal(b3, P)}",
        f"LOOP = {tuple(pp['loop'])}",
        f"CONJ_AT_END = {pp['s'] < 0}",
    ]
    head += [f"OP_{name} = {code}" for code, name in enumerate(OPCODES)]
    fns = [
        emit_function(
            "_dbl_step",
            [("T", "g2"), ("x3", "fq"), ("ny", "fq")],
            lambda e, T, x3, ny: dbl_step_code(e, T, x3, ny, b3, pp["twist"]),
            "2T and the tangent line at P (x3 = 3 xP, ny = -yP).",
        ),
        emit_function(
            "_add_step",
            [("T", "g2"), ("qx", "fq2"), ("qy", "fq2"), ("x", "fq"), ("ny", "fq")],
            lambda e, T, qx, qy, x, ny: add_step_code(e, T, qx, qy, x, ny, pp["twist"]),
            "T + Q and the line through T and Q at P.",
        ),
    ]
    tail = ""
    if pp["family"] == "bn":
        # pi(Q) and -pi^2(Q) on the D-twist: x * xi^((p^k-1)/3), y * xi^((p^k-1)/2)
        consts = twist_frobenius_constants(curve)
        head += [f"{name} = {mont2_literal(c, P)}" for name, c in zip(("FQ_X1", "FQ_Y1", "FQ_X2"), consts)]
        fns.append(
            emit_function(
                "_twist_frob",
                [("qx", "fq2"), ("qy", "fq2")],
                lambda e, qx, qy: twist_frobenius_code(e, qx, qy, consts),
                "pi(Q) and -pi^2(Q) for the last two lines of the BN loop.",
            )
        )
        tail = BN_TAIL
    fns.append(array_access_source("g2", (2, 2), L))
    # the line as a whole Fq12 element (slots 0, 1, 4 on the M-twist, 0, 3, 4 on the D-twist), multiplied
    # by fq12_mul: the sparse product would be ~15 % faster in the Miller loop, but compiling it into this
    # kernel costs ~3.5 s of every first run, and a pairing here is a few ms (verifiers)
    line = ("((l[0], l[1], FQ2_ZERO), (FQ2_ZERO, l[2], FQ2_ZERO))" if pp["twist"] == "M"
            else "((l[0], FQ2_ZERO, FQ2_ZERO), (l[1], l[2], FQ2_ZERO))")
    body = fill(PAIRING_TEMPLATE, TAIL=fill(tail, LINE=line), LINE=line)
    return "\n".join(head) + "\n\n" + "".join(fns) + body


PAIRING_TEMPLATE = '''

@njit(cache=True)
def pairing_kernel(mode, g1, g2, starts, fin, prog, out):
    """mode 0: out[k] = FE(ML(group k)); 1: out[k] = ML(group k); 2: out[k] = FE(fin[k]).

    ML(group k) is the product of the Miller functions f_{s,Q_i}(P_i) over
    pairs starts[k]..starts[k+1]-1 (none at infinity) with one shared f; FE,
    the final exponentiation, runs the register program `prog`. One kernel
    on purpose: numba re-optimizes every callee inside each caller.
    """
    nk = fin.shape[0] if mode == 2 else len(starts) - 1
    R = np.empty((6, 2, 3, 2, L), dtype=np.uint64)
    g1v = g1.reshape(g1.shape[0] * 2, L)
    for k in range(nk):
        if mode == 2:
            f = fq12_load(fin, k)
        else:
            lo = starts[k]
            m = starts[k + 1] - lo
            T = np.empty((m, 3, 2, L), dtype=np.uint64)  # projective (X, Y, Z): Fq6 layout
            for i in range(m):
                qx, qy = g2_load(g2, lo + i)
                fq6_store(T, i, (qx, qy, FQ2_ONE))
            f = FQ12_ONE
            started = False
            for d in LOOP:
                if started:
                    f = fq12_mul(f, f)  # not fq12_sqr: ~4 s less to compile, the Miller loop ~8 % slower
                started = True
                for i in range(m):
                    x = fq_load(g1v, 2 * (lo + i))
                    ny = fq_neg(fq_load(g1v, 2 * (lo + i) + 1))
                    t, l = _dbl_step(fq6_load(T, i), fq_add(fq_dbl(x), x), ny)
                    f = fq12_mul(f, {LINE})
                    if d != 0:
                        qx, qy = g2_load(g2, lo + i)
                        if d < 0:
                            qy = fq2_neg(qy)
                        t, l = _add_step(t, qx, qy, x, ny)
                        f = fq12_mul(f, {LINE})
                    fq6_store(T, i, t)
{TAIL}
            if CONJ_AT_END:
                f = fq12_conj(f)
        if mode != 1:
            for pc in range(0, len(prog), 2):
                op = prog[pc]
                j = prog[pc + 1]
                if op == OP_ONE:
                    f = FQ12_ONE
                elif op == OP_LOAD:
                    f = fq12_load(R, j)
                elif op == OP_LOADC:
                    f = fq12_conj(fq12_load(R, j))
                elif op == OP_STORE:
                    fq12_store(R, j, f)
                elif op == OP_CSQR:
                    f = fq12_cyc_sqr(f)
                elif op == OP_MUL:
                    f = fq12_mul(f, fq12_load(R, j))
                elif op == OP_MULC:
                    f = fq12_mul(f, fq12_conj(fq12_load(R, j)))
                elif op == OP_FROB:
                    f = fq12_frob(f, j)
                else:
                    f = (fq6_inv(f[0]), FQ6_ZERO)
        fq12_store(out, k, f)
'''

BN_TAIL = """\
            for i in range(m):
                x = fq_load(g1v, 2 * (lo + i))
                ny = fq_neg(fq_load(g1v, 2 * (lo + i) + 1))
                qx, qy = g2_load(g2, lo + i)
                q1, q2 = _twist_frob(qx, qy)
                t, l = _add_step(fq6_load(T, i), q1[0], q1[1], x, ny)
                f = fq12_mul(f, {LINE})
                t, l = _add_step(t, q2[0], q2[1], x, ny)
                f = fq12_mul(f, {LINE})"""


@functools.cache
def pairing_kernels(curve: str):
    curve = get_curve(curve).name
    tk = tower_kernels(curve)
    return build_module(f"{curve}_pairing", f"from {tk.__name__} import *\n" + pairing_source(curve))


# ---- Python API ----------------------------------------------------------------


def _groups(curve: str, g1, g2):
    """Contiguous (g1, g2) without pairs at infinity, and the kept-pair mask."""
    L = fields_of(curve)[1].limbs
    g1 = np.ascontiguousarray(g1, dtype=np.uint64)
    g2 = np.ascontiguousarray(g2, dtype=np.uint64)
    if g1.shape[-2:] != (2, L) or g2.shape[-3:] != (2, 2, L):
        raise ValueError(f"expected G1 (..., 2, {L}) and G2 (..., 2, 2, {L}), got {g1.shape}, {g2.shape}")
    if g1.shape[:-2] != g2.shape[:-3]:
        raise ValueError(f"{g1.shape[:-2]} G1 points but {g2.shape[:-3]} G2 points")
    batch = g1.shape[:-2]
    g1, g2 = g1.reshape(-1, 2, L), g2.reshape(-1, 2, 2, L)
    keep = g1.reshape(len(g1), 2 * L).any(axis=1) & g2.reshape(len(g2), 4 * L).any(axis=1)
    return np.ascontiguousarray(g1[keep]), np.ascontiguousarray(g2[keep]), keep, batch


def _run(curve: str, mode: int, g1, g2, starts, fin, n: int) -> np.ndarray:
    fq12 = towers_of(curve)[1]
    out = fq12.zeros(n)
    if fin is None:
        fin = fq12.zeros(0)
    pairing_kernels(curve).pairing_kernel(mode, g1, g2, starts, fin, final_exp_program(curve), out)
    return out


def multi_pairing(curve_name: str, g1_affine, g2_affine) -> np.ndarray:
    """prod_i e(P_i, Q_i) as an Fq12 array `uint64[2, 3, 2, L]` (see towers_of)."""
    curve = get_curve(curve_name).name
    g1, g2, _, _ = _groups(curve, g1_affine, g2_affine)
    return _run(curve, 0, g1, g2, np.array([0, len(g1)], dtype=np.int64), None, 1)[0]


def multi_pairing_is_one(curve_name: str, g1_affine, g2_affine) -> bool:
    """Whether prod_i e(P_i, Q_i) == 1; pairs with a point at infinity count as 1."""
    curve = get_curve(curve_name).name
    return bool(towers_of(curve)[1].is_one(multi_pairing(curve, g1_affine, g2_affine)))


def pairing(curve_name: str, p, q) -> np.ndarray:
    """e(p_i, q_i) elementwise: p `(..., 2, L)`, q `(..., 2, 2, L)` -> `(..., 2, 3, 2, L)`."""
    curve = get_curve(curve_name).name
    g1, g2, keep, batch = _groups(curve, p, q)
    starts = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
    out = _run(curve, 0, g1, g2, starts, None, len(keep))
    return out.reshape(batch + out.shape[1:])


def miller_loop(curve_name: str, g1_affine, g2_affine) -> np.ndarray:
    """The shared Miller loop of a multi-pairing, before final exponentiation."""
    curve = get_curve(curve_name).name
    g1, g2, _, _ = _groups(curve, g1_affine, g2_affine)
    return _run(curve, 1, g1, g2, np.array([0, len(g1)], dtype=np.int64), None, 1)[0]


def final_exponentiation(curve_name: str, f) -> np.ndarray:
    """f^((p^12 - 1)/r) for Fq12 arrays `(..., 2, 3, 2, L)`."""
    curve = get_curve(curve_name).name
    fq12 = towers_of(curve)[1]
    a = np.ascontiguousarray(f, dtype=np.uint64)
    flat = a.reshape((-1,) + fq12.shape)
    L = fq12.limbs
    g1, g2 = np.zeros((0, 2, L), np.uint64), np.zeros((0, 2, 2, L), np.uint64)
    out = _run(curve, 2, g1, g2, np.zeros(1, np.int64), flat, len(flat))
    return out.reshape(a.shape)
