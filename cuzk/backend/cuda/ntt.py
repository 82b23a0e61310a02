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


def per_device_cache(maxsize: int):
    """functools.lru_cache with the current device in the key: the arrays it keeps live on one
    GPU, and the engine proves on several in one process (each with its own copy)."""
    def wrap(f):
        cached = functools.lru_cache(maxsize=maxsize)(lambda device, *args, **kwargs: f(*args, **kwargs))

        @functools.wraps(f)
        def call(*args, **kwargs):
            return cached(cp.cuda.runtime.getDevice(), *args, **kwargs)

        call.cache_clear = cached.cache_clear
        return call
    return wrap


def _host_powers(curve: str, base: int, count: int) -> np.ndarray:
    fr = fields_of(curve)[0]
    out = np.empty((count, 4), dtype=np.uint64)
    ntt_kernels(curve).powers(fr.from_ints([base]), out, max(1, min(count, 64)))
    return out


def _build_powers(curve: str, base: int, count: int) -> cp.ndarray:
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


@per_device_cache(maxsize=32)
def power_table(curve: str, base: int, count: int) -> cp.ndarray:
    """Device table base^i for i < count (Montgomery), kept on each device (twiddles, coset powers)."""
    return _build_powers(curve, base, count)


@per_device_cache(maxsize=8)
def scaled_power_table(curve: str, base: int, count: int, factor: int, canonical: bool = False) -> cp.ndarray:
    """Device table factor * base^i, kept: Montgomery, or with `canonical` the plain integers, so
    that a Montgomery product with it also leaves the Montgomery form (one multiplication for both)."""
    fr = fields_of(curve)[0]
    table = _build_powers(curve, base, count)
    factor %= fr.p
    s = raw(curve, factor) if canonical else const(curve, factor)
    threads = 256
    fn(curve, "fr_mul_const")(((count + threads - 1) // threads,), (threads,), (table, s, table, np.uint64(count)))
    return table


def twiddles(curve: str, n: int) -> cp.ndarray:
    """transform's table for size n (w^i, i < n/2, for both directions), built afresh and not
    kept: for a caller that drops it while its memory is needed elsewhere (split_ops.DeviceSplitOps
    with the witness parked)."""
    root, _ = _plan(curve, _log_size(curve, n), MAX_STAGES, TILE)
    return _build_powers(curve, root, max(1, n // 2))


def forget_tables() -> None:
    """Drop the domain-sized tables this module keeps (twiddles, coset powers, scaled tables) on every
    device: a new device-memory plan counts only the tables its own H computation builds, and
    tables of another size or of the whole-H path would sit outside it (measured on an H100 at
    2^16 and 2^20: 5-176 MiB beside a 20-768 MiB budget, each time the cause of its out-of-memory)."""
    power_table.cache_clear()
    scaled_power_table.cache_clear()


@per_device_cache(maxsize=64)
def const(curve: str, x: int) -> cp.ndarray:
    fr = fields_of(curve)[0]
    return cp.asarray(fr.from_ints([x]))


def raw(curve: str, x: int) -> cp.ndarray:
    """x as plain little-endian limbs (not Montgomery): a Montgomery product with it divides by R."""
    return cp.asarray(np.array([[(x >> (64 * i)) & (2**64 - 1) for i in range(4)]], dtype=np.uint64))


def _check(curve: str, values) -> tuple[int, int]:
    if values.dtype != cp.uint64 or values.shape[-1] != 4:
        raise ValueError(f"expected uint64[..., n, 4], got {values.dtype} {values.shape}")
    n = values.shape[-2]
    return n, _log_size(curve, n)


def _log_size(curve: str, n: int) -> int:
    fr = fields_of(curve)[0]
    if n <= 0 or n & (n - 1):
        raise ValueError(f"NTT size must be a power of two, got {n}")
    log_n = n.bit_length() - 1
    if log_n > fr.params.two_adicity:
        raise ValueError(f"NTT size 2^{log_n} exceeds the field's two-adicity {fr.params.two_adicity}")
    return log_n


def passes(log_n: int) -> list[int]:
    """Stages per shared-memory pass: as few passes as MAX_STAGES allows, the stages spread evenly
    (7, 7, 7, 1 at 2^22 would spend a whole pass over memory on one stage)."""
    count = -(-log_n // MAX_STAGES)
    return [log_n // count + (k < log_n % count) for k in range(count)]


def ntt(curve: str, values: cp.ndarray, inverse: bool = False, coset: int | None = None) -> cp.ndarray:
    """Device NTT over the last two axes (n, 4) of `values`; returns a new array."""
    n, _ = _check(curve, values)
    if not inverse:
        pre = power_table(curve, coset % _modulus(curve), n) if coset is not None else None
        return transform(curve, values, pre=pre)
    return transform(curve, values, inverse=True, scale=const(curve, _inverse(curve, n)),
                     post=power_table(curve, _inverse(curve, coset), n) if coset is not None else None)


def _modulus(curve: str) -> int:
    return fields_of(curve)[0].p


@functools.lru_cache(maxsize=64)
def _inverse(curve: str, x: int) -> int:
    return pow(x, -1, _modulus(curve))


@functools.lru_cache(maxsize=128)
def _plan(curve: str, log_n: int, max_stages: int, tile: int) -> tuple:
    """The root of unity and, per pass, (s0, m, grid x, block, shared bytes, kernel scalars): made
    once per size, so that a call's host time before its first launch stays short (at 2^20 the
    whole transform takes ~0.3 ms on the device). Host values only: the device tables stay in
    power_table's cache."""
    n = 1 << log_n
    out, s0 = [], 0
    for m in passes(log_n):
        log_g = min((tile >> m).bit_length() - 1, log_n - m)
        tile_m = 1 << (log_g + m)  # a thread per butterfly of radix 4 (per pair where the pass has one stage)
        out.append((s0, m, (n >> m) >> log_g, (max(1, min(512, tile_m >> (2 if m > 1 else 1))),), tile_m * 32,
                    (np.uint32(log_n), np.uint32(s0), np.uint32(m), np.uint32(log_g))))
        s0 += m
    return fields_of(curve)[0].params.root_of_unity_of_order(log_n), tuple(out)


def _mul_table(curve: str, src: cp.ndarray, table: cp.ndarray, batch: int, n: int) -> cp.ndarray:
    out = cp.empty_like(src)
    threads = 256
    fn(curve, "fr_mul_powers")(((n + threads - 1) // threads, batch), (threads,), (src, out, table, np.uint64(n)))
    return out


def transform(curve: str, values: cp.ndarray, *, inverse: bool = False, pre: cp.ndarray | None = None,
              post: cp.ndarray | None = None, scale: cp.ndarray | None = None,
              sub: cp.ndarray | None = None, size: int | None = None, in_place: bool = False,
              tw: cp.ndarray | None = None) -> cp.ndarray:
    """Output k = sum_i values[i] pre[i] w^(+-ik), times scale and post[k], minus sub[k] (each where
    given): the DFT over w (inverse: over 1/w, without the 1/n, which `scale` or `post` may carry).
    pre is applied as the first pass loads; scale, post and sub (shaped like the output) as the last
    one stores. With `size`, a single vector of fewer rows is the first rows of one of that size,
    the rest zero: the first pass reads it as it is, instead of a padded copy. `in_place`: the
    last pass writes into `values` (contiguous, full size), which the first pass has already
    read, so a transform holds two vectors instead of three (a device-memory budget's split H);
    with a single pass, which reads and writes at once, the output is a new array as before. `tw`:
    the twiddles (`twiddles(curve, n)`) where the caller holds them, else power_table's kept ones."""
    rows = None
    if size is not None and values.shape[-2] > size:
        raise ValueError(f"{values.shape[-2]} rows do not fit an NTT of size {size}")
    if size is not None and values.shape[-2] < size:
        if values.ndim != 2:
            raise ValueError(f"size= pads a single vector (n, 4), not a batch {values.shape}")
        if len(values) and pre is None and size > 1 << MAX_STAGES:  # a middle pass first: reads it as it is
            _check(curve, values[:1])
            rows = len(values)
        else:  # the first pass is the coset or the last kernel: pad
            values = cp.concatenate([values, cp.zeros((size - len(values), 4), dtype=cp.uint64)])
    if rows is not None:
        n, log_n, batch, shape = size, _log_size(curve, size), 1, (size, 4)
        src = cp.ascontiguousarray(values)
    else:
        n, log_n = _check(curve, values)
        batch = int(np.prod(values.shape[:-2], dtype=np.int64)) if values.ndim > 2 else 1
        src, shape = cp.ascontiguousarray(values).reshape(batch, n, 4), values.shape
    fr = fields_of(curve)[0]
    if sub is not None:
        sub = cp.ascontiguousarray(sub)
        if sub.shape != shape or sub.dtype != cp.uint64:
            raise ValueError(f"sub must be uint64{shape}, got {sub.dtype} {sub.shape}")
    if log_n == 0:  # n = 1: the tables' single entries
        out = src.copy()
        for t in (pre, scale, post):
            if t is not None:
                out = _mul_table(curve, out, t, batch, 1)
        if sub is not None:
            out = cp.asarray(fr.sub(cp.asnumpy(out).reshape(-1, 4), cp.asnumpy(sub).reshape(-1, 4))).reshape(out.shape)
        return out.reshape(shape)
    if pre is not None and log_n <= MAX_STAGES:  # one pass: the coset kernel cannot also be the last
        src, pre = _mul_table(curve, src, pre, batch, n), None
    root, launches = _plan(curve, log_n, MAX_STAGES, TILE)
    if tw is None:
        tw = power_table(curve, root, max(1, n // 2))
    elif tw.shape != (max(1, n // 2), 4):
        raise ValueError(f"twiddles for size {n} are uint64[{max(1, n // 2)}, 4], got {tw.shape}")
    reuse = in_place and rows is None and log_n > MAX_STAGES and values.flags.c_contiguous
    out = src if reuse else cp.empty((batch, n, 4), dtype=cp.uint64)
    data = cp.empty((batch, n, 4), dtype=cp.uint64) if log_n > MAX_STAGES else None
    for s0, m, grid_x, block, smem, (u_log_n, u_s0, u_m, u_log_g) in launches:
        grid = (grid_x, batch)
        if s0 + m == log_n:
            fn(curve, "fr_ntt_dif_last")(grid, block, (src, out, tw, u_log_n, u_s0, u_m, u_log_g,
                                                       np.int32(1 if inverse else 0),
                                                       scale if scale is not None else np.uint64(0),
                                                       post if post is not None else np.uint64(0),
                                                       sub if sub is not None else np.uint64(0)), shared_mem=smem)
        elif s0 == 0 and pre is not None:
            fn(curve, "fr_ntt_dif_pass_coset")(grid, block, (src, data, tw, u_log_n, u_m, u_log_g, pre),
                                               shared_mem=smem)
        else:
            fn(curve, "fr_ntt_dif_pass")(grid, block, (src, data, tw, u_log_n, u_s0, u_m, u_log_g,
                                                       np.uint64(rows if s0 == 0 and rows else n)), shared_mem=smem)
        src = data
    return out.reshape(shape)
