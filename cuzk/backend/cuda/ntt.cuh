// Radix-2^m NTT passes in shared memory (decimation in frequency). The last
// pass stores each element at its natural index (the bit reversal, and for
// the inverse the index reversal), multiplying it by a constant scale and a
// per-index table (1/n, coset powers) on the way: no pass of its own for that.
// Natural order in and out.
#pragma once
#include "field.cuh"

typedef Fp<fr_params> fr_t;

__device__ __forceinline__ u64 bitrev(u64 x, u32 bits) { return __brevll(x) >> (64 - bits); }

// Element (t, gl) of the block's tile -> global index. Groups are runs of
// 2^m elements `stride` apart; a block takes G consecutive groups.
__device__ __forceinline__ u64 ntt_tile_index(u32 t, u32 gl, u64 g0, u32 log_n, u32 s0, u32 m) {
    const u64 stride = 1ull << (log_n - s0 - m);
    const u64 g = g0 + gl;
    const u64 blk = g >> (log_n - s0 - m);
    const u64 r = g & (stride - 1);
    return (blk << (log_n - s0)) + r + (u64)t * stride;
}

// Flat position f of the tile -> (t, gl), chosen so consecutive f are
// consecutive in memory (coalesced) whatever the stride. All sizes are
// powers of two, so only shifts and masks (integer division is slow here).
__device__ __forceinline__ void ntt_tile_coords(u32 f, u32 log_G, u32 log_stride, u32 m, u32& t, u32& gl) {
    if (log_stride >= log_G) {
        t = f >> log_G;
        gl = f & ((1u << log_G) - 1);
    } else {
        const u32 log_seg = log_stride + m;
        const u32 seg = f >> log_seg, rem = f & ((1u << log_seg) - 1);
        t = rem >> log_stride;
        gl = (seg << log_stride) + (rem & ((1u << log_stride) - 1));
    }
}

// The last pass's tiles: its G groups are 2^(log_n - m - log_G) apart instead
// of adjacent, so that after the bit reversal the G elements of one t are
// adjacent in the output (k = bitrev(t) 2^(log_n - m) + bitrev(g)) and the
// scattered stores go out in runs of G (G >= 4: whole 128-byte lines).
__device__ __forceinline__ u64 ntt_last_index(u32 t, u32 gl, u32 log_n, u32 m, u32 log_G) {
    return ((((u64)gl << (log_n - m - log_G)) + blockIdx.x) << m) + t;
}

