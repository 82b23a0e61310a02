"""WitnessBuffers over a staging pool (how a GPU engine wires it to its pinned pool): synthesis
gets the pool's buffers, so a prefetch finds them owned and skips its host copy; arrays dropped
beyond `keep` go back to the pool, and arrays the pool never made are not handed to it."""

import numpy as np

from cuzk.backend.staging import StagingPool
from cuzk.engine.resources.witness_buffers import WitnessBuffers


def _wired(keep=1):
    allocs = []

    def alloc(nbytes):
        allocs.append(nbytes)
        return bytearray(nbytes)

    pool = StagingPool(alloc)

    def host_array(shape):
        return pool.take(int(np.prod(shape)) * 8).view(np.uint64).reshape(shape)

    def free(a):
        if pool.owns(a):
            pool.give(a.reshape(-1).view(np.uint8))

    return pool, allocs, WitnessBuffers(keep=keep, alloc=host_array, free=free)


def test_witnesses_live_in_the_pool_and_come_back_to_it():
    pool, allocs, bufs = _wired(keep=1)
    a, b = bufs.take((10, 4)), bufs.take((10, 4))
    assert a.shape == (10, 4) and a.dtype == np.uint64 and a.flags.c_contiguous
    assert pool.owns(a) and pool.owns(b) and a.ctypes.data != b.ctypes.data
    assert allocs == [320, 320] and pool.outstanding == 2
    bufs.give(a)  # kept for the next partition
    bufs.give(b)  # beyond keep: back to the pool, not lost
    assert bufs.free_bytes() == 320 and pool.outstanding == 1
    c = bufs.take((10, 4))  # the kept one
    assert c.ctypes.data == a.ctypes.data and bufs.reused == 1
    d = bufs.take((10, 4))  # from the pool's free list: no new allocation
    assert d.ctypes.data == b.ctypes.data and allocs == [320, 320]


def test_an_array_the_pool_did_not_make_is_not_given_to_it():
    pool, _, bufs = _wired(keep=0)
    bufs.give(np.zeros((10, 4), dtype=np.uint64))  # e.g. a witness synthesized without a buffer
    assert pool.outstanding == 0 and bufs.free_bytes() == 0


def test_default_buffers_are_plain_arrays():
    bufs = WitnessBuffers(keep=1)
    a = bufs.take((3, 4))
    assert isinstance(a, np.ndarray) and a.shape == (3, 4) and a.dtype == np.uint64
    bufs.give(a)
    bufs.give(np.empty((3, 4), dtype=np.uint64))  # beyond keep: dropped
    assert bufs.free_bytes() == a.nbytes
