"""Small dense linear algebra and polynomials over GF(p) on Python ints.

Only parameter generation uses this (t <= ~17, run once and cached), so
plain ints are the simplest exact representation. Matrices are lists of
rows; polynomials are coefficient lists, lowest degree first.
"""

from __future__ import annotations

from cuzk.field.fq2_ints import power


def flatten(x):
    """The ints of nested lists/tuples, depth first (rows of matrices, then their entries)."""
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from flatten(y)
    else:
        yield x


def mat_mul(A, B, p):
    Bt = list(zip(*B))
    return [[sum(a * b for a, b in zip(row, col)) % p for col in Bt] for row in A]


def mat_vec(A, v, p):
    return [sum(a * b for a, b in zip(row, v)) % p for row in A]


def identity(n):
    return [[int(i == j) for j in range(n)] for i in range(n)]


def mat_pow(A, e, p):
    return power(A, e, identity(len(A)), lambda X, Y: mat_mul(X, Y, p))


def rref(rows, p):
    """(reduced row echelon rows without zero rows, pivot columns)."""
    M = [[x % p for x in r] for r in rows]
    if not M:
        return [], []
    ncols = len(M[0])
    pivots = []
    r = 0
    for c in range(ncols):
        piv = next((i for i in range(r, len(M)) if M[i][c]), None)
        if piv is None:
            continue
        M[r], M[piv] = M[piv], M[r]
        inv = pow(M[r][c], -1, p)
        M[r] = [x * inv % p for x in M[r]]
        for i in range(len(M)):
            if i != r and M[i][c]:
                f = M[i][c]
                M[i] = [(x - f * y) % p for x, y in zip(M[i], M[r])]
        pivots.append(c)
        r += 1
        if r == len(M):
            break
    return M[:r], pivots


def mat_inv(A, p):
    """Inverse of a square matrix (ValueError if singular)."""
    n = len(A)
    R, pivots = rref([list(row) + [int(i == j) for j in range(n)] for i, row in enumerate(A)], p)
    if pivots[:n] != list(range(n)) or len(R) < n:
        raise ValueError("singular matrix")
    return [row[n:] for row in R]


def rank(rows, p):
    return len(rref(rows, p)[0])


def kernel(rows, ncols, p):
    """Basis of {x : A x = 0} for A given by `rows` (ncols columns)."""
    R, pivots = rref(rows, p) if rows else ([], [])
    free = [c for c in range(ncols) if c not in pivots]
    basis = []
    for f in free:
        v = [0] * ncols
        v[f] = 1
        for row, pc in zip(R, pivots):
            v[pc] = (-row[f]) % p
        basis.append(v)
    return basis


class EchelonBasis:
    """A growing basis kept in echelon form: `add` is O(n^2), not a new RREF."""

    def __init__(self, p):
        self.p = p
        self.rows: list[tuple[int, list[int]]] = []  # (pivot column, row with pivot 1)

    def add(self, v) -> bool:
        """Insert v; True if it was independent of the basis."""
        p = self.p
        v = [x % p for x in v]
        for c, row in self.rows:
            f = v[c]
            if f:
                v = [(x - f * y) % p for x, y in zip(v, row)]
        piv = next((i for i, x in enumerate(v) if x), None)
        if piv is None:
            return False
        inv = pow(v[piv], -1, p)
        self.rows.append((piv, [x * inv % p for x in v]))
        return True

    def __len__(self):
        return len(self.rows)


def span_dim(vectors, p):
    return rank(vectors, p) if vectors else 0


def intersection_dim(U, W, p):
    """dim(span U ∩ span W) = dim U + dim W - dim(U + W)."""
    return span_dim(U, p) + span_dim(W, p) - span_dim(list(U) + list(W), p)


def same_span(U, W, p):
    du, dw = span_dim(U, p), span_dim(W, p)
    return du == dw and span_dim(list(U) + list(W), p) == du


# ---- polynomials ---------------------------------------------------------

def poly_trim(a):
    while a and a[-1] == 0:
        a.pop()
    return a