// One pass of m DIF stages (s0 .. s0+m-1) over tiles of G groups of 2^m
// elements. Reads `src`, writes `dst` (the same buffer except on the first
// pass, which thereby also copies the input). With COSET (the first pass of
// a coset transform) element i is multiplied by powers[i] as it is loaded,
// which saves the coset shift its own pass over memory. With LAST (the pass
// that ends at stage log_n - 1; dst is then another buffer than src) element
// idx goes to k = bitrev(idx), or (n - k) mod n for the inverse, times
// *scale and post[k], minus sub[k], where given. Separate kernels, so that each keeps only the
// registers its own work needs (78 for a middle pass, 76 for the last). A first pass may read
// only `rows` elements of src, the rest counting as zero (no padded copy of a
// short input).
template <bool COSET, bool LAST>
__device__ __forceinline__ void ntt_dif_pass(const u32* src, u32* dst, const u32* tw, u32 log_n, u32 s0, u32 m,
                                             u32 log_G, const u32* powers, int inverse = 0,
                                             const u32* scale = nullptr, const u32* post = nullptr,
                                             const u32* sub = nullptr, u64 rows = ~0ull) {
    extern __shared__ uint4 ntt_smem[];
    const u64 n = 1ull << log_n;
    const u64 off = (u64)blockIdx.y * n * fr_t::N;
    const u32 G = 1u << log_G;
    const u64 g0 = (u64)blockIdx.x << log_G;
    const u32 tile = G << m;
    const u32 log_stride = log_n - s0 - m;
    for (u32 f = threadIdx.x; f < tile; f += blockDim.x) {
        u32 t, gl;
        ntt_tile_coords(f, log_G, log_stride, m, t, gl);
        const u64 idx = LAST ? ntt_last_index(t, gl, log_n, m, log_G) : ntt_tile_index(t, gl, g0, log_n, s0, m);
        const uint4* p = reinterpret_cast<const uint4*>(src + off + idx * fr_t::N);
        uint4* q = ntt_smem + ((t << log_G) + gl) * 2;
        if (COSET) {
            fp_mul(fr_t::load(reinterpret_cast<const u32*>(p)), fr_t::load(powers + idx * fr_t::N))
                .store(reinterpret_cast<u32*>(q));
        } else if (idx < rows) {
            q[0] = p[0];
            q[1] = p[1];
        } else {
            q[0] = q[1] = make_uint4(0, 0, 0, 0);
        }
    }
    __syncthreads();
    // An odd stage alone first (radix 2), then the stages two at a time (radix 4): a thread keeps
    // four elements in registers across both, so two stages cost one round trip through shared
    // memory and one sync, and the last pass's final two stages (all twiddles but one trivial)
    // take one product per four elements.
    u32 k = 0;
    if (m & 1) {
        const u32 s = s0, log_h = m - 1;
        for (u32 b = threadIdx.x; b < (tile >> 1); b += blockDim.x) {
            const u32 gl = b & (G - 1);
            const u32 q = b >> log_G;
            const u32 j = q & ((1u << log_h) - 1);
            const u32 t = ((q >> log_h) << (log_h + 1)) + j;
            const u64 r = (g0 + gl) & ((1ull << log_stride) - 1);
            const u64 e = (r + ((u64)j << log_stride)) << s;
            uint4* pa = ntt_smem + ((t << log_G) + gl) * 2;
            uint4* pb = ntt_smem + (((t + (1u << log_h)) << log_G) + gl) * 2;
            fr_t x = fr_t::load(reinterpret_cast<const u32*>(pa));
            fr_t y = fr_t::load(reinterpret_cast<const u32*>(pb));
            fr_t sum = fp_add(x, y);
            fr_t dif = fp_sub(x, y);
            if (e) dif = fp_mul(dif, fr_t::load(tw + e * fr_t::N));
            sum.store(reinterpret_cast<u32*>(pa));
            dif.store(reinterpret_cast<u32*>(pb));
        }
        __syncthreads();
        k = 1;
    }
    for (; k < m; k += 2) {
        // stages s (pairs 2^h apart) and s + 1 (2^(h-1) apart) over x_a = element t0 + a 2^(h-1):
        // (x0, x2) and (x1, x3) with twiddles w^e0 and w^(e0 + n/4), then (x0, x1) and (x2, x3)
        // both with w^(2 e0). e0 < n/4, so all three lie in the table of n/2.
        const u32 s = s0 + k, h = m - 1 - k;
        for (u32 u = threadIdx.x; u < (tile >> 2); u += blockDim.x) {
            const u32 gl = u & (G - 1);
            const u32 q = u >> log_G;
            const u32 jl = q & ((1u << (h - 1)) - 1);
            const u32 t0 = ((q >> (h - 1)) << (h + 1)) + jl;
            const u64 r = (g0 + gl) & ((1ull << log_stride) - 1);
            const u64 e0 = (r + ((u64)jl << log_stride)) << s;
            uint4* p = ntt_smem + ((t0 << log_G) + gl) * 2;
            const u32 d = (1u << (h - 1 + log_G)) * 2;  // uint4s between x_a and x_(a+1)
            fr_t x0 = fr_t::load(reinterpret_cast<const u32*>(p));
            fr_t x1 = fr_t::load(reinterpret_cast<const u32*>(p + d));
            fr_t x2 = fr_t::load(reinterpret_cast<const u32*>(p + 2 * d));
            fr_t x3 = fr_t::load(reinterpret_cast<const u32*>(p + 3 * d));
            fr_t a0 = fp_add(x0, x2), a2 = fp_sub(x0, x2);
            fr_t a1 = fp_add(x1, x3);
            fr_t a3 = fp_mul(fp_sub(x1, x3), fr_t::load(tw + (e0 + (n >> 2)) * fr_t::N));
            if (e0) a2 = fp_mul(a2, fr_t::load(tw + e0 * fr_t::N));
            fr_t y0 = fp_add(a0, a1), y1 = fp_sub(a0, a1);
            fr_t y2 = fp_add(a2, a3), y3 = fp_sub(a2, a3);
            if (e0) {
                const fr_t w2 = fr_t::load(tw + 2 * e0 * fr_t::N);
                y1 = fp_mul(y1, w2);
                y3 = fp_mul(y3, w2);
            }
            y0.store(reinterpret_cast<u32*>(p));
            y1.store(reinterpret_cast<u32*>(p + d));
            y2.store(reinterpret_cast<u32*>(p + 2 * d));
            y3.store(reinterpret_cast<u32*>(p + 3 * d));
        }
        __syncthreads();
    }
    for (u32 f = threadIdx.x; f < tile; f += blockDim.x) {
        u32 t, gl;
        if (LAST) {  // consecutive threads: consecutive groups of one t, adjacent after the bit reversal
            t = f >> log_G;
            gl = f & (G - 1);
            const uint4* q = ntt_smem + ((t << log_G) + gl) * 2;
            u64 k = bitrev(ntt_last_index(t, gl, log_n, m, log_G), log_n);
            if (inverse) k = (n - k) & (n - 1);
            fr_t v = fr_t::load(reinterpret_cast<const u32*>(q));
            if (scale) v = fp_mul(v, fr_t::load(scale));
            if (post) v = fp_mul(v, fr_t::load(post + k * fr_t::N));
            if (sub) v = fp_sub(v, fr_t::load(sub + off + k * fr_t::N));
            v.store(dst + off + k * fr_t::N);
        } else {
            ntt_tile_coords(f, log_G, log_stride, m, t, gl);
            const u64 idx = ntt_tile_index(t, gl, g0, log_n, s0, m);
            const uint4* q = ntt_smem + ((t << log_G) + gl) * 2;
            uint4* p = reinterpret_cast<uint4*>(dst + off + idx * fr_t::N);
            p[0] = q[0];
            p[1] = q[1];
        }
    }
}

