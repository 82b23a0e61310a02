"""The Fq6/Fq12 tower's formulas, written once over Fq2 operations.

Fq6 = Fq2[v]/(v^3 - xi) is a triple (c0, c1, c2) and Fq12 = Fq6[w]/(w^2 - v)
a pair (c0, c1) of such triples. Each formula takes an `Fq2Code`, which
records the Fq2 operations as straight-line numba source (a value is the name
of the variable holding it), so the same formulas are emitted for both
curves and used again by the pairing's line functions. None is a known zero
and is propagated (x*0 = 0, x+0 = x): a product with a sparse operand (a line)
emits only the multiplications it needs.
"""

from __future__ import annotations

from .codegen import Source


def _unary(fn: str):
    """The Fq2Code method recording `fn(a)`; a known zero (None) stays None."""

    def method(self, a):
        return None if a is None else self.let(f"{fn}({a})")

    return method


class Fq2Code(Source):
    """Records Fq2 operations over the field module's fq2_* functions."""

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

    neg = _unary("fq2_neg")
    dbl = _unary("fq2_dbl")
    sqr = _unary("fq2_sqr")
    xi = _unary("fq2_mul_xi")
    conj = _unary("fq2_conj")
    inv = _unary("fq2_inv")

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
            return self.mul_fq(a, self.real_part(name))
        return self.mul(a, self.constant(name))

    def constant(self, name: str):
        """The operand that names an Fq2 module constant."""
        return name

    def real_part(self, name: str) -> str:
        """The Fq expression of an Fq2 constant's first coefficient."""
        return f"{name}[0]"


class FlatFq2Code(Fq2Code):
    """The same operations emitted at the Fq level: an Fq2 value is a pair of
    Fq variable names. numba does not inline the fq2_* calls of a body as large
    as an Fq12 product (each passes and returns tuples through the stack), so
    the hottest functions are emitted flat: ~15% faster Fq12 products."""

    def _parts(self, a):
        if isinstance(a, tuple):
            return a
        split = self.__dict__.setdefault("_split", set())
        if a not in split:  # a named Fq2 parameter, split at its first use
            split.add(a)
            self(f"{a}_0, {a}_1 = {a}")
        return (f"{a}_0", f"{a}_1")

    def _pair(self, fn, a, b=None):
        a = self._parts(a)
        if b is None:
            return tuple(self.let(f"{fn}({x})") for x in a)
        b = self._parts(b)
        return tuple(self.let(f"{fn}({x}, {y})") for x, y in zip(a, b))

    def add(self, a, b):
        if a is None or b is None:
            return b if a is None else a
        return self._pair("fq_add", a, b)

    def sub(self, a, b):
        if a is None or b is None:
            return a if b is None else self.neg(b)
        return self._pair("fq_sub", a, b)

    def neg(self, a):
        return None if a is None else self._pair("fq_neg", a)

    def dbl(self, a):
        return None if a is None else self.add(a, a)

    def xi(self, a):
        """a (xi0 + u) = (xi0 a0 - a1, xi0 a1 + a0), xi0 small (fq2_times_xi0)."""
        if a is None:
            return None
        a0, a1 = self._parts(a)
        return (self.let(f"fq_sub(fq2_times_xi0({a0}), {a1})"), self.let(f"fq_add(fq2_times_xi0({a1}), {a0})"))

    def conj(self, a):
        if a is None:
            return None
        a0, a1 = self._parts(a)
        return (a0, self.let(f"fq_neg({a1})"))

    def mul(self, a, b):
        """Karatsuba with lazy reduction: three wide products, two reductions
        (a0 b0 - a1 b1 in (-p^2, p^2) is lifted by p R when negative; the
        a0 b1 + a1 b0 = s - v0 - v1 < 2 p^2 is exact; both < p R)."""
        if a is None or b is None:
            return None
        (a0, a1), (b0, b1) = self._parts(a), self._parts(b)
        v0, v1 = self.let(f"fq_mulwide({a0}, {b0})"), self.let(f"fq_mulwide({a1}, {b1})")
        s = self.let(f"fq_mulwide(fq_add_nr({a0}, {a1}), fq_add_nr({b0}, {b1}))")
        return (self.let(f"fq_redc(fq_wsub({v0}, {v1}))"),
                self.let(f"fq_redc(fq_wsub_exact(fq_wsub_exact({s}, {v0}), {v1}))"))

    def sqr(self, a):
        """As fq2_sqr: (a0 + a1)(a0 - a1), 2 a0 a1."""
        if a is None:
            return None
        a0, a1 = self._parts(a)
        m = self.let(f"fq_mul({a0}, {a1})")
        return (self.let(f"fq_mul(fq_add({a0}, {a1}), fq_sub({a0}, {a1}))"), self.let(f"fq_add({m}, {m})"))

    def mul_fq(self, a, s: str):
        return None if a is None else tuple(self.let(f"fq_mul({x}, {s})") for x in self._parts(a))

    def constant(self, name: str):
        return (f"{name}[0]", f"{name}[1]")

    def inv(self, a):
        return None if a is None else self.let(f"fq2_inv({_pack_pair(a)})")


def _pack_pair(a) -> str:
    return a if isinstance(a, str) else f"({a[0]}, {a[1]})"


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


def line_product(e, x, y, twist: str):
    """The product of two pairing lines as a sparse Fq12 (None = zero), 6 Fq2 products
    (Karatsuba on the three non-zero coefficients of each):
      M-twist, lines (c0, c1, c4) = c0 + c1 v + c4 v w: ((m0, m1, m2), (0, m4, m5));
      D-twist, lines (c0, c3, c4) = c0 + c3 w + c4 v w: ((m0, m1, m2), (m3, m4, 0)).
    Multiplying f by it (f12_mul: 17 products) replaces two 13-product line
    multiplications (23 products instead of 26, one f update instead of two)."""
    x0, xa, xb = x
    y0, ya, yb = y
    t0, ta, tb = e.mul(x0, y0), e.mul(xa, ya), e.mul(xb, yb)

    def cross(p, q, tp, tq, u, w):  # p u + q w from (p + q)(u + w) - p u - q w
        return e.sub(e.sub(e.mul(e.add(p, q), e.add(u, w)), tp), tq)

    c0a = cross(x0, xa, t0, ta, y0, ya)  # x0 ya + xa y0
    c0b = cross(x0, xb, t0, tb, y0, yb)  # x0 yb + xb y0
    cab = cross(xa, xb, ta, tb, ya, yb)  # xa yb + xb ya
    m0 = e.add(t0, e.xi(tb))
    if twist == "M":  # (x0 + xa v + xb v w)(y0 + ya v + yb v w)
        return ((m0, c0a, ta), (None, c0b, cab))
    # (x0 + xa w + xb v w)(y0 + ya w + yb v w): w^2 = v
    return ((m0, ta, cab), (c0a, c0b, None))
