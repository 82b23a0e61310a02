"""Host side of the device MSM: scalar classification, Pippenger launches.

Scalars 0 are dropped, scalars 1 go to the batch-addition kernel, the rest
to Pippenger (signed c-bit digits; buckets by counting sort; threads
summing equal runs of the sorted points; segmented bucket reduction;
windows weighted on the device). The partial results come back as XYZZ
points and are combined on the host.

Bases are fixed per circuit, so a device may keep a window table for them
(`WindowTable`: rows of 2^(c s j) P_i): windows a row apart then share a set
of buckets, which lets c grow (fewer windows, so fewer additions per point)
without multiplying the buckets to reduce. A row for every window (s = 1)
shares one set among all; where that does not fit (13 rows of 12.9 GB at
2^27), a row for every s-th window keeps s sets.
"""

from __future__ import annotations

import functools
import time
from contextlib import contextmanager
from dataclasses import dataclass

import cupy as cp
import numpy as np

from cuzk.curve.curves import curve_kernels

from ..window_tables import TABLE_CHUNK, table_windows
from .module import fn

THREADS = 128
ACC_THREADS = 128  # accumulate block size (even/odd mul, H200, 2^24 c=16): 118 ms at 64 or 128, 131 at 256
SEGMENT = 16  # buckets per reduction thread: 2^15-bucket windows give 2048 threads each
MAX_SEGMENT = 64  # ... or up to 64 while REDUCE_THREADS threads remain
REDUCE_THREADS = 1 << 16
# accumulation: threads sum equal runs of the sorted entries, at least MIN_RUN each, in about
# ACC_WAVES full waves of ACC_BLOCKS resident blocks per SM (msm.cuh's launch bounds, G1 and G2)
ACC_WAVES = 24
ACC_BLOCKS = 2
MIN_RUN = 16
CLASSIFY_BLOCK = 256 * 8  # scalars a classification block takes (msm.cuh's CLASSIFY_ROUNDS runs of 256)


@functools.cache
def _sm_count(device: int) -> int:
    return cp.cuda.Device(device).attributes["MultiProcessorCount"]  # builds every attribute: once a device


def sm_count() -> int:
    """Streaming multiprocessors of the current device (sizes the launches)."""
    return _sm_count(cp.cuda.runtime.getDevice())


class ResidentBases:
    """Device copies of base arrays, kept across calls (bases are fixed per circuit).

    Keyed by the host buffer's address, shape and a sample of its bytes, so
    reusing a freed address for different points does not alias."""

    def __init__(self, limit: int = 64, on_evict=None):
        self.limit = limit
        self.on_evict = on_evict  # called with a dropped device array (its window table goes too)
        self._store: dict[tuple, tuple[np.ndarray, cp.ndarray]] = {}

    @staticmethod
    def _key(bases: np.ndarray) -> tuple:
        return (bases.ctypes.data, bases.shape, bases.dtype.str, bases[:1].tobytes(), bases[-1:].tobytes())

    def holds(self, bases) -> bool:
        return self._key(np.ascontiguousarray(bases)) in self._store

    def get(self, bases) -> cp.ndarray:
        if isinstance(bases, cp.ndarray):
            return bases
        bases = np.ascontiguousarray(bases)
        key = self._key(bases)
        hit = self._store.get(key)
        if hit is not None:  # we hold the host array, so its address cannot have been reused
            return hit[1]
        dev = cp.asarray(bases)
        if len(self._store) >= self.limit:
            _, old = self._store.pop(next(iter(self._store)))
            if self.on_evict is not None:
                self.on_evict(old)
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


@dataclass
class WindowTable:
    """Affine rows j = 1 .. nrows - 1 of 2^(c sets j) P_i (u32 words, row-major: row j's point i at
    (j - 1) n + i here, at j n + i among the MSM's point indices, where row 0 is the bases
    themselves, not copied). Window w = sets j + s multiplies row j by 2^(c s), as window s does
    the bases, so it adds into bucket set s: `sets` sets of 2^(c-1) buckets for all the windows."""

    rows: cp.ndarray
    n: int
    c: int
    nwin: int
    sets: int
    build_ms: float

    @property
    def nrows(self) -> int:
        return -(-self.nwin // self.sets)

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes)


