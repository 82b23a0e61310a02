// Pippenger MSM with signed c-bit digits, bucket sort by counting, one thread
// per bucket for accumulation, segmented running sums for bucket reduction,
// and a block tree to sum segments. Also the batch-addition kernel used for
// scalars equal to 1. Instantiated for G1 and G2 by MSM_KERNELS below.
#pragma once
#include "curve.cuh"

#define SKIP_KEY 0xffffffffu

__device__ __forceinline__ bool scalar_is_one(const u32* s) {
    u32 hi = 0;
#pragma unroll
    for (int k = 1; k < 8; k++) hi |= s[k];
    return s[0] == 1 && hi == 0;
}

// One pass over the scalars: indices of scalars equal to 1 (for the
// batch-addition kernel; order is irrelevant, the sum is exact) and of the
// scalars that are neither 0 nor 1 (Pippenger's; gathered when they are few,
// so its digit and sort passes cover only them). counts[0] = ones, counts[1] = others.
extern "C" __global__ void msm_classify(const u32* scalars, u64 n, u32* ones, u32* others, u32* counts) {
    // one atomic per warp and class (ballot, then each lane's rank among its class), so a warp's
    // indices stay in order; measured no faster than one atomic per scalar (~5 ms at 2^27, BENCHMARKS.md)
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;  // blockDim is a multiple of 32
    u32 kind = 0;  // 0: zero, 1: one, 2: other
    if (i < n) {
        const u32* s = scalars + i * 8;
        u32 any = 0;
#pragma unroll
        for (int k = 0; k < 8; k++) any |= s[k];
        kind = !any ? 0u : (scalar_is_one(s) ? 1u : 2u);
    }
    const u32 lane = threadIdx.x & 31, below = (1u << lane) - 1;
    const u32 m1 = __ballot_sync(0xffffffffu, kind == 1), m2 = __ballot_sync(0xffffffffu, kind == 2);
    u32 b1 = 0, b2 = 0;
    if (lane == 0) {
        if (m1) b1 = atomicAdd(&counts[0], (u32)__popc(m1));
        if (m2) b2 = atomicAdd(&counts[1], (u32)__popc(m2));
    }
    b1 = __shfl_sync(0xffffffffu, b1, 0);
    b2 = __shfl_sync(0xffffffffu, b2, 0);
    if (kind == 1) ones[b1 + __popc(m1 & below)] = (u32)i;
    else if (kind == 2) others[b2 + __popc(m2 & below)] = (u32)i;
}

// Signed digits of each scalar (canonical, 8 x u32 limbs): for point i and
// window w, key = w * 2^(c-1) + |d| - 1 (or SKIP_KEY when d = 0); counts[key]++.
// With a window table (`merged`), window w's digit multiplies table point
// w * n + i = 2^(c w) P_i, so all windows share one set of 2^(c-1) buckets:
// key = |d| - 1. A carry out of the top window (a scalar too wide for nwin
// windows) sets *err. Scalars equal to 1 are skipped (msm_classify gave them
// to batch addition).
extern "C" __global__ void msm_digits(const u32* scalars, u64 n, u32 c, u32 nwin, u32 merged, u32* keys,
                                      u32* counts, u32* err) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 s[9];
#pragma unroll
    for (int k = 0; k < 8; k++) s[k] = scalars[i * 8 + k];
    s[8] = 0;
    if (scalar_is_one(s)) s[0] = 0;
    const u32 half = 1u << (c - 1);
    const u32 mask = (1u << c) - 1;
    u32 carry = 0;
    for (u32 w = 0; w < nwin; w++) {
        const u32 bit = w * c;
        const u32 limb = bit >> 5, sh = bit & 31;
        const u64 two = limb < 8 ? ((u64)s[limb + 1] << 32) | s[limb] : 0;
        u32 d = (u32)((two >> sh) & mask) + carry;
        u32 key = SKIP_KEY;
        u32 neg = 0;
        if (d > half) {
            d = (1u << c) - d;
            neg = 1;
            carry = 1;
        } else {
            carry = 0;
        }
        if (d) {
            key = (merged ? 0 : w * half) + d - 1;
            atomicAdd(&counts[key], 1u);
        }
        keys[(u64)w * n + i] = key == SKIP_KEY ? SKIP_KEY : (key | (neg << 31));
    }
    if (carry) atomicOr(err, 1u);
}

