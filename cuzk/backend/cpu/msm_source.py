"""Source templates for the CPU MSM kernels, generated per group (G1, G2).

Built on `curve_kernels(curve)` (the XYZZ group law, Fq/Fq2 arithmetic).
Points are read and written with explicit per-limb indexing (generated for
the limb count and the G1/G2 coordinate shape) so the hot loops keep field
elements in registers instead of going through array views.

Every entry point is a serial `nogil` kernel doing one task (one window over
one point range, or one range of a plain sum); msm.py runs the tasks from a
thread pool, which balances load dynamically and compiles much faster than
numba `parallel=True` kernels. Only entry points are cached; helpers compile
with the kernel that uses them.
"""

from __future__ import annotations

from cuzk.field.codegen import Source, fill, index_paths, nested

# (group prefix, field prefix)
GROUPS = (("g1", "fq"), ("g2", "fq2"))


def _accessors(g: str, L: int, ext: bool) -> str:
    """{g}_m_ld_* / {g}_m_st_*: points and field elements at arr[i, k] by explicit limb indices."""
    shape = (2, L) if ext else (L,)

    def ld(k):
        return nested(shape, lambda q: f"arr[i, {k}, {', '.join(map(str, q))}]")

    def st(k, v):
        s(*(f"arr[i, {k}, {', '.join(map(str, q))}] = {v}{''.join(f'[{m}]' for m in q)}" for q in index_paths(shape)))

    s = Source()
    with s.function(f"{g}_m_ld_affine", ("arr", "i"), "@njit"):
        s(f"return ({ld(0)}, {ld(1)})")
    with s.function(f"{g}_m_st_affine", ("arr", "i", "q"), "@njit"):
        st(0, "q[0]")
        st(1, "q[1]")
    with s.function(f"{g}_m_ld_xyzz", ("arr", "i"), "@njit"):
        s("return (" + ", ".join(ld(k) for k in range(4)) + ")")
    with s.function(f"{g}_m_st_xyzz", ("arr", "i", "p"), "@njit"):
        for k in range(4):
            st(k, f"p[{k}]")
    with s.function(f"{g}_m_ld_fe", ("arr", "i", "k"), "@njit"):
        s(f"return {ld('k')}")
    with s.function(f"{g}_m_st_fe", ("arr", "i", "k", "v"), "@njit"):
        st("k", "v")
    with s.function(f"{g}_m_is_inf", ("arr", "i"), "@njit"):
        terms = [f"arr[i, {k}, {', '.join(map(str, q))}]" for k in range(2) for q in index_paths(shape)]
        s("return (" + " | ".join(terms) + ") == Z64")
    return s.text()


def msm_source(limbs: int) -> str:
    """All MSM kernels of a curve (to follow `from <curve module> import *`)."""
    out = []
    for g, f in GROUPS:
        coord = f"2, {limbs}" if g == "g2" else f"{limbs}"
        out.append(_accessors(g, limbs, g == "g2") + fill(MSM_TEMPLATE + AFFINE_TEMPLATE, g=g, f=f, COORD=coord))
    return "\n".join(out)


