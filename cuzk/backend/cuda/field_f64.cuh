// Montgomery products on the FP64 pipe (a study, not yet used by the prover). The integer
// product (field.cuh) keeps the H200's multiply pipe busy: a 64-bit multiply-add (IMAD.WIDE)
// issues once per 4 cycles per warp scheduler, and the MSM's accumulation and the NTT run at
// that pipe's limit. The FP64 pipe (a DFMA per 2 cycles) sits idle; a DFMA multiplies 48-bit
// limbs exactly. A field element is N limbs of 48 bits, each an exact integer held in a double,
// and the product divides by R' = 2^(48 N): for BLS12-381's Fq N = 8, R' = 2^384, the integer
// product's R; for an Fr below 2^255, N = 6 and R' = 2^288 = 2^32 R, so one operand must carry
// the 2^32 (the NTT's twiddles, kept so). Operands below 2p give a product below 2p (4p < R'),
// so no final subtraction.
//
// A product x y of two limbs (< 2^96) is cut into 48-bit halves by two DFMAs:
//   hi = fma_rz(x, y, 2^100)                 2^100 + floor(x y / 2^48) 2^48: in [2^100, 2^101) a
//                                            double's step is 2^48, and rounding toward zero floors
//   lo = fma(x, y, (2^100 + 2^52) - hi)      2^52 + (x y mod 2^48): exact, so any rounding
// and each half's bit pattern is its value plus a constant (the exponent field): columns sum
// the patterns in 64-bit integers (the ALU pipe, not the multiply pipe) and shed the constants
// once. Compiles as device code (nvcc, NVRTC) and as host C++ (tests compare it with Python's
// integers there: the rounding mode of fma_rz is set around a std::fma).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define F64_FN __host__ __device__ __forceinline__
#define F64_CONST __host__ __device__ constexpr
#define F64_AS_BITS(x) ((unsigned long long)__double_as_longlong(x))
#define F64_FROM_BITS(x) __longlong_as_double((long long)(x))
#define F64_FMA_RZ(a, b, c) __fma_rz(a, b, c)
#define F64_FMA(a, b, c) __fma_rn(a, b, c)
#else
#include <cfenv>
#include <cmath>
#include <cstring>
#define F64_FN inline
#define F64_CONST constexpr
static inline unsigned long long F64_AS_BITS(double x) { unsigned long long u; std::memcpy(&u, &x, 8); return u; }
static inline double F64_FROM_BITS(unsigned long long u) { double x; std::memcpy(&x, &u, 8); return x; }
static inline double F64_FMA_RZ(double a, double b, double c) {
    const int mode = std::fegetround();
    std::fesetround(FE_TOWARDZERO);
    const volatile double r = std::fma(a, b, c);
    std::fesetround(mode);
    return r;
}
#define F64_FMA(a, b, c) std::fma(a, b, c)
#endif

// A field element: N limbs of 48 bits, little-endian, each an integer in a double.
template <int N>
struct f64x {
    double v[N];
};

namespace f64_detail {
constexpr unsigned long long HI_BIAS = 0x4630000000000000ull;  // bit pattern of 2^100
constexpr unsigned long long LO_BIAS = 0x4330000000000000ull;  // bit pattern of 2^52
constexpr unsigned long long MASK48 = (1ull << 48) - 1;
constexpr double TWO100 = 0x1p100, TWO52 = 0x1p52;

// x y (limbs < 2^48) into the bit patterns of its halves: hi + HI_BIAS, lo + LO_BIAS.
F64_FN void split(double x, double y, unsigned long long& hi, unsigned long long& lo) {
    const double h = F64_FMA_RZ(x, y, TWO100);
    hi = F64_AS_BITS(h);
    lo = F64_AS_BITS(F64_FMA(x, y, (TWO100 + TWO52) - h));
}

// An integer below 2^48 as a double: its bits under 2^52's exponent, less 2^52.
F64_FN double limb(unsigned long long u) { return F64_FROM_BITS(u | LO_BIAS) - TWO52; }
// ... and back
F64_FN unsigned long long bits(double x) { return F64_AS_BITS(x + TWO52) & MASK48; }

// adds a b to the 2N columns c (sums of 48-bit halves: the biases leave as one constant per
// column, since integer additions reassociate)
template <int N>
F64_FN void add_product(unsigned long long* c, const f64x<N>& a, const f64x<N>& b) {
#pragma unroll
    for (int i = 0; i < N; i++) {
#pragma unroll
        for (int j = 0; j < N; j++) {
            unsigned long long h, l;
            split(a.v[i], b.v[j], h, l);
            c[i + j] += l - LO_BIAS;
            c[i + j + 1] += h - HI_BIAS;  // the top pair (N-1, N-1) ends in column 2N-1
        }
    }
}

// adds a^2 to the columns: each cross pair once, with a_i doubled (exact; 2 a_i a_j < 2^97
// still splits): N(N+1)/2 limb products instead of N^2
template <int N>
F64_FN void add_square(unsigned long long* c, const f64x<N>& a) {
#pragma unroll
    for (int i = 0; i < N; i++) {
        unsigned long long h, l;
        split(a.v[i], a.v[i], h, l);
        c[2 * i] += l - LO_BIAS;
        c[2 * i + 1] += h - HI_BIAS;
        const double twice = a.v[i] + a.v[i];
#pragma unroll
        for (int j = i + 1; j < N; j++) {
            split(twice, a.v[j], h, l);
            c[i + j] += l - LO_BIAS;
            c[i + j + 1] += h - HI_BIAS;
        }
    }
}

// Montgomery reduction of the columns, 48 bits a round: q = u (-1/p) mod 2^48 for the column's
// low 48 bits u, then q p added from that column up (q p_0's low half is (-u) mod 2^48, so it
// only carries: 1 unless u is 0). r: the result's N limbs, normalized; the result is below
// 2^(48 N) (below 2p for column sums of one product of operands below 2p, or of two of operands
// below p), so nothing carries out of the last.
template <class P>
F64_FN void reduce(unsigned long long* c, unsigned long long* r) {
    constexpr int N = P::N;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const unsigned long long t = c[i];
        const unsigned long long u = t & MASK48;
        const double ud = limb(u);
        const double qh = F64_FMA_RZ(ud, P::pinv48, TWO100);
        const double q = F64_FMA(ud, P::pinv48, (TWO100 + TWO52) - qh) - TWO52;
        c[i + 1] += (t >> 48) + (u != 0) + (F64_AS_BITS(F64_FMA_RZ(q, P::p48(0), TWO100)) - HI_BIAS);
#pragma unroll
        for (int j = 1; j < N; j++) {
            unsigned long long h, l;
            split(q, P::p48(j), h, l);
            c[i + j] += l - LO_BIAS;
            c[i + j + 1] += h - HI_BIAS;
        }
    }
    unsigned long long carry = 0;
#pragma unroll
    for (int k = 0; k < N; k++) {
        const unsigned long long v = c[N + k] + carry;
        carry = v >> 48;
        r[k] = v & MASK48;
    }
}