// Place each (window, scalar j) into its bucket's run: sorted[pos] = the base's index
// (index[j] for gathered scalars, else j; plus w * nbases in a window table) | neg << 31.
extern "C" __global__ void msm_scatter(const u32* keys, u64 n, u32 nwin, u32 merged, const u32* index,
                                       u32 indexed, u64 nbases, u32* cursor, u32* sorted) {
    const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * nwin) return;
    const u32 k = keys[t];
    if (k == SKIP_KEY) return;
    const u32 key = k & 0x7fffffffu;
    const u32 pos = atomicAdd(&cursor[key], 1u);
    const u64 j = t % n;
    u64 i = indexed ? index[j] : j;
    if (merged) i += (t / n) * nbases;
    sorted[pos] = (u32)i | (k & 0x80000000u);
}

// Montgomery's batch inversion for a grid-strided set of XYZZ points, in two halves that the
// kernels above share. keep_for_affine: store p in scratch and the running product of the
// ZZZs before it in dst's x slot; returns the product with p's ZZZ. batch_to_affine: invert
// the product once and walk back: 1/ZZZ from the running products, 1/ZZ = (ZZ / ZZZ)^2.
template <class F>
__device__ __forceinline__ F keep_for_affine(u32* scratch, u32* dst, u64 i, const XYZZ<F>& p, F acc) {
    constexpr int W = sizeof(F) / 4;
    store_xyzz(scratch, i, p);
    acc.store(dst + i * 2 * W);
    return p.ZZ.is_zero() ? acc : fp_mul(acc, p.ZZZ);
}

template <class F>
__device__ __forceinline__ void batch_to_affine(const u32* scratch, u32* dst, u64 n, u64 t, u64 stride, F acc) {
    constexpr int W = sizeof(F) / 4;
    F inv = fp_inv(acc);
    for (u64 i = t + (n - 1 - t) / stride * stride;; i -= stride) {
        const XYZZ<F> p = load_xyzz<F>(scratch, i);
        F x = F::zero(), y = F::zero();
        if (!p.ZZ.is_zero()) {
            const F zinv = fp_mul(inv, F::load(dst + i * 2 * W));
            inv = fp_mul(inv, p.ZZZ);
            const F zz_inv = fp_sqr(fp_mul(p.ZZ, zinv));
            x = fp_mul(p.X, zz_inv);
            y = fp_mul(p.Y, zinv);
        }
        x.store(dst + i * 2 * W);
        y.store(dst + i * 2 * W + W);
        if (i == t) break;
    }
}

#ifdef CUZK_ACC_NO_PREFETCH
#define MSM_ACC_LOOP(F)                                                                                        \
        for (u32 j = start + (u32)(((u64)len * part) / k); j < end; j++) {                                     \
            const u32 e = sorted[j];                                                                           \
            Affine<F> q = load_affine<F>(bases, e & 0x7fffffffu);                                             \
            if (e & 0x80000000u) q.y = fp_neg(q.y);                                                            \
            acc = xyzz_add_affine_inline(acc, q);                                                              \
        }
#else
/* the next point is loaded before this one is added: its two dependent loads (index, then point) */
/* wait behind the addition's thousands of instructions instead of in front of the next one       */
#define MSM_ACC_LOOP(F)                                                                                        \
        u32 j = start + (u32)(((u64)len * part) / k);                                                          \
        u32 e = j < end ? sorted[j] : 0u;                                                                      \
        Affine<F> q = load_affine<F>(bases, e & 0x7fffffffu);                                                 \
        for (; j < end; j++) {                                                                                 \
            Affine<F> cur = q;                                                                                 \
            if (e & 0x80000000u) cur.y = fp_neg(cur.y);                                                        \
            if (j + 1 < end) {                                                                                 \
                e = sorted[j + 1];                                                                             \
                q = load_affine<F>(bases, e & 0x7fffffffu);                                                   \
            }                                                                                                  \
            acc = xyzz_add_affine_inline(acc, cur);                                                            \
        }
#endif

