// Montgomery arithmetic on 32-bit limbs with PTX carry chains.
//
// The host layout is little-endian uint64 limbs in Montgomery form with
// R = 2^(64 L); read as uint32 that is 2L little-endian limbs with the same
// R = 2^(32 N), so buffers copy between host and device unchanged.
// P (a params struct generated per field by consts.py) provides N, INV and
// p(i) / one(i) / r2(i) as compile-time constants once loops are unrolled.
#pragma once
typedef unsigned int u32;
typedef unsigned long long u64;

template <class P>
struct Fp {
    static constexpr int N = P::N;
    u32 v[N];

    __device__ __forceinline__ static Fp zero() {
        Fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    __device__ __forceinline__ static Fp one() {
        Fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r;
    }
    __device__ __forceinline__ bool is_zero() const {
        u32 acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    __device__ __forceinline__ bool operator==(const Fp& o) const {
        u32 acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ o.v[i];
        return acc == 0;
    }
    __device__ __forceinline__ static Fp load(const u32* src) {
        Fp r;
        if (N % 4 == 0) {
            const uint4* s = reinterpret_cast<const uint4*>(src);
#pragma unroll
            for (int i = 0; i < N / 4; i++) {
                uint4 q = s[i];
                r.v[4 * i] = q.x; r.v[4 * i + 1] = q.y; r.v[4 * i + 2] = q.z; r.v[4 * i + 3] = q.w;
            }
        } else {
#pragma unroll
            for (int i = 0; i < N; i++) r.v[i] = src[i];
        }
        return r;
    }
    __device__ __forceinline__ void store(u32* dst) const {
        if (N % 4 == 0) {
            uint4* d = reinterpret_cast<uint4*>(dst);
#pragma unroll
            for (int i = 0; i < N / 4; i++) d[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
        } else {
#pragma unroll
            for (int i = 0; i < N; i++) dst[i] = v[i];
        }
    }
};

// r = a - p if that does not borrow, else a (a < 2p, top bit of p free)
template <class P>
__device__ __forceinline__ Fp<P> fp_reduce_once(const Fp<P>& a) {
    constexpr int N = P::N;
    Fp<P> t;
    u32 borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t.v[0]) : "r"(a.v[0]), "r"(P::p(0)));
#pragma unroll
    for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t.v[i]) : "r"(a.v[i]), "r"(P::p(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    Fp<P> r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = borrow ? a.v[i] : t.v[i];
    return r;
}

template <class P>
__device__ __forceinline__ Fp<P> fp_add(const Fp<P>& a, const Fp<P>& b) {
    constexpr int N = P::N;
    Fp<P> r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    return fp_reduce_once(r);
}

template <class P>
__device__ __forceinline__ Fp<P> fp_sub(const Fp<P>& a, const Fp<P>& b) {
    constexpr int N = P::N;
    Fp<P> r;
    u32 borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
    // add p back masked by the borrow
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(P::p(0) & borrow));
#pragma unroll
    for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(P::p(i) & borrow));
    return r;
}

template <class P>
__device__ __forceinline__ Fp<P> fp_neg(const Fp<P>& a) {
    return fp_sub(Fp<P>::zero(), a);
}

template <class P>
__device__ __forceinline__ Fp<P> fp_dbl(const Fp<P>& a) {
    return fp_add(a, a);
}

// ---- Montgomery product: even/odd limb pairs ---------------------------------
// The running value is X = ev + od * 2^32: products a_j*b_i of even j add into
// ev (their low and high halves land in ev[j], ev[j+1], so each pair is one
// 64-bit multiply-add in SASS), odd j into od, one word up. The two carry
// chains are independent, so ptxas can interleave them. After a row's
// reduction ev[0] = 0 and X / 2^32 = od + ev[1..]: ev[1] is added into od[0]
// and the rest of ev, shifted down two words, becomes the next row's odd
// array, so the arrays swap roles every row. X < 2^32 (a + p) < 2^(32 (N+1))
// keeps each chain's final carry zero (checked by a Python model of these
// instructions over all four fields). The carry flag CC links separate asm
// statements, so every statement that reads or writes it is volatile: NVVM
// keeps their order, ptxas still schedules the two chains side by side.

// acc = sum over even j of a[j] * bi * 2^(32 j)
template <int N>
__device__ __forceinline__ void mul_pairs(u32* acc, const u32* a, u32 bi) {
#pragma unroll
    for (int j = 0; j < N; j += 2)
        asm("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;" : "=r"(acc[j]), "=r"(acc[j + 1]) : "r"(a[j]), "r"(bi));
}