extern "C" __global__ void fr_ntt_dif_pass(const u32* src, u32* dst, const u32* tw, u32 log_n, u32 s0, u32 m,
                                           u32 log_G, u64 rows) {
    ntt_dif_pass<false, false>(src, dst, tw, log_n, s0, m, log_G, nullptr, 0, nullptr, nullptr, nullptr, rows);
}

extern "C" __global__ void fr_ntt_dif_pass_coset(const u32* src, u32* dst, const u32* tw, u32 log_n, u32 m,
                                                 u32 log_G, const u32* powers) {
    ntt_dif_pass<true, false>(src, dst, tw, log_n, 0, m, log_G, powers);
}

extern "C" __global__ void fr_ntt_dif_last(const u32* src, u32* out, const u32* tw, u32 log_n, u32 s0, u32 m,
                                           u32 log_G, int inverse, const u32* scale, const u32* post, const u32* sub) {
    ntt_dif_pass<false, true>(src, out, tw, log_n, s0, m, log_G, nullptr, inverse, scale, post, sub);
}

// dst[i] = src[i] * powers[i] (coset shift before a transform of one pass), batched on y
extern "C" __global__ void fr_mul_powers(const u32* src, u32* dst, const u32* powers, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const u64 o = ((u64)blockIdx.y * n + i) * fr_t::N;
    fp_mul(fr_t::load(src + o), fr_t::load(powers + i * fr_t::N)).store(dst + o);
}

// out[i] = a[i] * s (a table scaled by a constant)
extern "C" __global__ void fr_mul_const(const u32* a, const u32* s, u32* out, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fp_mul(fr_t::load(a + i * fr_t::N), fr_t::load(s)).store(out + i * fr_t::N);
}

// out[i] = hi[i >> log_lo] * lo[i & (2^log_lo - 1)]: a table of powers from two small ones
extern "C" __global__ void fr_expand_powers(u32* out, const u32* hi, const u32* lo, u32 log_lo, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fp_mul(fr_t::load(hi + (i >> log_lo) * fr_t::N), fr_t::load(lo + (i & ((1ull << log_lo) - 1)) * fr_t::N))
        .store(out + i * fr_t::N);
}

// elementwise kernels used by the Groth16 H path and tests
extern "C" __global__ void fr_vmul(const u32* a, const u32* b, u32* out, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fp_mul(fr_t::load(a + i * fr_t::N), fr_t::load(b + i * fr_t::N)).store(out + i * fr_t::N);
}

// out[i] = (a[i] * b[i] - c[i]) * s  (s may be null)
extern "C" __global__ void fr_ab_minus_c(const u32* a, const u32* b, const u32* c, u32* out, const u32* s, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t v = fp_sub(fp_mul(fr_t::load(a + i * fr_t::N), fr_t::load(b + i * fr_t::N)), fr_t::load(c + i * fr_t::N));
    if (s) v = fp_mul(v, fr_t::load(s));
    v.store(out + i * fr_t::N);
}

// Montgomery -> canonical (multiply by 1 without R)
extern "C" __global__ void fr_from_mont(const u32* a, u32* out, u64 n) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t one_raw = fr_t::zero();
    one_raw.v[0] = 1;
    fp_mul(fr_t::load(a + i * fr_t::N), one_raw).store(out + i * fr_t::N);
}