// the reduced columns as limbs in doubles
template <class P>
F64_FN f64x<P::N> finish(unsigned long long* c) {
    unsigned long long r[P::N];
    reduce<P>(c, r);
    f64x<P::N> out;
#pragma unroll
    for (int k = 0; k < P::N; k++) out.v[k] = limb(r[k]);
    return out;
}
}  // namespace f64_detail

// a b / R' mod p, below 2p for a, b below 2p. P: N, the limb count; p48(i), the modulus's 48-bit
// limbs; pinv48, -1/p mod 2^48 (doubles; consts.py's f64_params_struct).
template <class P>
F64_FN f64x<P::N> mul_f64(const f64x<P::N>& a, const f64x<P::N>& b) {
    unsigned long long c[2 * P::N] = {};
    f64_detail::add_product<P::N>(c, a, b);
    return f64_detail::finish<P>(c);
}

// a^2 / R' mod p, below 2p for a below 2p
template <class P>
F64_FN f64x<P::N> sqr_f64(const f64x<P::N>& a) {
    unsigned long long c[2 * P::N] = {};
    f64_detail::add_square<P::N>(c, a);
    return f64_detail::finish<P>(c);
}

// W little-endian 32-bit words (field.cuh's layout) <-> N limbs of 48 bits: each 3 words hold
// 2 limbs; words past W are zero (Fr: 8 words, 6 limbs, the last of 16 bits)
template <int N, int W>
F64_FN f64x<N> f64_from_words(const unsigned int* w) {
    f64x<N> r;
#pragma unroll
    for (int m = 0; 2 * m < N; m++) {
        const unsigned long long w0 = 3 * m < W ? w[3 * m] : 0, w1 = 3 * m + 1 < W ? w[3 * m + 1] : 0,
                                 w2 = 3 * m + 2 < W ? w[3 * m + 2] : 0;
        r.v[2 * m] = f64_detail::limb(w0 | ((w1 & 0xffffu) << 32));
        if (2 * m + 1 < N) r.v[2 * m + 1] = f64_detail::limb((w1 >> 16) | (w2 << 16));
    }
    return r;
}

// ... and back, from normalized limbs whose value fits W words
template <int N, int W>
F64_FN void f64_limbs_to_words(const unsigned long long* r, unsigned int* w) {
#pragma unroll
    for (int m = 0; 2 * m < N; m++) {
        const unsigned long long lo = r[2 * m], hi = 2 * m + 1 < N ? r[2 * m + 1] : 0;
        if (3 * m < W) w[3 * m] = (unsigned int)lo;
        if (3 * m + 1 < W) w[3 * m + 1] = (unsigned int)(lo >> 32) | (unsigned int)(hi << 16);
        if (3 * m + 2 < W) w[3 * m + 2] = (unsigned int)(hi >> 16);
    }
}