// acc += sum over even j >= S of a[j] * bi * 2^(32 j) (+ CC into word S if CI), carry out
// left in CC; words below S are untouched (S even: fp_sqr's chains start late)
template <int N, int S = 0, bool CI = false>
__device__ __forceinline__ void mad_pairs(u32* acc, const u32* a, u32 bi) {
    if constexpr (CI)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
            : "+r"(acc[S]), "+r"(acc[S + 1]) : "r"(a[S]), "r"(bi));
    else
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
            : "+r"(acc[S]), "+r"(acc[S + 1]) : "r"(a[S]), "r"(bi));
#pragma unroll
    for (int j = S + 2; j < N; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
            : "+r"(acc[j]), "+r"(acc[j + 1]) : "r"(a[j]), "r"(bi));
}

// acc = (acc >> 64 words-wise) + sum over even j >= S of a[j] * bi * 2^(32 j) (+ CC into word
// S if CI): below S the words only move down
template <int N, int S = 0, bool CI = true>
__device__ __forceinline__ void madc_pairs_shift2(u32* acc, const u32* a, u32 bi) {
#pragma unroll
    for (int j = 0; j < S; j += 2) {
        acc[j] = acc[j + 2];
        acc[j + 1] = acc[j + 3];
    }
    if constexpr (S < N - 2 && !CI)
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
            : "=r"(acc[S]), "=r"(acc[S + 1]) : "r"(a[S]), "r"(bi), "r"(acc[S + 2]), "r"(acc[S + 3]));
#pragma unroll
    for (int j = CI ? S : S + 2; j < N - 2; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
            : "=r"(acc[j]), "=r"(acc[j + 1]) : "r"(a[j]), "r"(bi), "r"(acc[j + 2]), "r"(acc[j + 3]));
    if constexpr (S == N - 2 && !CI)
        asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
            : "=r"(acc[N - 2]), "=r"(acc[N - 1]) : "r"(a[N - 2]), "r"(bi));
    else
        asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
            : "=r"(acc[N - 2]), "=r"(acc[N - 1]) : "r"(a[N - 2]), "r"(bi));
}

// -p^-1 mod 2^32 for the rows' m = X_0 * INV. Where it is 0xffffffff (BLS12-381's Fr, p = 1 mod
// 2^32) ptxas folds m into -X_0 and then splits every 64-bit multiply-add of m * p into a low and a
// high one: 253 SASS instructions per product instead of 207. Read from constant memory, it
// cannot fold it.
template <class P>
__device__ __forceinline__ u32 mont_inv() {
    if constexpr (P::INV == 0xffffffffu) return P::inv_opaque();
    else return P::INV;
}

// a row's product: X = X / 2^32 + a * bi with ev aligned at word 0, od at word 1
template <class P>
__device__ __forceinline__ void mont_row_product(u32* ev, u32* od, const u32* a, u32 bi, bool first) {
    constexpr int N = P::N;
    if (first) {
        mul_pairs<N>(od, a + 1, bi);
        mul_pairs<N>(ev, a, bi);
    } else {
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(ev[0]) : "r"(od[1]));
        madc_pairs_shift2<N>(od, a + 1, bi);
        mad_pairs<N>(ev, a, bi);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(od[N - 1]));
    }
}

// X += c * di: a second product beside the row's, or the reduction m * p (di = m); with CI
// the odd chain also takes CC into word 1 (fp_sqr's word-0 sum)
template <int N, bool CI = false>
__device__ __forceinline__ void mont_row_add(u32* ev, u32* od, const u32* c, u32 di) {
    mad_pairs<N, 0, CI>(od, c + 1, di);
    mad_pairs<N>(ev, c, di);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(od[N - 1]));
}

// one row: X = (X + a * bi + m * p) / 2^32
template <class P>
__device__ __forceinline__ void mont_row(u32* ev, u32* od, const u32* a, const u32* pm, u32 bi, bool first) {
    mont_row_product<P>(ev, od, a, bi, first);
    mont_row_add<P::N>(ev, od, pm, ev[0] * mont_inv<P>());
}

// X = x + (y >> 32) after the last row (y[0] is 0 then), reduced once
template <class P>
__device__ __forceinline__ Fp<P> mont_finish(const u32* x, const u32* y) {
    constexpr int N = P::N;
    Fp<P> r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(x[0]), "r"(y[1]));
#pragma unroll
    for (int i = 1; i < N - 1; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(x[i]), "r"(y[i + 1]));
    asm volatile("addc.u32 %0, %1, 0;" : "=r"(r.v[N - 1]) : "r"(x[N - 1]));
    return fp_reduce_once(r);
}