#define MSM_KERNELS(G, F)                                                                                      \
    /* bucket b's run is cut into tstart[b+1] - tstart[b] parts by its length (runs of scalars        */ \
    /* concentrated on few values get many threads); thread t sums one part, the buckets walked in        */ \
    /* reverse so the longest runs (the top window's) start first. Part 0 goes to buckets[b], part p > 0   */ \
    /* to extra[tstart[b] - b + p - 1], which G##_msm_combine_parts adds in.                              */ \
    extern "C" __global__ void G##_msm_accumulate(const u32* bases, const u32* sorted, const u32* offsets,      \
                                                  const u32* tstart, u32 nbuckets, u32* buckets, u32* extra) { \
        const u32 total = tstart[nbuckets];                                                                    \
        const u32 t0 = blockIdx.x * blockDim.x + threadIdx.x;                                                 \
        if (t0 >= total) return;                                                                               \
        const u32 t = total - 1 - t0;                                                                          \
        u32 lo = 0, hi = nbuckets; /* tstart[lo] <= t < tstart[hi] */                                          \
        while (hi - lo > 1) {                                                                                  \
            const u32 mid = (lo + hi) >> 1;                                                                    \
            if (tstart[mid] <= t) lo = mid; else hi = mid;                                                     \
        }                                                                                                      \
        const u32 b = lo, k = tstart[b + 1] - tstart[b], part = t - tstart[b];                                 \
        const u32 start = offsets[b], len = offsets[b + 1] - start;                                            \
        const u32 end = start + (u32)(((u64)len * (part + 1)) / k);                                           \
        XYZZ<F> acc = XYZZ<F>::zero();                                                                         \
        MSM_ACC_LOOP(F)                                                                                        \
        if (part == 0) store_xyzz(buckets, b, acc);                                                            \
        else store_xyzz(extra, tstart[b] - b + part - 1, acc);                                                 \
    }                                                                                                          \
    /* buckets[b] += its parts after the first (one thread per bucket; most have none) */                    \
    extern "C" __global__ void G##_msm_combine_parts(const u32* tstart, u32 nbuckets, const u32* extra,         \
                                                     u32* buckets) {                                           \
        const u32 b = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
        if (b >= nbuckets) return;                                                                             \
        const u32 k = tstart[b + 1] - tstart[b];                                                               \
        if (k == 1) return;                                                                                    \
        XYZZ<F> acc = load_xyzz<F>(buckets, b);                                                                \
        const u32 e = tstart[b] - b;                                                                           \
        for (u32 p = 0; p + 1 < k; p++) acc = xyzz_add(acc, load_xyzz<F>(extra, e + p));                       \
        store_xyzz(buckets, b, acc);                                                                           \
    }                                                                                                          \
    /* out[t] = sum of the run pts[t * len .. t * len + len) (the levels of _tree_sum) */                    \
    extern "C" __global__ void G##_sum_runs(const u32* pts, u32 len, u64 count, u32* out) {                   \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        if (t >= count) return;                                                                                \
        XYZZ<F> acc = load_xyzz<F>(pts, t * len);                                                              \
        for (u32 j = 1; j < len; j++) acc = xyzz_add(acc, load_xyzz<F>(pts, t * len + j));                     \
        store_xyzz(out, t, acc);                                                                               \
    }                                                                                                          \
    /* window table, one step: dst[i] = 2^c src[i] in affine (doublings, then batch_to_affine) */          \
    extern "C" __global__ void G##_table_step(const u32* src, u64 n, u32 c, u32* dst, u32* scratch) {         \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        const u64 stride = (u64)gridDim.x * blockDim.x;                                                       \
        F acc = F::one();                                                                                      \
        for (u64 i = t; i < n; i += stride) {                                                                  \
            XYZZ<F> p = affine_dbl(load_affine<F>(src, i));                                                    \
            for (u32 k = 1; k < c; k++) p = xyzz_dbl(p);                                                       \
            acc = keep_for_affine(scratch, dst, i, p, acc);                                                    \
        }                                                                                                      \
        if (t < n) batch_to_affine(scratch, dst, n, t, stride, acc);                                          \
    }                                                                                                          \
    /* fixed-base multiplication (parameter generation): dst[i] = [k_i] G in affine, for canonical        */ \
    /* scalars k_i, from the table row w * 256 + d = d 2^(8w) G (affine): one mixed addition per nonzero  */ \
    /* byte of k_i, then batch_to_affine. The table (8192 points) stays in L2.                            */ \
    extern "C" __global__ void G##_fixed_base(const u32* table, const u32* scalars, u64 n, u32* dst,          \
                                              u32* scratch) {                                                  \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        const u64 stride = (u64)gridDim.x * blockDim.x;                                                       \
        F acc = F::one();                                                                                      \
        for (u64 i = t; i < n; i += stride) {                                                                  \
            XYZZ<F> p = XYZZ<F>::zero();                                                                       \
            for (u32 k = 0; k < 8; k++) {                                                                      \
                const u32 word = scalars[i * 8 + k];                                                           \
                for (u32 b = 0; b < 4; b++) {                                                                  \
                    const u32 d = (word >> (8 * b)) & 255u;                                                    \
                    if (d) p = xyzz_add_affine_inline(p, load_affine<F>(table, (k * 4 + b) * 256 + d));        \
                }                                                                                              \
            }                                                                                                  \
            acc = keep_for_affine(scratch, dst, i, p, acc);                                                    \
        }                                                                                                      \
        if (t < n) batch_to_affine(scratch, dst, n, t, stride, acc);                                          \
    }                                                                                                          \
    /* segment s of window w covers buckets [lo, hi) (1-based weights lo+1..hi):                          */ \
    /* out = sum_{b in seg} (b + 1) * B_b via a running sum from the top plus lo * (sum of the segment)  */ \
    extern "C" __global__ void G##_msm_reduce_segments(const u32* buckets, u32 half, u32 nwin, u32 seglen,     \
                                                       u32* out) {                                             \
        const u32 nseg = half / seglen;                                                                        \
        const u32 t = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
        if (t >= nseg * nwin) return;                                                                          \
        const u32 w = t / nseg, s = t % nseg;                                                                  \
        const u32 lo = s * seglen;                                                                             \
        XYZZ<F> run = XYZZ<F>::zero(), sum = XYZZ<F>::zero();                                                  \
        for (int b = (int)(lo + seglen) - 1; b >= (int)lo; b--) {                                              \
            run = xyzz_add_inline(run, load_xyzz<F>(buckets, (u64)w * half + b));                              \
            sum = xyzz_add_inline(sum, run);                                                                   \
        }                                                                                                      \
        /* sum += lo * run, double-and-add over the bits of lo (none when lo = 0) */                          \
        XYZZ<F> mul = XYZZ<F>::zero();                                                                         \
        for (int bit = 31 - __clz(lo); bit >= 0; bit--) {                                                      \
            mul = xyzz_dbl(mul);                                                                               \
            if ((lo >> bit) & 1) mul = xyzz_add(mul, run);                                                     \
        }                                                                                                      \
        store_xyzz(out, t, xyzz_add(sum, mul));                                                                \
    }                                                                                                          \
    /* one block per group of `len` XYZZ points: out[group] = their sum (tree in shared memory) */            \
    extern "C" __global__ void G##_sum_groups(const u32* pts, u32 len, u32* out) {                            \
        extern __shared__ u32 sm_pts[];                                                                        \
        const u32 g = blockIdx.x;                                                                              \
        XYZZ<F> acc = XYZZ<F>::zero();                                                                         \
        for (u32 j = threadIdx.x; j < len; j += blockDim.x) acc = xyzz_add(acc, load_xyzz<F>(pts, (u64)g * len + j)); \
        store_xyzz(sm_pts, threadIdx.x, acc);                                                                  \
        __syncthreads();                                                                                       \
        for (u32 s = blockDim.x / 2; s > 0; s >>= 1) {                                                         \
            if (threadIdx.x < s) {                                                                             \
                acc = xyzz_add(load_xyzz<F>(sm_pts, threadIdx.x), load_xyzz<F>(sm_pts, threadIdx.x + s));      \
                store_xyzz(sm_pts, threadIdx.x, acc);                                                          \
            }                                                                                                  \
            __syncthreads();                                                                                   \
        }                                                                                                      \
        if (threadIdx.x == 0) store_xyzz(out, g, load_xyzz<F>(sm_pts, 0));                                     \
    }                                                                                                          \
    /* batch addition: each thread sums a grid-strided subset of the selected points */                       \
    extern "C" __global__ void G##_batch_add(const u32* bases, const u32* idx, u64 count, u32* out) {          \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        const u64 stride = (u64)gridDim.x * blockDim.x;                                                       \
        XYZZ<F> acc = XYZZ<F>::zero();                                                                         \
        for (u64 j = t; j < count; j += stride) acc = xyzz_add_affine_inline(acc, load_affine<F>(bases, idx[j]));     \
        store_xyzz(out, t, acc);                                                                               \
    }

typedef Fp<fq_params> fq_t;
typedef Fp2<fq_params> fq2_t;
MSM_KERNELS(g1, fq_t)
MSM_KERNELS(g2, fq2_t)

// thread w: pts[w] *= 2^(c*w) (window weights before the final sum)
#define SCALE_KERNEL(G, F)                                                                       \
    extern "C" __global__ void G##_scale_windows(u32* pts, u32 c, u32 nwin) {                     \
        const u32 w = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (w >= nwin) return;                                                                   \
        XYZZ<F> p = load_xyzz<F>(pts, w);                                                        \
        for (u32 k = 0; k < c * w; k++) p = xyzz_dbl(p);                                         \
        store_xyzz(pts, w, p);                                                                   \
    }
SCALE_KERNEL(g1, fq_t)
SCALE_KERNEL(g2, fq2_t)
