// Pippenger MSM with signed c-bit digits, bucket sort by counting, equal runs
// of the sorted points per accumulating thread, segmented running sums for bucket reduction,
// and a block tree to sum segments. Also the batch-addition kernel used for
// scalars equal to 1. Each kernel is a macro KERNEL_name(G, F), instantiated for G1 (g1, fq_t)
// and G2 (g2, fq2_t) one at a time in a compile unit of its own (module.py: NVRTC compiles the
// units in parallel). The scalar passes are in msm_scalars.cuh.
#pragma once
#include "curve.cuh"

// A point of the MSM by its index: a base (i < nbase), or a window table's row (the rows after
// the bases, which stay where they are: a table costs no copy of them).
template <class F>
__device__ __forceinline__ Affine<F> load_point(const u32* bases, u32 nbase, const u32* rows, u32 i) {
    const bool row = i >= nbase;
    return load_affine<F>(row ? rows : bases, row ? i - nbase : i);
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

// Thread t sums the sorted entries [t run, (t + 1) run): every thread the same number of additions,
// whatever the buckets' lengths (a thread per bucket left a warp waiting for its longest bucket:
// ~10 % of the additions' time with 256-512 points a bucket). A bucket wholly inside the segment
// goes to buckets[b]; one that began before it to first[t], one that goes on past it to last[t];
// the combine-parts kernel adds those. Each next point is loaded before the current one is added.
// The addition is madd-2008-s (curve.cuh's xyzz_add_affine_inline).
template <class F>
__device__ __forceinline__ void msm_accumulate_run(const u32* bases, u32 nbase, const u32* rows, const u32* sorted,
                                                   const u32* offsets, u32 nbuckets, u32 run, u32* buckets,
                                                   u32* first, u32* last) {
    const u32 total = offsets[nbuckets]; // entries sorted (zero digits have none): no host sync
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    const u64 s64 = (u64)t * run;
    if (s64 >= total) return;
    const u32 s = (u32)s64, e = (u32)min((u64)total, s64 + run);
    u32 lo = 0, hi = nbuckets; // the last bucket b with offsets[b] <= s: it holds entry s
    while (hi - lo > 1) {
        const u32 mid = (lo + hi) >> 1;
        if (offsets[mid] <= s) lo = mid; else hi = mid;
    }
    u32 b = lo, bend = offsets[b + 1];
    XYZZ<F> acc = XYZZ<F>::zero();
    u32 en = sorted[s];
    Affine<F> q = load_point<F>(bases, nbase, rows, en & 0x7fffffffu);
    for (u32 j = s; j < e; j++) {
        Affine<F> cur = q;
        if (en & 0x80000000u) cur.y = fp_neg(cur.y);
        if (j + 1 < e) {
            en = sorted[j + 1];
            q = load_point<F>(bases, nbase, rows, en & 0x7fffffffu);
        }
        acc = xyzz_add_affine_inline(acc, cur);
        if (j + 1 == bend || j + 1 == e) {
            if (offsets[b] < s) store_xyzz(first, t, acc);
            else if (bend > e) store_xyzz(last, t, acc);
            else store_xyzz(buckets, b, acc);
            acc = XYZZ<F>::zero();
            while (bend == j + 1 && j + 1 < e) bend = offsets[++b + 1]; // past empty buckets
        }
    }
}

// accumulation blocks of 128 threads (ACC_THREADS, ACC_BLOCKS in msm.py) resident per SM: G1's 2
// (202 registers, no spill) ran 3-5 % faster than 3 (168, spilling) once squarings had their own
// routine (BENCHMARKS.md); G2 needs 255
#define ACC_BLOCKS 2
#define KERNEL_msm_accumulate(G, F)                                                                    \
    extern "C" __global__ void __launch_bounds__(128, ACC_BLOCKS) G##_msm_accumulate(const u32* bases, u32 nbase, \
                                                  const u32* rows, const u32* sorted, const u32* offsets,  \
                                                  u32 nbuckets, u32 run, u32* buckets, u32* first, u32* last) { \
        msm_accumulate_run<F>(bases, nbase, rows, sorted, offsets, nbuckets, run, buckets, first, last);  \
    }

// buckets[b]: 0 when empty; else the parts of the threads it spans (one thread per bucket; most span one,
// which wrote it already)
#define KERNEL_msm_combine_parts(G, F)                                                                          \
    extern "C" __global__ void G##_msm_combine_parts(const u32* offsets, u32 nbuckets, u32 run, const u32* first, \
                                                     const u32* last, u32* buckets) {                          \
        const u32 b = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
        if (b >= nbuckets) return;                                                                             \
        const u32 st = offsets[b], en = offsets[b + 1];                                                        \
        if (st == en) {                                                                                        \
            store_xyzz(buckets, b, XYZZ<F>::zero());                                                           \
            return;                                                                                            \
        }                                                                                                      \
        const u32 t0 = st / run, t1 = (en - 1) / run;                                                          \
        if (t0 == t1) return;                                                                                  \
        XYZZ<F> acc = load_xyzz<F>(last, t0);                                                                  \
        for (u32 t = t0 + 1; t <= t1; t++) acc = xyzz_add(acc, load_xyzz<F>(first, t));                        \
        store_xyzz(buckets, b, acc);                                                                           \
    }