MSM_TEMPLATE = '''
@njit
def {g}_digit(scalars, i, c, w, hw):
    """Signed digit w of scalar i, in [-(2^(c-1) - 1), 2^(c-1)].

    A window value above 2^(c-1) becomes value - 2^c with a carry into the
    next window (so only 2^(c-1) buckets are needed; the base is negated
    instead). The carry into window w is [k mod 2^(wc) > hw] with
    hw = sum_(v<w) 2^(c-1) 2^(vc), the largest value the lower digits reach,
    so any window is computed on its own."""
    bit = w * c
    carry = 0
    for l in range(3, -1, -1):
        if 64 * l >= bit:
            continue
        x = scalars[i, l]
        if 64 * (l + 1) > bit:
            x &= (ONE64 << np.uint64(bit - 64 * l)) - ONE64
        if x != hw[l]:
            if x > hw[l]:
                carry = 1
            break
    limb = bit >> 6
    off = bit & 63
    v = 0
    if limb < 4:
        x = scalars[i, limb] >> np.uint64(off)
        if off + c > 64 and limb < 3:
            x |= scalars[i, limb + 1] << np.uint64(64 - off)
        v = np.int64(x & ((ONE64 << np.uint64(c)) - ONE64))
    d = v + carry
    if d > (1 << (c - 1)):
        d -= 1 << c
    return d


@njit
def {g}_reduce_buckets_xyzz(buckets, nb):
    """sum_b (b + 1) * buckets[b] by the running-sum trick."""
    run = {G}_XYZZ_ZERO
    tot = {G}_XYZZ_ZERO
    for b in range(nb - 1, -1, -1):
        run = {g}_xyzz_add(run, {g}_m_ld_xyzz(buckets, b))
        tot = {g}_xyzz_add(tot, run)
    return tot


@njit(nogil=True, cache=True)
def {g}_window_xyzz(bases, idx, scalars, c, w, hw, lo, hi, buckets, out, slot):
    """out[slot] = window w of the MSM over points idx[lo:hi]: buckets filled
    with mixed XYZZ additions, then reduced. buckets: scratch (>= 2^(c-1), 4, ...)."""
    nb = 1 << (c - 1)
    for b in range(nb):
        {g}_m_st_fe(buckets, b, 2, {F}_ZERO)
    for j in range(lo, hi):
        i = idx[j]
        d = {g}_digit(scalars, i, c, w, hw)
        if d == 0:
            continue
        q = {g}_m_ld_affine(bases, i)
        if d < 0:
            q = {g}_affine_neg(q)
            b = -d - 1
        else:
            b = d - 1
        {g}_m_st_xyzz(buckets, b, {g}_xyzz_add_affine({g}_m_ld_xyzz(buckets, b), q))
    {g}_m_st_xyzz(out, slot, {g}_reduce_buckets_xyzz(buckets, nb))


@njit(nogil=True, cache=True)
def {g}_msm_combine(sums, task_win, nw, c, out):
    """out[0] = sum_w 2^(c*w) * (sum of the task sums of window w), by doubling."""
    wins = np.zeros((nw, 4, {COORD}), dtype=np.uint64)
    for task in range(sums.shape[0]):
        w = task_win[task]
        {g}_m_st_xyzz(wins, w, {g}_xyzz_add({g}_m_ld_xyzz(wins, w), {g}_m_ld_xyzz(sums, task)))
    acc = {G}_XYZZ_ZERO
    for w in range(nw - 1, -1, -1):
        if not {f}_is_zero(acc[2]):
            for _ in range(c):
                acc = {g}_xyzz_dbl(acc)
        acc = {g}_xyzz_add(acc, {g}_m_ld_xyzz(wins, w))
    {g}_m_st_xyzz(out, 0, acc)


@njit(nogil=True, cache=True)
def {g}_sum_xyzz(bases, idx, lo, hi, out, slot):
    """out[slot] = sum of bases[idx[lo:hi]] (mixed XYZZ additions)."""
    acc = {G}_XYZZ_ZERO
    for j in range(lo, hi):
        acc = {g}_xyzz_add_affine(acc, {g}_m_ld_affine(bases, idx[j]))
    {g}_m_st_xyzz(out, slot, acc)

'''


