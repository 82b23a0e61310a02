"""Host side of the device NTT: power tables, pass planning, launches."""

from __future__ import annotations

import functools

import cupy as cp
import numpy as np

from cuzk.backend.cpu.ntt import ntt_kernels
from cuzk.field import fields_of

from .module import fn

# Measured on an H200 at 2^24 (mean of 10): (stages, tile) = (8, 1024) 7.69 ms,
# (8, 512) 7.08, (6, 512) 7.23, (7, 256) 6.76, (8, 256) 6.78.
MAX_STAGES = 7  # stages per shared-memory pass
TILE = 256  # elements per block tile (8 KiB of Fr): more resident blocks per SM
LIMBS = 8  # u32 limbs of Fr


def _host_powers(curve: str, base: int, count: int) -> np.ndarray:
    fr = fields_of(curve)[0]
    out = np.empty((count, 4), dtype=np.uint64)
    ntt_kernels(curve).powers(fr.from_ints([base]), out, max(1, min(count, 64)))
    return out


@functools.lru_cache(maxsize=32)
def power_table(curve: str, base: int, count: int) -> cp.ndarray:
    """Device table base^i for i < count (Montgomery), built as hi[i>>k] * lo[i&mask]."""
    fr = fields_of(curve)[0]
    log_lo = min(12, max(0, (count - 1).bit_length()))
    lo = cp.asarray(_host_powers(curve, base, 1 << log_lo))
    nhi = max(1, -(-count // (1 << log_lo)))
    hi = cp.asarray(_host_powers(curve, pow(base, 1 << log_lo, fr.p), nhi))
    out = cp.empty((count, 4), dtype=cp.uint64)
    threads = 256
    fn(curve, "fr_expand_powers")(((count + threads - 1) // threads,), (threads,),
                                  (out, hi, lo, np.uint32(log_lo), np.uint64(count)))
    return out


@functools.lru_cache(maxsize=64)
def const(curve: str, x: int) -> cp.ndarray:
    fr = fields_of(curve)[0]
    return cp.asarray(fr.from_ints([x]))


def ntt(curve: str, values: cp.ndarray, inverse: bool = False, coset: int | None = None) -> cp.ndarray:
    """Device NTT over the last two axes (n, 4) of `values`; returns a new array."""
    fr = fields_of(curve)[0]
    if values.dtype != cp.uint64 or values.shape[-1] != 4:
        raise ValueError(f"expected uint64[..., n, 4], got {values.dtype} {values.shape}")
    n = values.shape[-2]
    if n <= 0 or n & (n - 1):
        raise ValueError(f"NTT size must be a power of two, got {n}")
    log_n = n.bit_length() - 1
    if log_n > fr.params.two_adicity:
        raise ValueError(f"NTT size 2^{log_n} exceeds the field's two-adicity {fr.params.two_adicity}")
    batch = int(np.prod(values.shape[:-2], dtype=np.int64)) if values.ndim > 2 else 1
    src = cp.ascontiguousarray(values).reshape(batch, n, 4)
    data = cp.empty_like(src)
    threads = 256
    blocks = (n + threads - 1) // threads
    shift = power_table(curve, coset % fr.p, n) if coset is not None and not inverse else None
    if shift is not None and not log_n:
        fn(curve, "fr_mul_powers")((blocks, batch), (threads,), (src, data, shift, np.uint64(n)))
        src = data
    if log_n:
        tw = power_table(curve, fr.params.root_of_unity_of_order(log_n), max(1, n // 2))
        s0 = 0
        while s0 < log_n:
            m = min(MAX_STAGES, log_n - s0)
            log_g = min((TILE >> m).bit_length() - 1, log_n - m)
            groups = n >> m
            nthreads = min(512, (1 << (log_g + m)) // 2)
            if shift is not None and s0 == 0:  # the coset shift applied as the first pass loads
                name, args = "fr_ntt_dif_pass_coset", (np.uint32(log_n), np.uint32(m), np.uint32(log_g), shift)
            else:
                name, args = "fr_ntt_dif_pass", (np.uint32(log_n), np.uint32(s0), np.uint32(m), np.uint32(log_g))
            fn(curve, name)((groups >> log_g, batch), (nthreads,), (src, data, tw) + args,
                            shared_mem=(1 << (log_g + m)) * 32)
            src = data
            s0 += m
    elif src is not data:
        data[...] = src
    out = cp.empty_like(data)
    scale = powers = None
    if inverse:
        scale = const(curve, pow(n, -1, fr.p))
        if coset is not None:
            powers = power_table(curve, pow(coset, -1, fr.p), n)
    fn(curve, "fr_ntt_finish")((blocks, batch), (threads,),
                               (data, out, np.uint32(log_n), np.int32(1 if inverse else 0),
                                scale if scale is not None else np.uint64(0),
                                powers if powers is not None else np.uint64(0)))
    return out.reshape(values.shape)
