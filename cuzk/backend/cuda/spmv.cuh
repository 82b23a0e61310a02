// CSR sparse matrix times witness over Fr; coefficient index 0 is +1 and 1 is
// -1 (no multiply), others index a table. Rows of at most `long_len` terms get
// one thread each; longer rows get a warp each (spmv_long_*): in SHA-256-shaped
// circuits about one row in 140 of A holds up to ~200 terms with general
// coefficients, and one such row made its whole warp wait for it (summed over
// warps, 17x the iterations the terms need at 2^20 rows).
#pragma once
#include "field.cuh"

template <class IDX, class CI>
__device__ __forceinline__ Fp<fr_params> spmv_term(const u32* cols, const CI* cidx, const u32* table, const u32* w,
                                                   IDX k, const Fp<fr_params>& acc) {
    typedef Fp<fr_params> F;
    const u32 ci = cidx[k];
    const F x = F::load(w + (u64)cols[k] * F::N);
    if (ci == 0) return fp_add(acc, x);
    if (ci == 1) return fp_sub(acc, x);
    return fp_add(acc, fp_mul(x, F::load(table + (u64)ci * F::N)));
}

#define SPMV_KERNEL(NAME, IDX, CI)                                                                          \
    extern "C" __global__ void NAME(const IDX* indptr, const u32* cols, const CI* cidx, const u32* table,   \
                                    const u32* w, u32* out, u64 rows, u32 long_len) {                      \
        typedef Fp<fr_params> F;                                                                            \
        const u64 row = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                        \
        if (row >= rows) return;                                                                            \
        const IDX lo = indptr[row], hi = indptr[row + 1];                                                   \
        if ((u64)(hi - lo) > long_len) return; /* its warp in NAME##_long writes it */                     \
        F acc = F::zero();                                                                                  \
        for (IDX k = lo; k < hi; k++) acc = spmv_term<IDX, CI>(cols, cidx, table, w, k, acc);               \
        acc.store(out + row * F::N);                                                                        \
    }                                                                                                       \
    /* warp v takes row long_rows[v]: lanes stride over its terms, then a shuffle tree sums them */        \
    extern "C" __global__ void NAME##_long(const IDX* indptr, const u32* cols, const CI* cidx,              \
                                           const u32* table, const u32* w, u32* out, const u32* long_rows, \
                                           u64 count) {                                                     \
        typedef Fp<fr_params> F;                                                                            \
        const u64 v = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;                                   \
        const u32 lane = threadIdx.x & 31;                                                                  \
        if (v >= count) return; /* warp-uniform: the shuffles below see full warps */                      \
        const u64 row = long_rows[v];                                                                       \
        F acc = F::zero();                                                                                  \
        for (IDX k = indptr[row] + lane; k < indptr[row + 1]; k += 32)                                      \
            acc = spmv_term<IDX, CI>(cols, cidx, table, w, k, acc);                                         \
        for (int off = 16; off; off >>= 1) {                                                                \
            F o;                                                                                            \
            _Pragma("unroll") for (int i = 0; i < F::N; i++) o.v[i] = __shfl_down_sync(0xffffffffu, acc.v[i], off); \
            acc = fp_add(acc, o);                                                                           \
        }                                                                                                   \
        if (lane == 0) acc.store(out + row * F::N);                                                         \
    }
SPMV_KERNEL(spmv_i32_u8, int, unsigned char)
SPMV_KERNEL(spmv_i32_u16, int, unsigned short)
SPMV_KERNEL(spmv_i32_u32, int, u32)
SPMV_KERNEL(spmv_i64_u8, long long, unsigned char)
SPMV_KERNEL(spmv_i64_u16, long long, unsigned short)
SPMV_KERNEL(spmv_i64_u32, long long, u32)