template <int N, int W>
F64_FN void f64_to_words(const f64x<N>& a, unsigned int* w) {
    unsigned long long r[N];
#pragma unroll
    for (int k = 0; k < N; k++) r[k] = f64_detail::bits(a.v[k]);
    f64_limbs_to_words<N, W>(r, w);
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include "field.cuh"

// a b / R' mod p between field.cuh's values (P's words, below p; Q: the FP64 product's params),
// below p: converted to limbs, multiplied on the FP64 pipe, converted back. R' is P's R when
// 48 Q::N = 32 P::N (Fq); for Fr (R' = 2^32 R) one operand must hold 2^32 more.
template <class P, class Q>
__device__ __forceinline__ Fp<P> fp_from_columns_f64(unsigned long long* c) {
    unsigned long long r[Q::N];
    f64_detail::reduce<Q>(c, r);
    Fp<P> out;
    f64_limbs_to_words<Q::N, P::N>(r, out.v);
    return fp_reduce_once(out);  // below 2p -> below p
}

template <class P, class Q>
__device__ __forceinline__ Fp<P> fp_mul_f64(const Fp<P>& a, const Fp<P>& b) {
    unsigned long long c[2 * Q::N] = {};
    f64_detail::add_product<Q::N>(c, f64_from_words<Q::N, P::N>(a.v), f64_from_words<Q::N, P::N>(b.v));
    return fp_from_columns_f64<P, Q>(c);
}

// a^2 / R' mod p, the same way
template <class P, class Q>
__device__ __forceinline__ Fp<P> fp_sqr_f64(const Fp<P>& a) {
    unsigned long long c[2 * Q::N] = {};
    f64_detail::add_square<Q::N>(c, f64_from_words<Q::N, P::N>(a.v));
    return fp_from_columns_f64<P, Q>(c);
}

// (a b + c d) / R' mod p with one reduction: operands below p, so the sum is below 2p^2 and the
// reduced columns below 2p
template <class P, class Q>
__device__ __forceinline__ Fp<P> fp_mul_add_f64(const Fp<P>& a, const Fp<P>& b, const Fp<P>& c, const Fp<P>& d) {
    unsigned long long col[2 * Q::N] = {};
    f64_detail::add_product<Q::N>(col, f64_from_words<Q::N, P::N>(a.v), f64_from_words<Q::N, P::N>(b.v));
    f64_detail::add_product<Q::N>(col, f64_from_words<Q::N, P::N>(c.v), f64_from_words<Q::N, P::N>(d.v));
    return fp_from_columns_f64<P, Q>(col);
}

// Fq for the curve templates (curve.cuh) with its products on the FP64 pipe: kept, added and
// compared as field.cuh's Fp (12 words, below p), converted to 48-bit limbs for each product
// and back (the same Montgomery form: R = 2^384 in both). P: field.cuh's params, Q: the FP64
// product's (fq64_params).
template <class P, class Q>
struct Fp64 {
    static constexpr int N = P::N;
    Fp<P> w;
    __device__ __forceinline__ static Fp64 zero() { return {Fp<P>::zero()}; }
    __device__ __forceinline__ static Fp64 one() { return {Fp<P>::one()}; }
    __device__ __forceinline__ bool is_zero() const { return w.is_zero(); }
    __device__ __forceinline__ bool operator==(const Fp64& o) const { return w == o.w; }
    __device__ __forceinline__ static Fp64 load(const u32* src) { return {Fp<P>::load(src)}; }
    __device__ __forceinline__ void store(u32* dst) const { w.store(dst); }
};

template <class P, class Q> __device__ __forceinline__ Fp64<P, Q> fp_add(const Fp64<P, Q>& a, const Fp64<P, Q>& b) { return {fp_add(a.w, b.w)}; }
template <class P, class Q> __device__ __forceinline__ Fp64<P, Q> fp_sub(const Fp64<P, Q>& a, const Fp64<P, Q>& b) { return {fp_sub(a.w, b.w)}; }
template <class P, class Q> __device__ __forceinline__ Fp64<P, Q> fp_neg(const Fp64<P, Q>& a) { return {fp_neg(a.w)}; }
template <class P, class Q> __device__ __forceinline__ Fp64<P, Q> fp_dbl(const Fp64<P, Q>& a) { return {fp_dbl(a.w)}; }
template <class P, class Q> __device__ __forceinline__ Fp64<P, Q> fp_inv(const Fp64<P, Q>& a) { return {fp_inv(a.w)}; }

template <class P, class Q>
__device__ __forceinline__ Fp64<P, Q> fp_mul(const Fp64<P, Q>& a, const Fp64<P, Q>& b) {
    return {fp_mul_f64<P, Q>(a.w, b.w)};
}

template <class P, class Q>
__device__ __forceinline__ Fp64<P, Q> fp_sqr(const Fp64<P, Q>& a) {
    return {fp_sqr_f64<P, Q>(a.w)};
}

template <class P, class Q>
__device__ __forceinline__ Fp64<P, Q> fp_mul_add(const Fp64<P, Q>& a, const Fp64<P, Q>& b, const Fp64<P, Q>& c,
                                                 const Fp64<P, Q>& d) {
    return {fp_mul_add_f64<P, Q>(a.w, b.w, c.w, d.w)};
}
#endif