AFFINE_TEMPLATE = '''
@njit
def {g}_pair_class(P, Q):
    """0: generic (den x2 - x1); 1: doubling (den 2 y1); 2: P + Q = O; 3: P = O; 4: Q = O."""
    if {g}_affine_is_zero(P):
        return 3
    if {g}_affine_is_zero(Q):
        return 4
    if {f}_eq(P[0], Q[0]):
        if {f}_eq(P[1], Q[1]) and not {f}_is_zero(P[1]):
            return 1
        return 2
    return 0


@njit
def {g}_pair_den(P, Q, k):
    if k == 0:
        return {f}_sub(Q[0], P[0])
    return {f}_dbl(P[1])


@njit
def {g}_pair_finish(P, Q, k, inv):
    """Affine P + Q (k = 0) or 2P (k = 1) given inv = 1 / den."""
    if k == 0:
        lam = {f}_mul({f}_sub(Q[1], P[1]), inv)
    else:
        xx = {f}_sqr(P[0])
        lam = {f}_mul({f}_add({f}_dbl(xx), xx), inv)
    x3 = {f}_sub({f}_sub({f}_sqr(lam), P[0]), Q[0])
    y3 = {f}_sub({f}_mul(lam, {f}_sub(P[0], x3)), P[1])
    return (x3, y3)


@njit
def {g}_tree_round(A, B, res, act_b, act_s, act_k, nact, dst, pref, nact_b, nact_s, nact_k):
    """One halving round over the active buckets' segments of A, all pairs sharing
    one inversion (Montgomery's trick). Buckets left with one point go to res;
    the others get segments in B and in the next active list; returns its size."""
    acc = {F}_ONE
    q = 0
    nn = 0
    pos = 0
    for a in range(nact):
        s = act_s[a]
        k = act_k[a]
        h = (k + 1) >> 1
        if h >= 2:
            dst[a] = pos
            nact_b[nn] = act_b[a]
            nact_s[nn] = pos
            nact_k[nn] = h
            nn += 1
            pos += h
        else:
            dst[a] = -1
        for t in range(k >> 1):
            P = {g}_m_ld_affine(A, s + 2 * t)
            Q = {g}_m_ld_affine(A, s + 2 * t + 1)
            cls = {g}_pair_class(P, Q)
            {g}_m_st_fe(pref, q, 0, acc)
            if cls <= 1:
                acc = {f}_mul(acc, {g}_pair_den(P, Q, cls))
            q += 1
    inv = {f}_inv(acc)
    for a in range(nact - 1, -1, -1):
        s = act_s[a]
        k = act_k[a]
        d = dst[a]
        b = act_b[a]
        if (k & 1) and d >= 0:
            {g}_m_st_affine(B, d + (k >> 1), {g}_m_ld_affine(A, s + k - 1))
        for t in range((k >> 1) - 1, -1, -1):
            q -= 1
            P = {g}_m_ld_affine(A, s + 2 * t)
            Q = {g}_m_ld_affine(A, s + 2 * t + 1)
            cls = {g}_pair_class(P, Q)
            if cls <= 1:
                den = {g}_pair_den(P, Q, cls)
                dinv = {f}_mul(inv, {g}_m_ld_fe(pref, q, 0))
                inv = {f}_mul(inv, den)
                R = {g}_pair_finish(P, Q, cls, dinv)
            elif cls == 2:
                R = {G}_AFFINE_ZERO
            elif cls == 3:
                R = Q
            else:
                R = P
            if d >= 0:
                {g}_m_st_affine(B, d + t, R)
            else:
                {g}_m_st_affine(res, b, R)
    return nn


@njit
def {g}_tree_reduce(A, B, res, cnt, start, nb, pref, act):
    """res[b] = sum of A[start[b] : start[b] + cnt[b]] for every bucket b (affine)."""
    act_b, act_s, act_k, dst, nact_b, nact_s, nact_k = act[0], act[1], act[2], act[3], act[4], act[5], act[6]
    nact = 0
    for b in range(nb):
        k = cnt[b]
        if k >= 2:
            act_b[nact] = b
            act_s[nact] = start[b]
            act_k[nact] = k
            nact += 1
        elif k == 1:
            {g}_m_st_affine(res, b, {g}_m_ld_affine(A, start[b]))
        else:
            {g}_m_st_affine(res, b, {G}_AFFINE_ZERO)
    src = A
    tgt = B
    while nact > 0:
        nact = {g}_tree_round(src, tgt, res, act_b, act_s, act_k, nact, dst, pref, nact_b, nact_s, nact_k)
        act_b, nact_b = nact_b, act_b
        act_s, nact_s = nact_s, act_s
        act_k, nact_k = nact_k, act_k
        src, tgt = tgt, src


@njit(nogil=True, cache=True)
def {g}_window_affine(bases, idx, scalars, c, w, hw, lo, hi, chunk, A, B, pref, res, cnt, start, cur, act, digs, out, slot):
    """As {g}_window_xyzz, but buckets are summed in affine coordinates: each
    chunk of points is counting-sorted by bucket (the bucket's sum so far as
    its first element) and reduced by halving rounds with batched inversion.
    Scratch: A, B (>= chunk + nb points), pref (>= (chunk + nb) / 2 + 1),
    res (nb points), cnt, start, cur (nb), act (7, nb), digs (chunk)."""
    nb = 1 << (c - 1)
    for b in range(nb):
        {g}_m_st_affine(res, b, {G}_AFFINE_ZERO)
    for clo in range(lo, hi, chunk):
        chi = min(clo + chunk, hi)
        for b in range(nb):
            cnt[b] = 0 if {g}_m_is_inf(res, b) else 1
        for j in range(clo, chi):
            d = {g}_digit(scalars, idx[j], c, w, hw)
            digs[j - clo] = d
            if d != 0:
                cnt[abs(d) - 1] += 1
        s = 0
        for b in range(nb):
            start[b] = s
            cur[b] = s
            if cnt[b] and not {g}_m_is_inf(res, b):
                {g}_m_st_affine(A, s, {g}_m_ld_affine(res, b))
                cur[b] = s + 1
            s += cnt[b]
        for j in range(clo, chi):
            d = digs[j - clo]
            if d == 0:
                continue
            q = {g}_m_ld_affine(bases, idx[j])
            if d < 0:
                q = (q[0], {f}_neg(q[1]))
                b = -d - 1
            else:
                b = d - 1
            {g}_m_st_affine(A, cur[b], q)
            cur[b] += 1
        {g}_tree_reduce(A, B, res, cnt, start, nb, pref, act)
    run = {G}_XYZZ_ZERO
    tot = {G}_XYZZ_ZERO
    for b in range(nb - 1, -1, -1):
        run = {g}_xyzz_add_affine(run, {g}_m_ld_affine(res, b))
        tot = {g}_xyzz_add(tot, run)
    {g}_m_st_xyzz(out, slot, tot)


@njit(nogil=True, cache=True)
def {g}_sum_affine(bases, idx, lo, hi, chunk, nseg, A, B, pref, res, cnt, start, act, out, slot):
    """out[slot] = sum of bases[idx[lo:hi]] (XYZZ).

    Each block of `chunk` points is cut into `nseg` segments summed side by
    side by batched-inversion halving, so even the last rounds share one
    inversion among nseg pairs; the segment sums are then added in XYZZ."""
    acc = {G}_XYZZ_ZERO
    for clo in range(lo, hi, chunk):
        chi = min(clo + chunk, hi)
        k = chi - clo
        for j in range(k):
            {g}_m_st_affine(A, j, {g}_m_ld_affine(bases, idx[clo + j]))
        for sg in range(nseg):
            start[sg] = sg * k // nseg
            cnt[sg] = (sg + 1) * k // nseg - start[sg]
        {g}_tree_reduce(A, B, res, cnt, start, nseg, pref, act)
        for sg in range(nseg):
            acc = {g}_xyzz_add_affine(acc, {g}_m_ld_affine(res, sg))
    {g}_m_st_xyzz(out, slot, acc)
'''
