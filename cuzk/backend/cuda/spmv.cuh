// CSR sparse matrix times witness over Fr, one row per thread; coefficient
// index 0 is +1 and 1 is -1 (no multiply), others index a table.
#pragma once
#include "field.cuh"

template <class IDX, class CI>
__device__ __forceinline__ void spmv_row(const IDX* indptr, const u32* cols, const CI* cidx, const u32* table,
                                         const u32* w, u32* out, u64 row) {
    typedef Fp<fr_params> F;
    F acc = F::zero();
    for (IDX k = indptr[row]; k < indptr[row + 1]; k++) {
        const u32 ci = cidx[k];
        const F x = F::load(w + (u64)cols[k] * F::N);
        if (ci == 0) acc = fp_add(acc, x);
        else if (ci == 1) acc = fp_sub(acc, x);
        else acc = fp_add(acc, fp_mul(x, F::load(table + (u64)ci * F::N)));
    }
    acc.store(out + row * F::N);
}

#define SPMV_KERNEL(NAME, IDX, CI)                                                                          \
    extern "C" __global__ void NAME(const IDX* indptr, const u32* cols, const CI* cidx, const u32* table,   \
                                    const u32* w, u32* out, u64 rows) {                                    \
        const u64 row = (u64)blockIdx.x * blockDim.x + threadIdx.x;                                        \
        if (row < rows) spmv_row<IDX, CI>(indptr, cols, cidx, table, w, out, row);                         \
    }
SPMV_KERNEL(spmv_i32_u8, int, unsigned char)
SPMV_KERNEL(spmv_i32_u16, int, unsigned short)
SPMV_KERNEL(spmv_i32_u32, int, u32)
SPMV_KERNEL(spmv_i64_u8, long long, unsigned char)
SPMV_KERNEL(spmv_i64_u16, long long, unsigned short)
SPMV_KERNEL(spmv_i64_u32, long long, u32)