def point_bytes(curve, group: str) -> int:
    """Bytes of an affine base or table point."""
    return 2 * _coord_words(group, curve) * 4


def plain_buckets(n: int) -> int:
    """Buckets of the plain MSM over n scalars (choose_window's width, a set per window)."""
    c = choose_window(n)
    return ((256 + c) // c) << (c - 1)


def build_table(curve, group: str, flat: cp.ndarray, c: int, sets: int = 1, kern=fn) -> WindowTable:
    """Rows 1 .. of the table over the bases `flat`: each row 2^(c sets) times the one before
    (doublings, then one batch inversion back to affine per thread), TABLE_CHUNK bases a launch."""
    n = int(flat.shape[0])
    nwin = table_windows(c)
    if not 1 <= sets < nwin:
        raise ValueError(f"a table of {nwin} windows needs 1 to {nwin - 1} bucket sets, got {sets}")
    nrows = -(-nwin // sets)
    t0 = time.perf_counter()
    rows = cp.empty(((nrows - 1) * n, flat.shape[1]), dtype=cp.uint32)
    chunk = min(n, TABLE_CHUNK)
    scratch = cp.empty(chunk * 2 * flat.shape[1], dtype=cp.uint32)  # one XYZZ point per base of a chunk
    sms = sm_count()
    for j in range(1, nrows):
        src = flat if j == 1 else rows[(j - 2) * n:(j - 1) * n]
        dst = rows[(j - 1) * n:j * n]
        for lo in range(0, n, chunk):
            m = min(chunk, n - lo)
            blocks = max(1, min(8 * sms, (m + THREADS - 1) // THREADS))
            kern(curve.name, f"{group}_table_step")((blocks,), (THREADS,),
                                                  (src[lo:lo + m], np.uint64(m), np.uint32(c * sets),
                                                   dst[lo:lo + m], scratch))
    del scratch
    cp.cuda.get_current_stream().synchronize()
    return WindowTable(rows, n, c, nwin, sets, (time.perf_counter() - t0) * 1e3)


def _tree_sum(curve, group, pts: cp.ndarray, count: int, kern=fn, groups: int = 1) -> cp.ndarray:
    """`groups` XYZZ points: group g = the sum of pts[g * count:(g + 1) * count]. Runs of 16 are
    summed in parallel first (one block per group sums thousands of points serially, one SM each)."""
    words = _coord_words(group, curve) * 4
    while count > 256 and count % 16 == 0:
        count //= 16
        out = cp.empty(groups * count * words, dtype=cp.uint32)
        kern(curve.name, f"{group}_sum_runs")(((groups * count + THREADS - 1) // THREADS,), (THREADS,),
                                              (pts, np.uint32(16), np.uint64(groups * count), out))
        pts = out
    return _sum_groups(curve, group, pts, groups, count, kern)


def bucket_sort(curve_name: str, d_scalars: cp.ndarray, n: int, c: int, nwin: int, err: cp.ndarray, *, kern=fn,
                sets: int | None = None, table_n: int = 0, index: cp.ndarray | None = None,
                stage=None) -> tuple[cp.ndarray, cp.ndarray]:
    """(offsets, ordered): the entries (window w, scalar j) with a nonzero signed digit, grouped by
    bucket: bucket b holds ordered[offsets[b]:offsets[b + 1]], each the point's index | sign << 31.
    Buckets are (w % sets) * 2^(c-1) + |d| - 1: a set per window by default (sets = nwin); with a
    window table over table_n bases, window w's index is the base's plus (w // sets) * table_n, its
    table row. With `index`, scalar j belongs to base index[j].
    A carry out of the top window sets err[0]. offsets[-1] is the number of entries; it stays on
    the device, since reading it here would stall the host until the queued GPU work drains
    (measured: +117 ms a proof). `stage` (EventTimer.phase) times the two passes: at 2^26, c = 20,
    the digits' counting 9.5 ms, the scatter's 4-byte stores ~39 (lab/JOURNAL.md: three sorts
    that staged the entries by super-bin first did not beat it)."""
    stage = stage or _no_phase
    sets = nwin if sets is None else sets
    nb = sets << (c - 1)
    total = max(1, nwin * n)
    with stage("digits"):
        counts = cp.zeros(nb + 1, dtype=cp.uint32)
        keys = cp.empty(total, dtype=cp.uint32)
        kern(curve_name, "msm_digits")(((n + 255) // 256,), (256,),
                                       (d_scalars, np.uint64(n), np.uint32(c), np.uint32(nwin), np.uint32(sets), keys,
                                        counts, err))
        offsets = cp.zeros(nb + 1, dtype=cp.uint32)
        cp.cumsum(counts[:nb], out=offsets[1:])
        del counts
    with stage("scatter"):
        cursor = offsets[:-1].copy()
        ordered = cp.empty(total, dtype=cp.uint32)
        kern(curve_name, "msm_scatter")(((n + 255) // 256,), (256,),
                                        (keys, np.uint64(n), np.uint32(nwin), np.uint32(sets),
                                         index if index is not None else keys, np.uint32(index is not None),
                                         np.uint64(table_n), cursor, ordered))
    return offsets, ordered


def segment_length(nb: int, half: int) -> int:
    """Buckets per reduction thread. A segment ends with a double-and-add by its first bucket's
    index (~19 doublings at c = 20), which a longer segment shares among more buckets: the plain
    MSM's 13 windows of 2^19 buckets (2^26 and up) get 64, smaller sets keep 16 for parallelism."""
    seg = SEGMENT
    while seg < MAX_SEGMENT and nb // (2 * seg) >= REDUCE_THREADS:
        seg *= 2
    return min(half, seg)


def pippenger(curve, group: str, d_bases: cp.ndarray, d_scalars: cp.ndarray, n: int, *, c: int | None = None,
              threads: int = ACC_THREADS, kern=fn, timer=None, work: int | None = None,
              table: WindowTable | None = None, index: cp.ndarray | None = None) -> cp.ndarray:
    """One XYZZ point (device, u32 words) = sum scalars[i] * bases[i].

    `kern(curve_name, kernel_name)` gives the launchable kernel (the tuning
    script passes kernels compiled with other options); `timer` (an
    EventTimer) records the stages. Scalars 0 and 1 add nothing here (1 goes
    to batch addition); `work` is the number of other scalars, which sizes
    the windows. With a `table` (over these bases) windows w and w + table.sets add
    into one set of buckets; its scalars must be canonical (< 2^255). With `index`,
    the n scalars are gathered ones: scalar j multiplies bases[index[j]], so
    sparse scalar vectors cost passes over their nonzero entries only."""
    stage = timer.phase if timer is not None else _no_phase
    if table is not None:
        c, nwin, sets = table.c, table.nwin, table.sets
        rows, nbase = table.rows, table.n
    else:
        c = c or choose_window(n if work is None else work)
        nwin = (256 + c) // c  # 256-bit scalars (unreduced allowed) plus the final signed-digit carry
        sets, rows, nbase = nwin, d_bases, 0xFFFFFFFF
    half = 1 << (c - 1)
    nb = sets * half
    err = cp.zeros(1, dtype=cp.uint32)
    with stage("sort"):
        offsets, ordered = bucket_sort(curve.name, d_scalars, n, c, nwin, err, kern=kern, sets=sets,
                                      table_n=table.n if table is not None else 0, index=index,
                                      stage=timer.phase if timer is not None else None)
    total = nwin * n  # at least the entries sorted (zero digits have none); the kernels read the count from offsets[nb]
    words = _coord_words(group, curve) * 4
    with stage("accumulate"):
        sms = sm_count()
        run = max(MIN_RUN, -(-total // (ACC_WAVES * sms * ACC_BLOCKS * threads)))
        nthreads = -(-total // run)
        buckets = cp.empty(nb * words, dtype=cp.uint32)
        first = cp.empty(nthreads * words, dtype=cp.uint32)
        last = cp.empty(nthreads * words, dtype=cp.uint32)
        if total:
            kern(curve.name, f"{group}_msm_accumulate")(((nthreads + threads - 1) // threads,), (threads,),
                                                        (d_bases, np.uint32(nbase), rows, ordered, offsets,
                                                         np.uint32(nb), np.uint32(run), buckets, first, last))
        kern(curve.name, f"{group}_msm_combine_parts")(((nb + THREADS - 1) // THREADS,), (THREADS,),
                                                       (offsets, np.uint32(nb), np.uint32(run), first, last, buckets))
        del ordered, first, last
    with stage("reduce"):  # each set's weighted sum, times 2^(c s) for set s, then their sum
        seglen = segment_length(nb, half)
        nseg = half // seglen
        segs = cp.empty(sets * nseg * words, dtype=cp.uint32)
        kern(curve.name, f"{group}_msm_reduce_segments")((((nb // seglen) + THREADS - 1) // THREADS,), (THREADS,),
                                                         (buckets, np.uint32(half), np.uint32(sets),
                                                          np.uint32(seglen), segs))
        del buckets
        windows = _tree_sum(curve, group, segs, nseg, kern, groups=sets)
        kern(curve.name, f"{group}_scale_windows")(((sets + 31) // 32,), (32,),
                                                   (windows, np.uint32(c), np.uint32(sets)))
        out = _sum_groups(curve, group, windows, 1, sets, kern)
    if table is not None and int(err.get()[0]):
        raise ValueError(f"an MSM scalar is not canonical (>= 2^{c * nwin - 1}); scalars must be reduced mod r")
    return out


@contextmanager
def _no_phase(label: str):
    yield


def batch_add_device(curve, group: str, d_bases: cp.ndarray, idx: cp.ndarray) -> cp.ndarray:
    count = int(idx.shape[0])
    sms = sm_count()
    # many waves (3 blocks of 128 threads fit an SM at G1's 166 registers): the last wave's tail is short
    blocks = max(1, min(16 * sms, (count + THREADS - 1) // THREADS))
    words = _coord_words(group, curve) * 4
    partial = cp.empty(blocks * THREADS * words, dtype=cp.uint32)
    fn(curve.name, f"{group}_batch_add")((blocks,), (THREADS,), (d_bases, idx, np.uint64(count), partial))
    return _tree_sum(curve, group, partial, blocks * THREADS)


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


def msm(curve, group: str, d_bases: cp.ndarray, d_scalars: cp.ndarray, timer=None, table=None) -> np.ndarray:
    """Scalars 0 are dropped, 1 go to batch addition, the rest to Pippenger:
    over the full base array when they are most scalars, else gathered with
    their indices (PoRep's L, A and B: ~1-4 % of 2^27 scalars).

    `table` gives the window table over these bases for Pippenger: called
    with no argument, only when at least a quarter of the scalars need
    Pippenger, so base sets whose scalars are nearly all 0 or 1 (Groth16's
    A, B and L over a bit-heavy witness) never cost a table's memory."""
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
        others = cp.empty(n, dtype=cp.uint32)
        counts = cp.zeros(2, dtype=cp.uint32)
        fn(curve.name, "msm_classify")(((n + CLASSIFY_BLOCK - 1) // CLASSIFY_BLOCK,), (256,),
                                       (s32, np.uint64(n), ones, others, counts))
        n_one, n_other = (int(x) for x in counts.get())
    parts = []
    if n_one:
        with stage("batch_add"):
            parts.append(_xyzz_to_host(curve, group, batch_add_device(curve, group, flat, ones[:n_one]), 1))
    del ones
    if n_other:
        wt = None
        if table is not None and 4 * n_other >= n:
            with stage("table"):
                wt = table()
        index, scalars, m = None, s32, n
        if 2 * n_other <= n:  # few: Pippenger's digit and sort passes cover only these
            with stage("gather"):
                index = others[:n_other]
                scalars, m = s32.reshape(n, 8)[index], n_other
        del others
        with stage("pippenger"):
            parts.append(_xyzz_to_host(curve, group, pippenger(curve, group, flat, scalars, m, timer=timer,
                                                                  work=n_other, table=wt, index=index), 1))
    return _combine(curve, group, parts)


def batch_add(curve, group: str, d_bases: cp.ndarray, idx: cp.ndarray) -> np.ndarray:
    flat = _bases_view(curve, group, d_bases)
    if idx.shape[0] == 0:
        return getattr(curve, group).identity(1)[0]
    return _combine(curve, group, [_xyzz_to_host(curve, group, batch_add_device(curve, group, flat, idx), 1)])