template <class P>
__device__ __forceinline__ Fp<P> fp_mul(const Fp<P>& a, const Fp<P>& b) {
    constexpr int N = P::N;
    static_assert(N % 2 == 0, "limb pairs");
    u32 pm[N], x[N], y[N];
#pragma unroll
    for (int i = 0; i < N; i++) pm[i] = P::p(i);
#pragma unroll
    for (int i = 0; i < N; i += 2) {
        mont_row<P>(x, y, a.v, pm, b.v[i], i == 0);
        mont_row<P>(y, x, a.v, pm, b.v[i + 1], false);
    }
    return mont_finish<P>(x, y);
}

// (a * b + c * d) / R in one Montgomery reduction (the sum of two products
// of a point formula's Y coordinate: one reduction instead of two). Each row
// adds c * d_i beside a * b_i before its reduction, so X < 2^32 (a + c + p):
// fields with 3p < 2^(32 N) only (P::SUM2; BLS12-381's Fr has not the room),
// and the result (ab + cd + mp) / R < p (1 + 2p / R) < 2p.
template <class P>
__device__ __forceinline__ Fp<P> fp_mul_add(const Fp<P>& a, const Fp<P>& b, const Fp<P>& c, const Fp<P>& d) {
    constexpr int N = P::N;
    static_assert(P::SUM2, "fp_mul_add needs 3p < 2^(32 N)");
    u32 pm[N], x[N], y[N];
#pragma unroll
    for (int i = 0; i < N; i++) pm[i] = P::p(i);
#pragma unroll
    for (int i = 0; i < N; i += 2) {  // rows of mont_row with c * d_i added before each reduction
        mont_row_product<P>(x, y, a.v, b.v[i], i == 0);
        mont_row_add<N>(x, y, c.v, d.v[i]);
        mont_row_add<N>(x, y, pm, x[0] * mont_inv<P>());
        mont_row_product<P>(y, x, a.v, b.v[i + 1], false);
        mont_row_add<N>(y, x, c.v, d.v[i + 1]);
        mont_row_add<N>(y, x, pm, y[0] * mont_inv<P>());
    }
    return mont_finish<P>(x, y);
}

// ---- Montgomery squaring: each cross product once, doubled ---------------------
// a^2 = sum_i a_i V_i 2^(32 i) with V_i = a_i 2^(32 i) + 2 sum_{j>i} a_j 2^(32 j), whose words
// at i..N-1 are a_i, a_{i+1} << 1 and then those of d = 2a. Row i multiplies a_i by those N - i
// words only: N (N + 1) / 2 products instead of N^2 (plus the N^2 of the reductions). Like
// fp_mul's they end at the window's top, so a chain that starts late needs no carry propagation:
// below its start the odd array's words only move down. The word-0 sum ev[0] + od[1] that a
// product row adds first comes after the products here (rows i >= 1 have none at word 0),
// and its carry goes into the reduction's odd chain. Bound: V_i <= 2a, so X < 2^32 (2a + p)
// <= 2^(32 (N+1)) keeps the dropped carries zero (the Python model checks it) wherever
// 2a + p <= 2^(32 N): for a < p that is P::SUM2 (3p < 2^(32 N)), so BLS12-381's Fr squares
// with fp_mul. The result (a^2 + m p) / R < p (a / R + 1) < 2p, reduced once.
template <class P, int I>
__device__ __forceinline__ void sqr_row(u32* ev, u32* od, const u32* a, const u32* d, const u32* pm) {
    constexpr int N = P::N;
    u32 v[N];  // V_I's words (those below I unused)
#pragma unroll
    for (int k = 0; k < N; k++) v[k] = k == I ? a[k] : k == I + 1 ? a[k] << 1 : d[k];
    if constexpr (I == 0) {
        mont_row<P>(ev, od, v, pm, a[0], true);
    } else {
        const u32 o1 = od[1];
        madc_pairs_shift2<N, I & ~1, false>(od, v + 1, a[I]);  // odd words k >= I
        if constexpr (I + 1 < N) {                              // even words k >= I
            mad_pairs<N, (I + 1) & ~1>(ev, v, a[I]);
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(od[N - 1]));
        }
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(ev[0]) : "r"(o1));
        mont_row_add<N, true>(ev, od, pm, ev[0] * mont_inv<P>());
    }
}

template <class P, int I>
__device__ __forceinline__ void sqr_rows(u32* x, u32* y, const u32* a, const u32* d, const u32* pm) {
    if constexpr (I < P::N) {
        sqr_row<P, I>(x, y, a, d, pm);
        sqr_rows<P, I + 1>(y, x, a, d, pm);
    }
}

