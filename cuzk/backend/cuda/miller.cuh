// Multi-Miller loops of pairing products (SnarkPack aggregation), one thread per G2 point.
//
// Expects field.cuh, fq_params and the generated constants before it (XI0, LOOP, LOOP_LEN,
// CONJ_AT_END, BN_TAIL, M_TWIST, TWO_INV, TWIST_B3, ...), and the generated step and Fq12
// functions after it (pairing_source.py): the formulas are the CPU's, emitted as C++.
//
// A thread runs the doubling and addition steps of its G2 point Q once and evaluates each
// line at the G1 points of its pairs (at most MAXT; the host splits a point with more), each
// pair with its own f. Values stay in Montgomery form, fully reduced; an Fq12 is six Fq2
// (c0 then c1 of Fq12, each three Fq2 of Fq6): the host layout uint64[2, 3, 2, L].
#pragma once

#define MAXT 4
#define MILLER_THREADS 64

typedef Fp<fq_params> F1;
typedef Fp2<fq_params> F2;
static constexpr int NQ = fq_params::N;  // u32 limbs of Fq

__device__ __forceinline__ F2 fq2_add(const F2& a, const F2& b) { return fp_add(a, b); }
__device__ __forceinline__ F2 fq2_sub(const F2& a, const F2& b) { return fp_sub(a, b); }
__device__ __forceinline__ F2 fq2_neg(const F2& a) { return fp_neg(a); }
__device__ __forceinline__ F2 fq2_dbl(const F2& a) { return fp_dbl(a); }
__device__ __forceinline__ F2 fq2_mul(const F2& a, const F2& b) { return fp_mul(a, b); }
__device__ __forceinline__ F2 fq2_sqr(const F2& a) { return fp_sqr(a); }
__device__ __forceinline__ F2 fq2_conj(const F2& a) { return {a.c0, fp_neg(a.c1)}; }
__device__ __forceinline__ F2 fq2_mul_fq(const F2& a, const F1& s) { return {fp_mul(a.c0, s), fp_mul(a.c1, s)}; }

// XI0 a for the tower's xi = XI0 + u (1 on BLS12-381, 9 on BN254)
__device__ __forceinline__ F1 fq_times_xi0(const F1& a) {
    if (XI0 == 9) return fp_add(fp_dbl(fp_dbl(fp_dbl(a))), a);
    F1 r = a;
#pragma unroll
    for (int i = 1; i < XI0; i++) r = fp_add(r, a);
    return r;
}
__device__ __forceinline__ F2 fq2_mul_xi(const F2& a) {
    return {fp_sub(fq_times_xi0(a.c0), a.c1), fp_add(fq_times_xi0(a.c1), a.c0)};
}

__device__ __noinline__ void dbl_raw(F2* r, const F2* T);
__device__ __noinline__ void add_raw(F2* r, const F2* T, const F2 qx, const F2 qy);
__device__ __noinline__ void fq12_sqr(F2* r, const F2* a);
__device__ __noinline__ void fq12_mul(F2* r, const F2* a, const F2* b);
__device__ __noinline__ void fq12_line(F2* r, const F2* a, const F2 c0, const F2 c1, const F2 c2);
#if BN_TAIL
__device__ __noinline__ void twist_frob(F2* r, const F2 qx, const F2 qy);
#endif

// f *= the line l (unscaled coefficients) evaluated at P: a = 3 xP (tangent) or xP, b = -yP.
// M-twist lines (c0, c1, c2) scale to (c0, c1 a, c2 b), D-twist ones to (c0 b, c1 a, c2).
__device__ __forceinline__ void absorb(F2* f, const F2* l, const F1& a, const F1& b) {
#if M_TWIST
    fq12_line(f, f, l[0], fq2_mul_fq(l[1], a), fq2_mul_fq(l[2], b));
#else
    fq12_line(f, f, fq2_mul_fq(l[0], b), fq2_mul_fq(l[1], a), l[2]);
#endif
}

__device__ __forceinline__ void fq12_load_at(F2* f, const u32* src) {
#pragma unroll
    for (int k = 0; k < 6; k++) f[k] = F2::load(src + k * 2 * NQ);
}

