"""Pairing products on the device: the aggregate's Miller loops (`CudaBackend.miller_products`).

One thread per G2 point (miller.cuh) gives every pair its own Miller-loop value;
products are then multiplied per product on the device in runs of CHUNK values,
level after level, and the host gets one Fq12 per product, before the final
exponentiation (which the caller runs once per product). Values equal the CPU
backend's after it.
"""

from __future__ import annotations

import functools

import cupy as cp
import numpy as np

from cuzk.field import fields_of
from cuzk.field.tower import towers_of

from .module import compiled, expand, header
from .pairing_source import module_source

MAXT = 4  # pairs per thread (miller.cuh's MAXT)
# Fewer pairs than this run on the host's cores (cuzk.backend.cpu.miller): a device thread's
# Miller loop over its MAXT pairs is one long dependent chain (~30 ms on an H200), so a
# SnarkPack round of a few hundred pairs waited ~60 ms on the GPU against a few ms of numba
# threads (lab/JOURNAL.md, aggregation sweep).
GPU_MIN_PAIRS = 2048
THREADS = 64  # miller.cuh's MILLER_THREADS
CHUNK = 16  # values multiplied per thread and level of the per-product reduction


def source(curve: str) -> str:
    return module_source(curve, header(curve), expand)


@functools.cache
def _module(curve: str) -> cp.RawModule:
    return compiled(source(curve), f"the CUDA pairing kernels for {curve}", "15-20 s")


def split_points(q_ptr: np.ndarray, maxt: int = MAXT) -> tuple[np.ndarray, np.ndarray]:
    """(owner, ptr): G2 points with more than maxt pairs become several entries of at most
    maxt consecutive pairs; entry e is point owner[e] with pairs ptr[e]..ptr[e+1]-1."""
    counts = np.diff(q_ptr)
    reps = np.maximum(-(-counts // maxt), 0)
    owner = np.repeat(np.arange(len(counts)), reps)
    piece = np.arange(len(owner)) - np.repeat(np.cumsum(reps) - reps, reps)
    starts = q_ptr[owner] + piece * maxt
    return owner, np.append(starts, q_ptr[-1]).astype(np.int64)


def reduction_levels(counts: np.ndarray, chunk: int = CHUNK):
    """The runs of each level of the per-product reduction: for segment sizes `counts`
    (values of a product contiguous, products in order), yields the run starts of
    the level (int64, with the end appended) and the segment sizes after it."""
    while counts.max(initial=0) > 1:
        runs = -(-counts // chunk)
        seg = np.repeat(np.cumsum(counts) - counts, runs)
        k = np.arange(runs.sum()) - np.repeat(np.cumsum(runs) - runs, runs)
        ends = np.minimum(seg + (k + 1) * chunk, np.repeat(np.cumsum(counts), runs))
        yield np.append(seg + k * chunk, ends[-1]).astype(np.int64), runs
        counts = runs


def miller_products(curve: str, g1, g2, q_ptr, p_idx, prod, nprod: int, device: cp.cuda.Device) -> np.ndarray:
    """Backend.miller_products: on `device`, or on the host's cores below GPU_MIN_PAIRS pairs."""
    if len(prod) < GPU_MIN_PAIRS:
        from cuzk.backend.cpu.miller import shared_loops

        return shared_loops(curve, g1, g2, np.asarray(q_ptr, dtype=np.int64), p_idx, prod, nprod)
    return device_products(curve, g1, g2, q_ptr, p_idx, prod, nprod, device)


def device_products(curve: str, g1, g2, q_ptr, p_idx, prod, nprod: int, device: cp.cuda.Device) -> np.ndarray:
    """The Miller-loop products on `device` (host arrays in, Fq12[nprod] host array out)."""
    L = fields_of(curve)[1].limbs
    words = 12 * 2 * L  # u32 words of an Fq12
    out = towers_of(curve)[1].ones(nprod)
    q_ptr = np.asarray(q_ptr, dtype=np.int64)
    prod = np.asarray(prod, dtype=np.int64)
    if len(prod) == 0:
        return out
    owner, ptr = split_points(q_ptr)
    pairs_g1 = np.ascontiguousarray(np.asarray(g1, dtype=np.uint64).reshape(-1, 2, L)[p_idx])
    points = np.ascontiguousarray(np.asarray(g2, dtype=np.uint64).reshape(-1, 2, 2, L)[owner])
    mod = _module(curve)
    order = np.argsort(prod, kind="stable")
    counts = np.bincount(prod, minlength=nprod)
    with device:
        vals = cp.empty(len(prod) * words, dtype=cp.uint32)
        nq = len(owner)
        mod.get_function("miller_pairs")(((nq + THREADS - 1) // THREADS,), (THREADS,),
                                         (cp.asarray(pairs_g1).view(cp.uint32), cp.asarray(points).view(cp.uint32),
                                          cp.asarray(ptr), np.int32(nq), vals))
        idx = cp.asarray(order)
        seg = counts[counts > 0]
        for starts, seg in reduction_levels(seg):
            nch = len(starts) - 1
            nxt = cp.empty(nch * words, dtype=cp.uint32)
            mod.get_function("fq12_chunk_products")(((nch + THREADS - 1) // THREADS,), (THREADS,),
                                                    (vals, idx, cp.asarray(starts), np.int32(nch), nxt))
            vals, idx = nxt, cp.arange(nch, dtype=cp.int64)
        # one value per non-empty product now, at idx[segment start]
        first = cp.asarray(np.cumsum(seg) - seg)
        got = vals.reshape(-1, words)[idx[first]]
        out[counts > 0] = cp.asnumpy(got).view(np.uint64).reshape((-1,) + out.shape[1:])
    return out
