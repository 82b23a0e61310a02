// Pippenger MSM with signed c-bit digits, bucket sort by counting, equal runs
// of the sorted points per accumulating thread, segmented running sums for bucket reduction,
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

// scalar i's 8 limbs as two 16-byte loads (scalar arrays are 32-byte aligned rows)
__device__ __forceinline__ void load_scalar(const u32* scalars, u64 i, u32* s) {
    const uint4* p = reinterpret_cast<const uint4*>(scalars + i * 8);
    const uint4 a = p[0], b = p[1];
    s[0] = a.x; s[1] = a.y; s[2] = a.z; s[3] = a.w;
    s[4] = b.x; s[5] = b.y; s[6] = b.z; s[7] = b.w;
}

// One pass over the scalars: indices of scalars equal to 1 (for the
// batch-addition kernel; order is irrelevant, the sum is exact) and of the
// scalars that are neither 0 nor 1 (Pippenger's; gathered when they are few,
// so its digit and sort passes cover only them). counts[0] = ones, counts[1] = others.
// A block takes CLASSIFY_ROUNDS runs of 256 consecutive scalars and claims its places with one
// atomic per class: the L2 serializes atomics on one address, and one per warp (2^22 at 2^27)
// held the pass at ~5 ms, about 4x its memory traffic. Each warp's ballots rank its lanes, so
// the indices of a block come out in increasing order.
#define CLASSIFY_ROUNDS 8
extern "C" __global__ void __launch_bounds__(256) msm_classify(const u32* scalars, u64 n, u32* ones, u32* others,
                                                               u32* counts) {
    __shared__ u32 rank[2][CLASSIFY_ROUNDS * 8];  // (round, warp) -> its first place, per class
    __shared__ u32 base[2];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, below = (1u << lane) - 1;
    const u64 b0 = (u64)blockIdx.x * (256 * CLASSIFY_ROUNDS) + threadIdx.x;
    u32 m1[CLASSIFY_ROUNDS], m2[CLASSIFY_ROUNDS];
#pragma unroll
    for (int r = 0; r < CLASSIFY_ROUNDS; r++) {
        const u64 i = b0 + r * 256;
        u32 kind = 0;  // 0: zero, 1: one, 2: other
        if (i < n) {
            u32 s[8];
            load_scalar(scalars, i, s);
            u32 any = 0;
#pragma unroll
            for (int k = 0; k < 8; k++) any |= s[k];
            kind = !any ? 0u : (scalar_is_one(s) ? 1u : 2u);
        }
        m1[r] = __ballot_sync(0xffffffffu, kind == 1);
        m2[r] = __ballot_sync(0xffffffffu, kind == 2);
        if (lane == 0) {
            rank[0][r * 8 + warp] = __popc(m1[r]);
            rank[1][r * 8 + warp] = __popc(m2[r]);
        }
    }
    __syncthreads();
    if (threadIdx.x < 2) {  // exclusive scan of the block's counts, then one atomic per class
        u32 run = 0;
        for (int k = 0; k < CLASSIFY_ROUNDS * 8; k++) {
            const u32 c = rank[threadIdx.x][k];
            rank[threadIdx.x][k] = run;
            run += c;
        }
        base[threadIdx.x] = run ? atomicAdd(&counts[threadIdx.x], run) : 0;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < CLASSIFY_ROUNDS; r++) {
        const u32 i = (u32)(b0 + r * 256);
        if ((m1[r] >> lane) & 1) ones[base[0] + rank[0][r * 8 + warp] + __popc(m1[r] & below)] = i;
        else if ((m2[r] >> lane) & 1) others[base[1] + rank[1][r * 8 + warp] + __popc(m2[r] & below)] = i;
    }
}

// Signed digits of each scalar (canonical, 8 x u32 limbs): for point i and window w, the
// digit d goes to bucket set w % sets: key = (w % sets) * 2^(c-1) + |d| - 1 (or SKIP_KEY when
// d = 0); counts[key]++. The plain MSM has a set per window (sets = nwin). A window table
// (WindowTable in msm.py) holds the rows 2^(c sets j) P_i, so window w = sets j + s multiplies
// row j by 2^(c s) like window s does the bases: windows one row apart share a set of buckets
// (one row per window: sets = 1, every window in one set). A carry out of the top window (a
// scalar too wide for nwin windows) sets *err. Scalars equal to 1 are skipped (msm_classify
// gave them to batch addition).
extern "C" __global__ void msm_digits(const u32* scalars, u64 n, u32 c, u32 nwin, u32 sets, u32* keys,
                                      u32* counts, u32* err) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 s[9];
    load_scalar(scalars, i, s);
    s[8] = 0;
    if (scalar_is_one(s)) s[0] = 0;
    const u32 half = 1u << (c - 1);
    const u32 mask = (1u << c) - 1;
    u32 carry = 0, set = 0;
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
            key = set * half + d - 1;
            atomicAdd(&counts[key], 1u);
        }
        keys[(u64)w * n + i] = key == SKIP_KEY ? SKIP_KEY : (key | (neg << 31));
        if (++set == sets) set = 0;
    }
    if (carry) atomicOr(err, 1u);
}

// Place each (window w, scalar j) into its bucket's run: sorted[pos] = the point's index | neg << 31:
// the base's (index[j] for gathered scalars, else j), plus (w / sets) * nbases, its table row.
// Thread j takes its scalar's entries in every window, the row advancing with a counter: a thread
// per entry had to find w and j by dividing by n (a 64-bit division, ~25 instructions an entry).
extern "C" __global__ void msm_scatter(const u32* keys, u64 n, u32 nwin, u32 sets, const u32* index, u32 indexed,
                                       u64 nbases, u32* cursor, u32* sorted) {
    const u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const u64 base = indexed ? index[j] : j;
    u64 row = 0;
    u32 set = 0;
    for (u32 w = 0; w < nwin; w++) {
        const u32 k = keys[(u64)w * n + j];
        if (k != SKIP_KEY) {
            const u32 pos = atomicAdd(&cursor[k & 0x7fffffffu], 1u);
            sorted[pos] = (u32)(base + row) | (k & 0x80000000u);
        }
        if (++set == sets) {
            set = 0;
            row += nbases;
        }
    }
}

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

#define MSM_ACCUMULATE(G, F, ACC_BLOCKS)                                                                 \
    extern "C" __global__ void __launch_bounds__(128, ACC_BLOCKS) G##_msm_accumulate(const u32* bases, u32 nbase, \
                                                  const u32* rows, const u32* sorted, const u32* offsets,  \
                                                  u32 nbuckets, u32 run, u32* buckets, u32* first, u32* last) { \
        msm_accumulate_run<F>(bases, nbase, rows, sorted, offsets, nbuckets, run, buckets, first, last);  \
    }

#define MSM_KERNELS(G, F)                                                                                    \
    /* buckets[b]: 0 when empty; else the parts of the threads it spans (one thread per bucket; most span one,*/ \
    /* which wrote it already)                                                                              */ \
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
            XYZZ<F> p = affine_dbl<F>(load_affine<F>(src, i));                                                 \
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
// accumulation blocks of 128 threads (ACC_THREADS, ACC_BLOCKS in msm.py) resident per SM: G1's 2
// (202 registers, no spill) ran 3-5 % faster than 3 (168, spilling) once squarings had their own
// routine (BENCHMARKS.md); G2 needs 255
MSM_ACCUMULATE(g1, fq_t, 2)
MSM_KERNELS(g1, fq_t)
MSM_ACCUMULATE(g2, fq2_t, 2)
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