// out[t] = sum of the run pts[t * len .. t * len + len) (the levels of _tree_sum)
#define KERNEL_sum_runs(G, F)                                                                                   \
    extern "C" __global__ void G##_sum_runs(const u32* pts, u32 len, u64 count, u32* out) {                   \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        if (t >= count) return;                                                                                \
        XYZZ<F> acc = load_xyzz<F>(pts, t * len);                                                              \
        for (u32 j = 1; j < len; j++) acc = xyzz_add(acc, load_xyzz<F>(pts, t * len + j));                     \
        store_xyzz(out, t, acc);                                                                               \
    }

// window table, one step: dst[i] = 2^c src[i] in affine (doublings, then batch_to_affine)
#define KERNEL_table_step(G, F)                                                                                 \
    extern "C" __global__ void G##_table_step(const u32* src, u64 n, u32 c, u32* dst, u32* scratch) {         \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        const u64 stride = (u64)gridDim.x * blockDim.x;                                                       \
        F acc = F::one();                                                                                      \
        for (u64 i = t; i < n; i += stride) {                                                                  \
            XYZZ<F> p = affine_dbl<F>(load_affine<F>(src, i));                                                 \
            for (u32 k = 1; k < c; k++) p = xyzz_dbl(p);                                                       \
            acc = keep_for_affine(scratch, dst, i, p, acc);                                                    \
        }                                                                                                      \
        if (t < n) batch_to_affine(scratch, dst, n, t, stride, acc);                                          \
    }

// fixed-base multiplication (parameter generation): dst[i] = [k_i] G in affine, for canonical
// scalars k_i, from the table row w * 256 + d = d 2^(8w) G (affine): one mixed addition per nonzero
// byte of k_i, then batch_to_affine. The table (8192 points) stays in L2.
#define KERNEL_fixed_base(G, F)                                                                                 \
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
    }

// segment s of window w covers buckets [lo, hi) (1-based weights lo+1..hi):
// out = sum_{b in seg} (b + 1) * B_b via a running sum from the top plus lo * (sum of the segment).
// Both additions are calls, not inlined: the BLS12-381 unit's NVRTC compile 14.2 -> 4.5 s on an H100 and
// 7.4 -> 2.5 s on an H200, the kernel at c = 20 12.3 -> 10.9 (H100) and 11.5 -> 10.9 ms (H200), at c = 16
// 1.12 -> 1.20 ms (H200); outputs equal word for word (lab/JOURNAL.md, sessions 29-30).
#define KERNEL_msm_reduce_segments(G, F)                                                                        \
    extern "C" __global__ void G##_msm_reduce_segments(const u32* buckets, u32 half, u32 nwin, u32 seglen,     \
                                                       u32* out) {                                             \
        const u32 nseg = half / seglen;                                                                        \
        const u32 t = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
        if (t >= nseg * nwin) return;                                                                          \
        const u32 w = t / nseg, s = t % nseg;                                                                  \
        const u32 lo = s * seglen;                                                                             \
        XYZZ<F> run = XYZZ<F>::zero(), sum = XYZZ<F>::zero();                                                  \
        for (int b = (int)(lo + seglen) - 1; b >= (int)lo; b--) {                                              \
            run = xyzz_add(run, load_xyzz<F>(buckets, (u64)w * half + b));                                     \
            sum = xyzz_add(sum, run);                                                                          \
        }                                                                                                      \
        /* sum += lo * run, double-and-add over the bits of lo (none when lo = 0) */                          \
        XYZZ<F> mul = XYZZ<F>::zero();                                                                         \
        for (int bit = 31 - __clz(lo); bit >= 0; bit--) {                                                      \
            mul = xyzz_dbl(mul);                                                                               \
            if ((lo >> bit) & 1) mul = xyzz_add(mul, run);                                                     \
        }                                                                                                      \
        store_xyzz(out, t, xyzz_add(sum, mul));                                                                \
    }

// one block per group of `len` XYZZ points: out[group] = their sum (tree in shared memory)
#define KERNEL_sum_groups(G, F)                                                                                 \
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
    }

// batch addition: each thread sums a grid-strided subset of the selected points
#define KERNEL_batch_add(G, F)                                                                                  \
    extern "C" __global__ void G##_batch_add(const u32* bases, const u32* idx, u64 count, u32* out) {          \
        const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                             \
        const u64 stride = (u64)gridDim.x * blockDim.x;                                                       \
        XYZZ<F> acc = XYZZ<F>::zero();                                                                         \
        for (u64 j = t; j < count; j += stride) acc = xyzz_add_affine_inline(acc, load_affine<F>(bases, idx[j]));     \
        store_xyzz(out, t, acc);                                                                               \
    }

typedef Fp<fq_params> fq_t;
typedef Fp2<fq_params> fq2_t;
// thread w: pts[w] *= 2^(c*w) (window weights before the final sum)
#define KERNEL_scale_windows(G, F)                                                                       \
    extern "C" __global__ void G##_scale_windows(u32* pts, u32 c, u32 nwin) {                     \
        const u32 w = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (w >= nwin) return;                                                                   \
        XYZZ<F> p = load_xyzz<F>(pts, w);                                                        \
        for (u32 k = 0; k < c * w; k++) p = xyzz_dbl(p);                                         \
        store_xyzz(pts, w, p);                                                                   \
    }
