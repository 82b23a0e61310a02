// Short-Weierstrass (a = 0) group law in XYZZ coordinates, for any field
// type F with fp_add/fp_sub/fp_mul/fp_sqr/fp_dbl/fp_mul_add overloads (Fp and
// Fp2), so one template serves G1 and G2. Each Y3 = u v - w z is one
// fp_mul_add(u, v, w, -z): over Fq one Montgomery reduction for both products. Affine (0, 0) is the point at infinity.
// The group operations are not inlined: each is thousands of instructions,
// and inlining them at every call site made NVVM compile for many minutes.
#pragma once
#include "field.cuh"

template <class F>
struct Affine {
    F x, y;
    __device__ __forceinline__ bool is_zero() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct XYZZ {
    F X, Y, ZZ, ZZZ;
    __device__ __forceinline__ static XYZZ zero() { return {F::one(), F::one(), F::zero(), F::zero()}; }
    __device__ __forceinline__ bool is_zero() const { return ZZ.is_zero(); }
};

template <class F>
__device__ __noinline__ XYZZ<F> xyzz_dbl(const XYZZ<F>& p) {
    F U = fp_dbl(p.Y);
    F V = fp_sqr(U);
    F W = fp_mul(U, V);
    F S = fp_mul(p.X, V);
    F X1s = fp_sqr(p.X);
    F M = fp_add(fp_dbl(X1s), X1s);
    F X3 = fp_sub(fp_sqr(M), fp_dbl(S));
    F Y3 = fp_mul_add(M, fp_sub(S, X3), W, fp_neg(p.Y));
    return {X3, Y3, fp_mul(V, p.ZZ), fp_mul(W, p.ZZZ)};
}

// How affine_dbl takes its point: G1's (24 words) by value, in registers, so that the hot loops
// whose rare doubling branch calls it keep no copy of their point on the stack (the G1
// accumulation stored 96 bytes to local memory every addition); G2's by reference (by value
// its kernels' stack frames grew: 1816 -> 2152 bytes in the accumulation)
template <class F>
struct DblArg {
    typedef const Affine<F>& type;
};
template <class P>
struct DblArg<Fp<P>> {
    typedef Affine<Fp<P>> type;
};

template <class F>
__device__ __noinline__ XYZZ<F> affine_dbl(typename DblArg<F>::type q) {
    F U = fp_dbl(q.y);
    F V = fp_sqr(U);
    F W = fp_mul(U, V);
    F S = fp_mul(q.x, V);
    F X1s = fp_sqr(q.x);
    F M = fp_add(fp_dbl(X1s), X1s);
    F X3 = fp_sub(fp_sqr(M), fp_dbl(S));
    F Y3 = fp_mul_add(M, fp_sub(S, X3), W, fp_neg(q.y));
    return {X3, Y3, V, W};
}

// madd-2008-s with the exceptional cases. The inline form is for the one hot
// call site (bucket accumulation): a call to the noinline form passes the
// 288-byte operands through the stack, which ptxas reported as the MSM's
// stack frame. The rare doubling branch stays a call.
template <class F>
__device__ __forceinline__ XYZZ<F> xyzz_add_affine_inline(const XYZZ<F>& p, const Affine<F>& q) {
    if (q.is_zero()) return p;
    if (p.ZZ.is_zero()) return {q.x, q.y, F::one(), F::one()};
    F U2 = fp_mul(q.x, p.ZZ);
    F S2 = fp_mul(q.y, p.ZZZ);
    F P = fp_sub(U2, p.X);
    F R = fp_sub(S2, p.Y);
    if (P.is_zero()) {
        if (R.is_zero()) return affine_dbl<F>(q);
        return XYZZ<F>::zero();
    }
    F PP = fp_sqr(P);
    F PPP = fp_mul(P, PP);
    F Q = fp_mul(p.X, PP);
    F X3 = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    F Y3 = fp_mul_add(R, fp_sub(Q, X3), p.Y, fp_neg(PPP));
    return {X3, Y3, fp_mul(p.ZZ, PP), fp_mul(p.ZZZ, PPP)};
}

template <class F>
__device__ __noinline__ XYZZ<F> xyzz_add_affine(const XYZZ<F>& p, const Affine<F>& q) {
    return xyzz_add_affine_inline(p, q);
}

// add-2008-s with the exceptional cases; inline for the bucket-reduction loop
// (same reason as the mixed addition above)
template <class F>
__device__ __forceinline__ XYZZ<F> xyzz_add_inline(const XYZZ<F>& p, const XYZZ<F>& q) {
    if (q.ZZ.is_zero()) return p;
    if (p.ZZ.is_zero()) return q;
    F U1 = fp_mul(p.X, q.ZZ);
    F U2 = fp_mul(q.X, p.ZZ);
    F S1 = fp_mul(p.Y, q.ZZZ);
    F S2 = fp_mul(q.Y, p.ZZZ);
    F P = fp_sub(U2, U1);
    F R = fp_sub(S2, S1);
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_dbl(p);
        return XYZZ<F>::zero();
    }
    F PP = fp_sqr(P);
    F PPP = fp_mul(P, PP);
    F Q = fp_mul(U1, PP);
    F X3 = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    F Y3 = fp_mul_add(R, fp_sub(Q, X3), S1, fp_neg(PPP));
    return {X3, Y3, fp_mul(fp_mul(p.ZZ, q.ZZ), PP), fp_mul(fp_mul(p.ZZZ, q.ZZZ), PPP)};
}

template <class F>
__device__ __noinline__ XYZZ<F> xyzz_add(const XYZZ<F>& p, const XYZZ<F>& q) {
    return xyzz_add_inline(p, q);
}

template <class F>
__device__ __forceinline__ Affine<F> load_affine(const u32* base, u64 i) {
    constexpr int W = sizeof(F) / 4;
    return {F::load(base + i * 2 * W), F::load(base + i * 2 * W + W)};
}

template <class F>
__device__ __forceinline__ XYZZ<F> load_xyzz(const u32* base, u64 i) {
    constexpr int W = sizeof(F) / 4;
    const u32* p = base + i * 4 * W;
    return {F::load(p), F::load(p + W), F::load(p + 2 * W), F::load(p + 3 * W)};
}

template <class F>
__device__ __forceinline__ void store_xyzz(u32* base, u64 i, const XYZZ<F>& v) {
    constexpr int W = sizeof(F) / 4;
    u32* p = base + i * 4 * W;
    v.X.store(p);
    v.Y.store(p + W);
    v.ZZ.store(p + 2 * W);
    v.ZZZ.store(p + 3 * W);
}
