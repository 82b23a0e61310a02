"""Radix-2 NTT over Fr on the CPU (numba), natural order in and out.

Bit-reversal permutation followed by in-place Cooley-Tukey stages. The
first stages (butterfly spans that fit in L1/L2) run fused per block so each
block is loaded once; the remaining stages run fused per tile of columns.
Two parallel regions for all the stages: on a shared machine every region
waits for a descheduled worker (a 2^14 NTT took 6x longer with 2 threads
than with one while another process kept a core busy, one region a stage).
Twiddles are a table of the n/2 powers of the root, built once per size.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from cuzk.field.fields import field_kernels, fields_of
from cuzk.field.codegen import INTERNAL, build_module, fill
from cuzk.field.threads import LIGHT_MIN_PARALLEL, run_spans, threads_for

NTT_TEMPLATE = '''
{INTERNAL}
def _bitrev(x, log_n):
    j = 0
    for _ in range(log_n):
        j = (j << 1) | (x & 1)
        x >>= 1
    return j

@njit(parallel=True, nogil=True, cache=True)
def bitreverse_copy(src, dst, log_n):
    for i in prange(src.shape[0]):
        j = _bitrev(i, log_n)
        for k in range(4):
            dst[j, k] = src[i, k]

{INTERNAL}
def _butterfly(a, i, j, w):
    u = fr_load(a, i)
    v = fr_mul(fr_load(a, j), w)
    fr_store(a, i, fr_add(u, v))
    fr_store(a, j, fr_sub(u, v))

@njit(parallel=True, nogil=True, cache=True)
def stages_blocked(a, tw, log_n, log_block):
    """All stages with half-span < 2^log_block, one block of 2^log_block at a time."""
    n = a.shape[0]
    block = 1 << log_block
    nblocks = n // block
    for b in prange(nblocks):
        base = b * block
        half = 1
        while half < block:
            step = n // (2 * half)
            for start in range(base, base + block, 2 * half):
                for j in range(half):
                    _butterfly(a, start + j, start + j + half, fr_load(tw, j * step))
            half *= 2

@njit(parallel=True, nogil=True, cache=True)
def stages_strided(a, tw, log_n, log_block, log_tile):
    """All stages with half-span >= 2^log_block in one parallel region. Element j + k * block
    meets only elements of the same j in those stages, so each task takes 2^log_tile adjacent
    columns j (contiguous bytes for every k) and runs the stages over their m = n / block rows,
    which stay in cache: one pass over the array instead of one per stage."""
    n = a.shape[0]
    block = 1 << log_block
    m = n >> log_block
    tile = 1 << log_tile
    for tk in prange(block >> log_tile):
        j0 = tk * tile
        sub = 1
        while sub < m:
            half = sub * block
            step = n // (2 * half)
            for sb in range(0, m, 2 * sub):
                for kk in range(sub):
                    lo = (sb + kk) * block
                    t0 = kk * block
                    for c in range(tile):
                        j = j0 + c
                        _butterfly(a, lo + j, lo + j + half, fr_load(tw, (t0 + j) * step))
            sub *= 2

@njit(parallel=True, nogil=True, cache=True)
def _by_powers(a, base, scale, nchunks, multiply):
    """a[i] = scale * base^i, or a[i] *= it when `multiply`; chunked so each thread starts with one pow."""
    n = a.shape[0]
    b = fr_load(base, 0)
    s = fr_load(scale, 0)
    for c in prange(nchunks):
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        e = np.empty(1, dtype=np.uint64)
        e[0] = np.uint64(lo)
        acc = fr_mul(fr_pow(b, e), s)
        for i in range(lo, hi):
            fr_store(a, i, fr_mul(fr_load(a, i), acc) if multiply else acc)
            acc = fr_mul(acc, b)

@njit(nogil=True, cache=True)
def scaled_powers(base, scale, out, nchunks):
    """out[i] = scale * base^i (Montgomery; also Groth16 setup's H scalars)."""
    _by_powers(out, base, scale, nchunks, False)

@njit(nogil=True, cache=True)
def powers(base, out, nchunks):
    """out[i] = base^i (Montgomery)."""
    one = np.empty((1, 4), dtype=np.uint64)
    fr_store(one, 0, FR_ONE)
    scaled_powers(base, one, out, nchunks)

@njit(nogil=True, cache=True)
def scale_by_powers(a, base, scale, nchunks):
    """a[i] *= scale * base^i in place."""
    _by_powers(a, base, scale, nchunks, True)
'''

LOG_BLOCK = 10  # 2^10 elements * 32 B = 32 KiB per block: fits L1/L2
LOG_TILE = 3  # the strided stages take 8 adjacent columns (256 contiguous bytes per row) a task


@functools.cache
def ntt_kernels(curve: str):
    return build_module(f"{curve}_ntt", f"from {field_kernels(curve).__name__} import *\n"
                        + fill(NTT_TEMPLATE, INTERNAL=INTERNAL))


def _nchunks(n: int) -> int:
    return max(1, min(n, 4 * numba.get_num_threads()))


@functools.lru_cache(maxsize=16)
def twiddles(curve: str, log_n: int, inverse: bool) -> np.ndarray:
    fr = fields_of(curve)[0]
    w = fr.params.root_of_unity_of_order(log_n)
    if inverse:
        w = pow(w, -1, fr.p)
    half = max(1, (1 << log_n) // 2)
    out = np.empty((half, 4), dtype=np.uint64)
    ntt_kernels(curve).powers(fr.from_ints([w]), out, _nchunks(half))
    out.setflags(write=False)
    return out


def _log2(n: int) -> int:
    if n <= 0 or n & (n - 1):
        raise ValueError(f"NTT size must be a power of two, got {n}")
    return n.bit_length() - 1


def ntt(curve: str, values: np.ndarray, inverse: bool = False, coset: int | None = None) -> np.ndarray:
    """NTT of `values` (Montgomery uint64[..., n, 4]); batched over leading axes.

    Forward: X_k = sum_i x_i (g^i) w^(ik) with g = `coset` (None: plain NTT).
    Inverse: the exact inverse of the forward transform with the same coset.
    """
    fr = fields_of(curve)[0]
    k = ntt_kernels(curve)
    values = np.asarray(values, dtype=np.uint64)
    if values.shape[-1] != 4:
        raise ValueError(f"expected trailing limb axis of 4, got shape {values.shape}")
    n = values.shape[-2]
    log_n = _log2(n)
    if log_n > fr.params.two_adicity:
        raise ValueError(f"NTT size 2^{log_n} exceeds the field's two-adicity {fr.params.two_adicity}")
    batch = values.reshape(-1, n, 4)
    if batch.shape[0] > 1 and n < LIGHT_MIN_PARALLEL and _side_by_side():
        out = np.empty_like(batch)

        def span(lo, hi):
            with threads_for(n, LIGHT_MIN_PARALLEL):  # this thread's own, as below
                out[lo:hi] = _ntt(curve, fr, k, batch[lo:hi], n, log_n, inverse, coset)

        run_spans(span, batch.shape[0])
        return out.reshape(values.shape)
    with threads_for(n, LIGHT_MIN_PARALLEL):
        return _ntt(curve, fr, k, values, n, log_n, inverse, coset)


def _side_by_side() -> bool:
    """Whether a batch of small NTTs may run one per thread: several threads, and a numba threading
    layer that takes parallel regions from several threads at once (omp, tbb; not workqueue). Each NTT
    below LIGHT_MIN_PARALLEL runs on one thread anyway, so the batch's NTTs wait for no one but the
    last (the 3 of a Groth16 H on the 2-core VM: two NTT times instead of three)."""
    if numba.get_num_threads() < 2:
        return False
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no layer launched yet
        return False


def _ntt(curve, fr, k, values, n, log_n, inverse, coset):
    batch = values.reshape(-1, n, 4)
    out = np.empty_like(batch)
    tw = twiddles(curve, log_n, inverse)
    for b in range(batch.shape[0]):
        src = np.ascontiguousarray(batch[b])
        if coset is not None and not inverse:
            src = src.copy()
            k.scale_by_powers(src, fr.from_ints([coset]), fr.from_ints([1]), _nchunks(n))
        dst = out[b]
        k.bitreverse_copy(src, dst, log_n)
        log_block = min(LOG_BLOCK, log_n)
        if log_n > 0:
            k.stages_blocked(dst, tw, log_n, log_block)
        if log_n > log_block:
            k.stages_strided(dst, tw, log_n, log_block, LOG_TILE)
        if inverse:
            n_inv = pow(n, -1, fr.p)
            if coset is not None:
                k.scale_by_powers(dst, fr.from_ints([pow(coset, -1, fr.p)]), fr.from_ints([n_inv]), _nchunks(n))
            else:
                k.fr_vscale(dst, fr.from_ints([n_inv]), dst)
    return out.reshape(values.shape)
