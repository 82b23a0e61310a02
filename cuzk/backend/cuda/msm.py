"""Host side of the device MSM: scalar classification, Pippenger launches.

Scalars 0 are dropped, scalars 1 go to the batch-addition kernel, the rest
to Pippenger (signed c-bit digits; buckets by counting sort; one thread per
bucket; segmented bucket reduction; windows weighted on the device). The
partial results come back as XYZZ points and are combined on the host.
"""

from __future__ import annotations

from contextlib import contextmanager

import cupy as cp
import numpy as np

from cuzk.curve.curves import curve_kernels

from .module import fn

THREADS = 128
ACC_THREADS = 256  # accumulate block size: 2^22 56 ms vs 65 (128) vs 68 (64) on the H200
SEGMENT = 16  # buckets per reduction thread: 2^15-bucket windows give 2048 threads each


class ResidentBases:
    """Device copies of base arrays, kept across calls (bases are fixed per circuit).

    Keyed by the host buffer's address, shape and a sample of its bytes, so
    reusing a freed address for different points does not alias."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self._store: dict[tuple, tuple[np.ndarray, cp.ndarray]] = {}

    def get(self, bases) -> cp.ndarray:
        if isinstance(bases, cp.ndarray):
            return bases
        bases = np.ascontiguousarray(bases)
        key = (bases.ctypes.data, bases.shape, bases.dtype.str, bases[:1].tobytes(), bases[-1:].tobytes())
        hit = self._store.get(key)
        if hit is not None:  # we hold the host array, so its address cannot have been reused
            return hit[1]
        dev = cp.asarray(bases)
        if len(self._store) >= self.limit:
            self._store.pop(next(iter(self._store)))
        self._store[key] = (bases, dev)
        return dev


def choose_window(n: int) -> int:
    """Window bits from n, restricted to widths whose top window is balanced.

    Scalars are < 2^255, so the top window holds only 255 - c*(nwin-1) bits
    plus a carry; when that is a few bits, nearly all points fall into a
    handful of top-window buckets and one thread sums them serially. Measured
    on an H200 (BLS12-381 G1, random scalars): c = 17 at 2^20 took 18.6 s and
    c = 18 at 2^24 86 s. c = 8, 16 and 20 leave 7, 15 and 15 bits in the top
    window; at 2^24, c = 16 took 241 ms and c = 20 284 ms (accumulation per
    point is cheaper with long buckets), so 20 is kept for larger n only.
    """
    if n < 1 << 12:
        return 8
    if n <= 1 << 24:
        return 16
    return 20


def _coord_words(group: str, curve) -> int:
    return curve.fq.limbs * 2 * (1 if group == "g1" else 2)  # u32 words per coordinate


def _xyzz_to_host(curve, group, d_pts: cp.ndarray, count: int) -> np.ndarray:
    coord = (curve.fq.limbs,) if group == "g1" else (2, curve.fq.limbs)
    return cp.asnumpy(d_pts).view(np.uint64).reshape((-1, 4) + coord)[:count]


def _sum_groups(curve, group, d_pts, groups: int, length: int, kern=fn) -> cp.ndarray:
    words = _coord_words(group, curve) * 4
    threads = max(1, min(256, (48 * 1024) // (words * 4)))
    threads = 1 << (threads.bit_length() - 1)
    out = cp.empty(groups * words, dtype=cp.uint32)
    kern(curve.name, f"{group}_sum_groups")((groups,), (threads,), (d_pts, np.uint32(length), out),
                                          shared_mem=threads * words * 4)
    return out


def pippenger(curve, group: str, d_bases: cp.ndarray, d_scalars: cp.ndarray, n: int, *, c: int | None = None,
              threads: int = ACC_THREADS, kern=fn, timer=None, work: int | None = None) -> cp.ndarray:
    """One XYZZ point (device, u32 words) = sum scalars[i] * bases[i].

    `kern(curve_name, kernel_name)` gives the launchable kernel (the tuning
    script passes kernels compiled with other options); `timer` (an
    EventTimer) records the stages. Scalars 0 and 1 add nothing here (1 goes
    to batch addition); `work` is the number of other scalars, which sizes
    the windows."""
    stage = timer.phase if timer is not None else _no_phase
    c = c or choose_window(n if work is None else work)
    nwin = (256 + c) // c  # 256-bit scalars (unreduced allowed) plus the final signed-digit carry
    half = 1 << (c - 1)
    nb = nwin * half
    with stage("sort"):
        counts = cp.zeros(nb + 1, dtype=cp.uint32)
        keys = cp.empty(nwin * n, dtype=cp.uint32)
        kern(curve.name, "msm_digits")(((n + 255) // 256,), (256,),
                                       (d_scalars, np.uint64(n), np.uint32(c), np.uint32(nwin), keys, counts))
        offsets = cp.zeros(nb + 1, dtype=cp.uint32)
        cp.cumsum(counts[:nb], out=offsets[1:])
        cursor = offsets[:-1].copy()
        total = nwin * n
        ordered = cp.empty(max(1, total), dtype=cp.uint32)
        kern(curve.name, "msm_scatter")(((total + 255) // 256,), (256,),
                                        (keys, np.uint64(n), np.uint32(nwin), cursor, ordered))
        del keys, cursor, counts
    words = _coord_words(group, curve) * 4
    with stage("accumulate"):
        buckets = cp.empty(nb * words, dtype=cp.uint32)
        kern(curve.name, f"{group}_msm_accumulate")(((nb + threads - 1) // threads,), (threads,),
                                                    (d_bases, ordered, offsets, np.uint32(nb), buckets))
        del ordered
    with stage("reduce"):
        seglen = min(half, SEGMENT)
        nseg = half // seglen
        segs = cp.empty(nwin * nseg * words, dtype=cp.uint32)
        kern(curve.name, f"{group}_msm_reduce_segments")(((nwin * nseg + THREADS - 1) // THREADS,), (THREADS,),
                                                         (buckets, np.uint32(half), np.uint32(nwin),
                                                          np.uint32(seglen), segs))
        del buckets
        windows = _sum_groups(curve, group, segs, nwin, nseg, kern)
        kern(curve.name, f"{group}_scale_windows")(((nwin + 31) // 32,), (32,),
                                                   (windows, np.uint32(c), np.uint32(nwin)))
        return _sum_groups(curve, group, windows, 1, nwin, kern)


@contextmanager
def _no_phase(label: str):
    yield


def batch_add_device(curve, group: str, d_bases: cp.ndarray, idx: cp.ndarray) -> cp.ndarray:
    count = int(idx.shape[0])
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    blocks = max(1, min(4 * sms, (count + THREADS - 1) // THREADS))
    words = _coord_words(group, curve) * 4
    partial = cp.empty(blocks * THREADS * words, dtype=cp.uint32)
    fn(curve.name, f"{group}_batch_add")((blocks,), (THREADS,), (d_bases, idx, np.uint64(count), partial))
    return _sum_groups(curve, group, partial, 1, blocks * THREADS)


def _combine(curve, group: str, parts: list[np.ndarray]) -> np.ndarray:
    """Sum host XYZZ points and return one affine point."""
    grp = getattr(curve, group)
    out = np.empty((1, 4) + grp.coord, dtype=np.uint64)
    if not parts:
        return grp.identity(1)[0]
    pts = np.ascontiguousarray(np.concatenate(parts))
    getattr(curve_kernels(curve.name), f"{group}_xyzz_sum")(pts, out)
    return grp.to_affine(out)[0]


def _bases_view(curve, group, d_bases: cp.ndarray) -> cp.ndarray:
    return d_bases.reshape(-1).view(cp.uint32).reshape(-1, 2 * _coord_words(group, curve))


def msm(curve, group: str, d_bases: cp.ndarray, d_scalars: cp.ndarray, timer=None) -> np.ndarray:
    """Scalars 0 are dropped, 1 go to batch addition, the rest to Pippenger
    over the full base array (no gather: its digits skip the 0/1 scalars)."""
    stage = timer.phase if timer is not None else _no_phase
    grp = getattr(curve, group)
    flat = _bases_view(curve, group, d_bases)
    s = cp.ascontiguousarray(d_scalars.reshape(-1, 4))
    n = s.shape[0]
    if flat.shape[0] != n:
        raise ValueError(f"{flat.shape[0]} bases but {n} scalars")
    if n == 0:
        return grp.identity(1)[0]
    s32 = s.view(cp.uint32)
    with stage("classify"):
        ones = cp.empty(n, dtype=cp.uint32)
        counts = cp.zeros(2, dtype=cp.uint32)
        fn(curve.name, "msm_classify")(((n + 255) // 256,), (256,), (s32, np.uint64(n), ones, counts))
        n_one, n_other = (int(x) for x in counts.get())
    parts = []
    if n_one:
        with stage("batch_add"):
            parts.append(_xyzz_to_host(curve, group, batch_add_device(curve, group, flat, ones[:n_one]), 1))
    del ones
    if n_other:
        with stage("pippenger"):
            parts.append(_xyzz_to_host(curve, group, pippenger(curve, group, flat, s32, n, timer=timer, work=n_other), 1))
    return _combine(curve, group, parts)


def batch_add(curve, group: str, d_bases: cp.ndarray, idx: cp.ndarray) -> np.ndarray:
    flat = _bases_view(curve, group, d_bases)
    if idx.shape[0] == 0:
        return getattr(curve, group).identity(1)[0]
    return _combine(curve, group, [_xyzz_to_host(curve, group, batch_add_device(curve, group, flat, idx), 1)])
