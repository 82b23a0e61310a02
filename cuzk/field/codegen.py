"""Source templates for Montgomery arithmetic, unrolled per limb count.

Each field gets scalar functions on limb tuples (values stay in registers;
LLVM inlines them into the kernels) and parallel array kernels over
`uint64[n, L]`. The templates are written once; `prefix` names the field in
the generated module (e.g. `fr`, `fq`) so one module can hold several fields.
"""

from __future__ import annotations

from .params import FieldParams


def _t(names):
    return "(" + ", ".join(names) + (",)" if len(names) == 1 else ")")


def _u64(x: int) -> str:
    return f"np.uint64({x:#x})"


def field_source(f: str, P: FieldParams) -> str:
    L = P.limbs
    F = f.upper()
    a = [f"a{i}" for i in range(L)]
    b = [f"b{i}" for i in range(L)]
    t = [f"t{i}" for i in range(L)]
    d = [f"d{i}" for i in range(L)]
    o = []
    w = o.append
    for i, limb in enumerate(P.to_limbs(P.p)):
        w(f"{F}_P{i} = {_u64(limb)}")
    w(f"{F}_INV = {_u64(P.inv)}")
    w(f"{F}_L = {L}")
    w(f"{F}_ZERO = {_t([_u64(0)] * L)}")
    w(f"{F}_ONE = {_t([_u64(x) for x in P.to_limbs(P.R)])}")
    w(f"{F}_R2 = {_t([_u64(x) for x in P.to_limbs(P.R2)])}")
    w(f"{F}_RAW1 = {_t([_u64(x) for x in P.to_limbs(1)])}")
    w(f"{F}_PM2 = {_t([_u64(x) for x in P.to_limbs(P.p - 2)])}")
    w(f"{F}_SQRT_EXP = {_t([_u64(x) for x in P.to_limbs((P.p + 1) // 4)])}")
    w(f"{F}_HALF = {_t([_u64(x) for x in P.to_limbs((P.p - 1) // 2)])}")
    w("")

    # conditional subtraction of p from t (t < 2p)
    def csub(src, indent="    "):
        lines = []
        for i in range(L):
            cin = "Z64" if i == 0 else "br"
            lines.append(f"{indent}{d[i]}, br = sbb({src[i]}, {F}_P{i}, {cin})")
        lines.append(f"{indent}if br:")
        lines.append(f"{indent}    return {_t(src)}")
        lines.append(f"{indent}return {_t(d)}")
        return lines

    w("@njit(cache=True)")
    w(f"def {f}_add(a, b):")
    w(f"    {', '.join(a)} = a")
    w(f"    {', '.join(b)} = b")
    for i in range(L):
        cin = "Z64" if i == 0 else "c"
        w(f"    {t[i]}, c = adc({a[i]}, {b[i]}, {cin})")
    o.extend(csub(t))
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_dbl(a):")
    w(f"    return {f}_add(a, a)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_sub(a, b):")
    w(f"    {', '.join(a)} = a")
    w(f"    {', '.join(b)} = b")
    for i in range(L):
        cin = "Z64" if i == 0 else "br"
        w(f"    {t[i]}, br = sbb({a[i]}, {b[i]}, {cin})")
    w("    if br:")
    for i in range(L):
        cin = "Z64" if i == 0 else "c"
        w(f"        {t[i]}, c = adc({t[i]}, {F}_P{i}, {cin})")
    w(f"    return {_t(t)}")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_neg(a):")
    w(f"    return {f}_sub({F}_ZERO, a)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_is_zero(a):")
    w("    return " + " and ".join(f"a[{i}] == Z64" for i in range(L)))
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_eq(a, b):")
    w("    return " + " and ".join(f"a[{i}] == b[{i}]" for i in range(L)))
    w("")
    # canonical comparison a > b on limbs (most significant first)
    w("@njit(cache=True)")
    w(f"def {f}_gt(a, b):")
    for i in reversed(range(L)):
        w(f"    if a[{i}] != b[{i}]:")
        w(f"        return a[{i}] > b[{i}]")
    w("    return False")
    w("")
    # CIOS Montgomery multiplication, "no-carry" variant (top bit of p free)
    w("@njit(cache=True)")
    w(f"def {f}_mul(a, b):")
    w(f"    {', '.join(a)} = a")
    w(f"    {', '.join(b)} = b")
    for i in range(L):
        for j in range(L):
            acc = "Z64" if i == 0 else t[j]
            cin = "Z64" if j == 0 else "c"
            w(f"    {t[j]}, c = mac({a[j]}, {b[i]}, {acc}, {cin})")
        w("    A = c")
        w(f"    m = {t[0]} * {F}_INV")
        w(f"    _, c = mac(m, {F}_P0, {t[0]}, Z64)")
        for j in range(1, L):
            w(f"    {t[j-1]}, c = mac(m, {F}_P{j}, {t[j]}, c)")
        w(f"    {t[L-1]} = c + A")
    o.extend(csub(t))
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_sqr(a):")
    w(f"    return {f}_mul(a, a)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_pow(a, e):")
    w(f"    r = {F}_ONE")
    w("    for i in range(len(e) * 64 - 1, -1, -1):")
    w(f"        r = {f}_mul(r, r)")
    w("        if (e[i >> 6] >> np.uint64(i & 63)) & ONE64:")
    w(f"            r = {f}_mul(r, a)")
    w("    return r")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_inv(a):")
    w(f"    return {f}_pow(a, {F}_PM2)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_from_mont(a):")
    w(f"    return {f}_mul(a, {F}_RAW1)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_to_mont(a):")
    w(f"    return {f}_mul(a, {F}_R2)")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_sqrt(a):")
    w(f"    x = {f}_pow(a, {F}_SQRT_EXP)")
    w(f"    return {f}_eq({f}_mul(x, x), a), x")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_load(arr, i):")
    w(f"    return {_t([f'arr[i, {k}]' for k in range(L)])}")
    w("")
    w("@njit(cache=True)")
    w(f"def {f}_store(arr, i, v):")
    for k in range(L):
        w(f"    arr[i, {k}] = v[{k}]")
    w("")
    o.append(VEC_TEMPLATE.replace("{f}", f).replace("{F}", F))
    return "\n".join(o) + "\n"


