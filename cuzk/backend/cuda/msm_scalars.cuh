// The scalar side of the Pippenger MSM (msm.cuh): the pass that sorts scalars equal to 0, 1 and
// others, the signed c-bit digits as bucket keys, and their scatter. No field arithmetic: the
// kernels serve G1 and G2 alike.
#pragma once

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