__device__ __forceinline__ void fq12_store_at(u32* dst, const F2* f) {
#pragma unroll
    for (int k = 0; k < 6; k++) f[k].store(dst + k * 2 * NQ);
}

// out[j] (Fq12) = the Miller loop f_{s,Q}(P_j) of pair j, for the pairs j in q_ptr[q]..q_ptr[q+1]-1
// of G2 point g2[q] (affine), P_j = g1[j] (affine, in pair order); none at infinity.
extern "C" __global__ void __launch_bounds__(MILLER_THREADS)
miller_pairs(const u32* __restrict__ g1, const u32* __restrict__ g2, const long long* __restrict__ q_ptr,
             const int nq, u32* __restrict__ out) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const long long j0 = q_ptr[q];
    const int t = (int)(q_ptr[q + 1] - j0);
    const u32* qp = g2 + (size_t)q * 4 * NQ;
    const F2 qx = F2::load(qp), qy = F2::load(qp + 2 * NQ);
    F2 T[3] = {qx, qy, F2::one()};
    F1 px[MAXT], ny[MAXT], x3[MAXT];
    F2 f[MAXT][6];
    for (int i = 0; i < t; i++) {
        const u32* pp = g1 + (size_t)(j0 + i) * 2 * NQ;
        px[i] = F1::load(pp);
        ny[i] = fp_neg(F1::load(pp + NQ));
        x3[i] = fp_add(fp_dbl(px[i]), px[i]);
        f[i][0] = F2::one();
#pragma unroll
        for (int k = 1; k < 6; k++) f[i][k] = F2::zero();
    }
    F2 s[6];
    for (int k = 0; k < LOOP_LEN; k++) {
        if (k)
            for (int i = 0; i < t; i++) fq12_sqr(f[i], f[i]);
        dbl_raw(s, T);
        T[0] = s[0]; T[1] = s[1]; T[2] = s[2];
        for (int i = 0; i < t; i++) absorb(f[i], s + 3, x3[i], ny[i]);
        const int d = LOOP[k];
        if (d) {
            add_raw(s, T, qx, d > 0 ? qy : fq2_neg(qy));
            T[0] = s[0]; T[1] = s[1]; T[2] = s[2];
            for (int i = 0; i < t; i++) absorb(f[i], s + 3, px[i], ny[i]);
        }
    }
#if BN_TAIL
    F2 fr[4];
    twist_frob(fr, qx, qy);
    add_raw(s, T, fr[0], fr[1]);
    T[0] = s[0]; T[1] = s[1]; T[2] = s[2];
    for (int i = 0; i < t; i++) absorb(f[i], s + 3, px[i], ny[i]);
    add_raw(s, T, fr[2], fr[3]);
    for (int i = 0; i < t; i++) absorb(f[i], s + 3, px[i], ny[i]);
#endif
    for (int i = 0; i < t; i++) {
#if CONJ_AT_END
#pragma unroll
        for (int k = 3; k < 6; k++) f[i][k] = fq2_neg(f[i][k]);
#endif
        fq12_store_at(out + (size_t)(j0 + i) * 12 * NQ, f[i]);
    }
}

// out[c] = prod of in[idx[t]] over t in starts[c]..starts[c+1]-1 (a non-empty run): one level of
// the per-product reduction.
extern "C" __global__ void __launch_bounds__(MILLER_THREADS)
fq12_chunk_products(const u32* __restrict__ in, const long long* __restrict__ idx,
                    const long long* __restrict__ starts, const int nch, u32* __restrict__ out) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nch) return;
    F2 acc[6], b[6];
    fq12_load_at(acc, in + (size_t)idx[starts[c]] * 12 * NQ);
    for (long long t = starts[c] + 1; t < starts[c + 1]; t++) {
        fq12_load_at(b, in + (size_t)idx[t] * 12 * NQ);
        fq12_mul(acc, acc, b);
    }
    fq12_store_at(out + (size_t)c * 12 * NQ, acc);
}