VEC_TEMPLATE = '''
@njit(parallel=True, nogil=True, cache=True)
def {f}_vadd(a, b, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_add({f}_load(a, i), {f}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vsub(a, b, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_sub({f}_load(a, i), {f}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vneg(a, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_neg({f}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vmul(a, b, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_mul({f}_load(a, i), {f}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vscale(a, s, out):
    k = {f}_load(s, 0)
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_mul({f}_load(a, i), k))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vsqr(a, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_sqr({f}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vpow(a, e, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_pow({f}_load(a, i), e))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vto_mont(a, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_to_mont({f}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vfrom_mont(a, out):
    for i in prange(a.shape[0]):
        {f}_store(out, i, {f}_from_mont({f}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f}_vsqrt(a, out, ok):
    for i in prange(a.shape[0]):
        good, x = {f}_sqrt({f}_load(a, i))
        ok[i] = good
        {f}_store(out, i, x)

@njit(parallel=True, nogil=True, cache=True)
def {f}_vinv(a, out, nchunks):
    """Batch inversion (Montgomery's trick) per chunk; zero maps to zero."""
    n = a.shape[0]
    nchunks = max(1, min(n, nchunks))
    for c in prange(nchunks):
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        acc = {F}_ONE
        for i in range(lo, hi):
            x = {f}_load(a, i)
            {f}_store(out, i, acc)
            if not {f}_is_zero(x):
                acc = {f}_mul(acc, x)
        inv = {f}_inv(acc)
        for i in range(hi - 1, lo - 1, -1):
            x = {f}_load(a, i)
            if {f}_is_zero(x):
                {f}_store(out, i, {F}_ZERO)
            else:
                {f}_store(out, i, {f}_mul(inv, {f}_load(out, i)))
                inv = {f}_mul(inv, x)

@njit(parallel=True, nogil=True, cache=True)
def {f}_vcanon_gt_half(a, out):
    """out[i] = canonical(a[i]) > (p-1)/2, the 'lexicographically largest' flag."""
    for i in prange(a.shape[0]):
        out[i] = {f}_gt({f}_from_mont({f}_load(a, i)), {F}_HALF)
'''


def fq2_source(f2: str, f: str, P: FieldParams, xi: tuple[int, int]) -> str:
    """Fq2 = Fq[u]/(u^2 + 1) (both curves), with tower non-residue xi = xi0 + xi1*u."""
    assert xi[1] == 1
    src = FQ2_TEMPLATE.replace("{f2}", f2).replace("{f}", f).replace("{F2}", f2.upper()).replace("{F}", f.upper())
    mont = lambda x: _t([_u64(v) for v in P.to_limbs(x * P.R % P.p)])  # noqa: E731
    head = [
        f"{f2.upper()}_XI0 = {mont(xi[0])}",
        f"{f2.upper()}_ZERO = ({f.upper()}_ZERO, {f.upper()}_ZERO)",
        f"{f2.upper()}_ONE = ({f.upper()}_ONE, {f.upper()}_ZERO)",
        f"{f2.upper()}_MINUS_ONE = ({mont(P.p - 1)}, {f.upper()}_ZERO)",
        f"{f2.upper()}_EXP_P34 = {_t([_u64(x) for x in P.to_limbs((P.p - 3) // 4)])}",
        f"{f2.upper()}_EXP_P12 = {_t([_u64(x) for x in P.to_limbs((P.p - 1) // 2)])}",
    ]
    return "\n".join(head) + "\n" + src