def poly_sub(a, b, p):
    n = max(len(a), len(b))
    return poly_trim([((a[i] if i < len(a) else 0) - (b[i] if i < len(b) else 0)) % p for i in range(n)])


def poly_mul(a, b, p):
    if not a or not b:
        return []
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return poly_trim([x % p for x in out])


def poly_divmod(a, b, p):
    """(quotient, remainder); coefficients reduced once per leading term."""
    a = list(a)
    n = len(b) - 1
    inv = pow(b[-1], -1, p)
    q = [0] * max(0, len(a) - n)
    for k in range(len(a) - 1, n - 1, -1):
        c = a[k] % p * inv % p
        if c:
            q[k - n] = c
            base = k - n
            for j in range(n):
                a[base + j] -= c * b[j]
    return poly_trim(q), poly_trim([x % p for x in a[:n]])


def poly_mod(a, b, p):
    return poly_divmod(a, b, p)[1]


def poly_gcd(a, b, p):
    a, b = poly_trim(list(a)), poly_trim(list(b))
    while b:
        a, b = b, poly_mod(a, b, p)
    if a:
        inv = pow(a[-1], -1, p)
        a = [x * inv % p for x in a]
    return a


def poly_powmod(base, e, m, p):
    result = [1]
    base = poly_mod(base, m, p)
    while e:
        if e & 1:
            result = poly_mod(poly_mul(result, base, p), m, p)
        base = poly_mod(poly_mul(base, base, p), m, p)
        e >>= 1
    return result


def charpoly(A, p):
    """Characteristic polynomial det(xI - A), monic, lowest degree first.

    Similarity reduction to upper Hessenberg form, then the standard
    recurrence on its leading principal minors (Cohen, "A Course in
    Computational Algebraic Number Theory", algorithm 2.2.9): O(n^3)."""
    n = len(A)
    H = [[x % p for x in row] for row in A]
    for m in range(1, n - 1):
        piv = next((i for i in range(m, n) if H[i][m - 1]), None)
        if piv is None:
            continue
        if piv != m:
            H[piv], H[m] = H[m], H[piv]
            for row in H:
                row[piv], row[m] = row[m], row[piv]
        inv = pow(H[m][m - 1], -1, p)
        for i in range(m + 1, n):
            u = H[i][m - 1] * inv % p
            if u:
                Hi, Hm = H[i], H[m]
                for j in range(n):
                    Hi[j] = (Hi[j] - u * Hm[j]) % p
                for row in H:
                    row[m] = (row[m] + u * row[i]) % p
    polys = [[1]]  # polys[k] = charpoly of the leading k x k block
    for m in range(n):
        cur = poly_mul([(-H[m][m]) % p, 1], polys[m], p)
        prod = 1
        for i in range(m - 1, -1, -1):
            prod = prod * H[i + 1][i] % p
            coeff = H[i][m] * prod % p
            if coeff:
                cur = poly_sub(cur, [c * coeff % p for c in polys[i]], p)
        polys.append(cur)
    return polys[n] + [0] * (n + 1 - len(polys[n]))


def roots(f, p):
    """Distinct roots in GF(p) of polynomial f (odd p), sorted."""
    f = poly_trim(list(f))
    if len(f) <= 1:
        return []
    g = poly_gcd(poly_sub(poly_powmod([0, 1], p, f, p), [0, 1], p), f, p)  # product of (x - r)
    out = []
    stack = [g]
    a = 0
    while stack:
        h = stack.pop()
        if len(h) <= 1:
            continue
        if len(h) == 2:
            out.append((-h[0]) * pow(h[1], -1, p) % p)
            continue
        while True:  # equal-degree splitting with (x + a)^((p-1)/2) - 1
            a += 1
            d = poly_gcd(poly_sub(poly_powmod([a, 1], (p - 1) // 2, h, p), [1], p), h, p)
            if 1 < len(d) < len(h):
                stack.append(d)
                stack.append(poly_divmod(h, d, p)[0])
                break
    return sorted(out)
