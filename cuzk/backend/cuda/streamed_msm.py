"""An MSM over bases in page-locked host memory: chunks uploaded double-buffered beside the kernels.

Under a device-memory budget (memory_plan.py) bases that do not fit stay on the host. Chunk
k + 1 is copied into the second of two device buffers on a copy stream while chunk k's MSM
runs on the compute stream; the compute stream waits for a chunk's copy event before its MSM,
and the copy stream waits for the event recorded after chunk k - 1's MSM before it overwrites
that buffer. Each chunk's MSM (msm.msm: classification, batch addition, Pippenger, no window
table) gives an affine point; their sum is the result. A chunk's sort scratch scales with the
chunk, so the whole MSM holds two chunk buffers and one chunk's scratch, whatever its length.

Resident bases under a budget run the same loop over slices of their device copy, with no
copies: their MSM's scratch is a chunk's too.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from ..memory_plan import chunks
from . import msm as _msm


def chunked_msm(curve, group: str, host_bases: np.ndarray | None, d_bases: cp.ndarray | None,
                d_scalars: cp.ndarray, chunk: int, copy_stream: cp.cuda.Stream, timer=None) -> np.ndarray:
    """sum scalars[i] * bases[i] (one affine point), `chunk` bases at a time: from `d_bases` (on the
    device) where given, else streamed from `host_bases` (page-locked, see host_pin.py)."""
    grp = getattr(curve, group)
    n = int(d_scalars.shape[0])
    ranges = list(chunks(n, chunk))
    if not ranges:
        return grp.identity(1)[0]
    acc = None

    def add(part):
        nonlocal acc
        acc = part if acc is None else grp.add(acc[None], part[None])[0]

    if d_bases is not None:
        for lo, hi in ranges:
            add(_msm.msm(curve, group, d_bases[lo:hi], d_scalars[lo:hi], timer=timer))
        return acc
    compute = cp.cuda.get_current_stream()
    width = min(chunk, n)
    bufs = [cp.empty((width,) + host_bases.shape[1:], dtype=host_bases.dtype) for _ in range(min(2, len(ranges)))]
    ready: list[cp.cuda.Event | None] = [None, None]
    free: list[cp.cuda.Event | None] = [None, None]

    def upload(k: int) -> None:
        lo, hi = ranges[k]
        slot = k % 2
        with copy_stream:
            if free[slot] is not None:  # chunk k - 2's MSM has read this buffer
                copy_stream.wait_event(free[slot])
            bufs[slot][: hi - lo].set(host_bases[lo:hi], stream=copy_stream)
            if timer is not None:
                timer.count(host_bases[lo:hi])
            ev = cp.cuda.Event(block=True, disable_timing=True)
            ev.record(copy_stream)
            ready[slot] = ev

    # the buffers come from the pool on the compute stream: blocks that kernels queued there may still
    # read (a freed gather's scratch, say) until that stream reaches this point, so the first copies wait
    start = cp.cuda.Event(block=True, disable_timing=True)
    start.record(compute)
    copy_stream.wait_event(start)
    upload(0)
    try:
        for k, (lo, hi) in enumerate(ranges):
            if k + 1 < len(ranges):
                upload(k + 1)
            slot = k % 2
            compute.wait_event(ready[slot])
            add(_msm.msm(curve, group, bufs[slot][: hi - lo], d_scalars[lo:hi], timer=timer))
            ev = cp.cuda.Event(block=True, disable_timing=True)
            ev.record(compute)
            free[slot] = ev
    finally:
        copy_stream.synchronize()  # no copy may still write a buffer that goes back to the pool
    return acc