template <class P>
__device__ __forceinline__ Fp<P> fp_sqr(const Fp<P>& a) {
    if constexpr (!P::SUM2) {
        return fp_mul(a, a);
    } else {
        constexpr int N = P::N;
        u32 pm[N], d[N], x[N], y[N];
#pragma unroll
        for (int i = 0; i < N; i++) pm[i] = P::p(i);
        d[0] = a.v[0] << 1;
#pragma unroll
        for (int i = 1; i < N; i++) d[i] = __funnelshift_l(a.v[i - 1], a.v[i], 1);
        sqr_rows<P, 0>(x, y, a.v, d, pm);
        return mont_finish<P>(x, y);
    }
}

// a^e for a small public exponent given as u32 limbs (most significant first scan)
template <class P>
__device__ __forceinline__ Fp<P> fp_pow_u64(const Fp<P>& a, u64 e) {
    Fp<P> r = Fp<P>::one();
    for (int i = 63; i >= 0; i--) {
        r = fp_sqr(r);
        if ((e >> i) & 1) r = fp_mul(r, a);
    }
    return r;
}

// a^(p-2) = 1/a (0 for a = 0): once per thread in the MSM table build, so a
// plain square-and-multiply over the modulus limbs is enough
template <class P>
__device__ __noinline__ Fp<P> fp_inv(const Fp<P>& a) {
    Fp<P> r = Fp<P>::one();
    for (int i = P::N - 1; i >= 0; i--) {
        const u32 e = P::p(i) - (i == 0 ? 2u : 0u);
        for (int b = 31; b >= 0; b--) {
            r = fp_sqr(r);
            if ((e >> b) & 1) r = fp_mul(r, a);
        }
    }
    return r;
}

// ---- Fq2 = Fq[u]/(u^2 + 1) -------------------------------------------------
template <class P>
struct Fp2 {
    Fp<P> c0, c1;
    __device__ __forceinline__ static Fp2 zero() { return {Fp<P>::zero(), Fp<P>::zero()}; }
    __device__ __forceinline__ static Fp2 one() { return {Fp<P>::one(), Fp<P>::zero()}; }
    __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    __device__ __forceinline__ bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
    __device__ __forceinline__ static Fp2 load(const u32* src) { return {Fp<P>::load(src), Fp<P>::load(src + P::N)}; }
    __device__ __forceinline__ void store(u32* dst) const { c0.store(dst); c1.store(dst + P::N); }
};

template <class P> __device__ __forceinline__ Fp2<P> fp_add(const Fp2<P>& a, const Fp2<P>& b) { return {fp_add(a.c0, b.c0), fp_add(a.c1, b.c1)}; }
template <class P> __device__ __forceinline__ Fp2<P> fp_sub(const Fp2<P>& a, const Fp2<P>& b) { return {fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1)}; }
template <class P> __device__ __forceinline__ Fp2<P> fp_dbl(const Fp2<P>& a) { return {fp_dbl(a.c0), fp_dbl(a.c1)}; }
template <class P> __device__ __forceinline__ Fp2<P> fp_neg(const Fp2<P>& a) { return {fp_neg(a.c0), fp_neg(a.c1)}; }
template <class P>
__device__ __noinline__ Fp2<P> fp_mul(const Fp2<P>& a, const Fp2<P>& b) {
    Fp<P> v0 = fp_mul(a.c0, b.c0), v1 = fp_mul(a.c1, b.c1);
    Fp<P> s = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    return {fp_sub(v0, v1), fp_sub(fp_sub(s, v0), v1)};
}
template <class P>
__device__ __noinline__ Fp2<P> fp_sqr(const Fp2<P>& a) {
    Fp<P> m = fp_mul(a.c0, a.c1);
    return {fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1)), fp_dbl(m)};
}

// a * b + c * d in Fq2: two products and a sum (a Karatsuba form with three shared
// reductions measured no faster in the sector's B G2 MSM: 72.7 -> 75.0 ms)
template <class P>
__device__ __forceinline__ Fp2<P> fp_mul_add(const Fp2<P>& a, const Fp2<P>& b, const Fp2<P>& c, const Fp2<P>& d) {
    return fp_add(fp_mul(a, b), fp_mul(c, d));
}

// (c0 - c1 u) / (c0^2 + c1^2), since u^2 = -1
template <class P>
__device__ __noinline__ Fp2<P> fp_inv(const Fp2<P>& a) {
    Fp<P> t = fp_inv(fp_add(fp_sqr(a.c0), fp_sqr(a.c1)));
    return {fp_mul(a.c0, t), fp_neg(fp_mul(a.c1, t))};
}