FQ2_TEMPLATE = '''
@njit(cache=True)
def {f2}_add(a, b):
    return ({f}_add(a[0], b[0]), {f}_add(a[1], b[1]))

@njit(cache=True)
def {f2}_sub(a, b):
    return ({f}_sub(a[0], b[0]), {f}_sub(a[1], b[1]))

@njit(cache=True)
def {f2}_dbl(a):
    return ({f}_add(a[0], a[0]), {f}_add(a[1], a[1]))

@njit(cache=True)
def {f2}_neg(a):
    return ({f}_neg(a[0]), {f}_neg(a[1]))

@njit(cache=True)
def {f2}_conj(a):
    return (a[0], {f}_neg(a[1]))

@njit(cache=True)
def {f2}_is_zero(a):
    return {f}_is_zero(a[0]) and {f}_is_zero(a[1])

@njit(cache=True)
def {f2}_eq(a, b):
    return {f}_eq(a[0], b[0]) and {f}_eq(a[1], b[1])

@njit(cache=True)
def {f2}_mul(a, b):
    v0 = {f}_mul(a[0], b[0])
    v1 = {f}_mul(a[1], b[1])
    s = {f}_mul({f}_add(a[0], a[1]), {f}_add(b[0], b[1]))
    return ({f}_sub(v0, v1), {f}_sub({f}_sub(s, v0), v1))

@njit(cache=True)
def {f2}_sqr(a):
    m = {f}_mul(a[0], a[1])
    return ({f}_mul({f}_add(a[0], a[1]), {f}_sub(a[0], a[1])), {f}_add(m, m))

@njit(cache=True)
def {f2}_mul_fq(a, s):
    return ({f}_mul(a[0], s), {f}_mul(a[1], s))

@njit(cache=True)
def {f2}_mul_xi(a):
    """a * (xi0 + u)."""
    return ({f}_sub({f}_mul(a[0], {F2}_XI0), a[1]), {f}_add({f}_mul(a[1], {F2}_XI0), a[0]))

@njit(cache=True)
def {f2}_inv(a):
    t = {f}_inv({f}_add({f}_mul(a[0], a[0]), {f}_mul(a[1], a[1])))
    return ({f}_mul(a[0], t), {f}_neg({f}_mul(a[1], t)))

@njit(cache=True)
def {f2}_pow(a, e):
    r = {F2}_ONE
    for i in range(len(e) * 64 - 1, -1, -1):
        r = {f2}_sqr(r)
        if (e[i >> 6] >> np.uint64(i & 63)) & ONE64:
            r = {f2}_mul(r, a)
    return r

@njit(cache=True)
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

@njit(cache=True)
def {f2}_load(arr, i):
    return ({f}_load(arr[:, 0, :], i), {f}_load(arr[:, 1, :], i))

@njit(cache=True)
def {f2}_store(arr, i, v):
    {f}_store(arr[:, 0, :], i, v[0])
    {f}_store(arr[:, 1, :], i, v[1])

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vadd(a, b, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_add({f2}_load(a, i), {f2}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vsub(a, b, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_sub({f2}_load(a, i), {f2}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vneg(a, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_neg({f2}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vmul(a, b, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_mul({f2}_load(a, i), {f2}_load(b, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vsqr(a, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_sqr({f2}_load(a, i)))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vinv(a, out):
    for i in prange(a.shape[0]):
        x = {f2}_load(a, i)
        if {f2}_is_zero(x):
            {f2}_store(out, i, x)
        else:
            {f2}_store(out, i, {f2}_inv(x))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vpow(a, e, out):
    for i in prange(a.shape[0]):
        {f2}_store(out, i, {f2}_pow({f2}_load(a, i), e))

@njit(parallel=True, nogil=True, cache=True)
def {f2}_vsqrt(a, out, ok):
    for i in prange(a.shape[0]):
        good, x = {f2}_sqrt({f2}_load(a, i))
        ok[i] = good
        {f2}_store(out, i, x)
'''
