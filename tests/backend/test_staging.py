"""StagingPool bookkeeping (the pinned pool's logic) with plain host memory.

`Copy` stands in for a CUDA event recorded after an asynchronous copy: it is
done when the test says the copy finished, or once waited for."""

import threading

import numpy as np
import pytest

from cuzk.backend.staging import StagingPool


class Copy:
    def __init__(self):
        self.done = False
        self.waited = False

    def synchronize(self):
        self.waited = True
        self.done = True


def test_buffers_are_reused_by_size_and_allocated_once():
    allocs = []

    def alloc(n):
        allocs.append(n)
        return bytearray(n)

    pool = StagingPool(alloc)
    a = pool.take(64)
    a[:] = 7
    pool.give(a)
    b = pool.take(64)
    assert b.ctypes.data == a.ctypes.data and allocs == [64]
    c = pool.take(32)
    assert allocs == [64, 32] and pool.outstanding == 2
    assert pool.owns(b[:16].view(np.uint8)) and not pool.owns(np.zeros(64, np.uint8))
    pool.give(b)
    pool.give(c)
    assert pool.outstanding == 0 and pool.pinned_bytes == 96
    with pytest.raises(ValueError, match="not one of this pool's buffers"):
        pool.give(np.zeros(8, np.uint8))


def test_a_buffer_returns_only_after_its_copy_is_done():
    pool = StagingPool(bytearray)
    buf = pool.take(128)
    copy = Copy()
    pool.give_after(buf, copy)
    assert pool.reclaim() == 0 and pool.outstanding == 1 and pool.parked == 1
    other = pool.take(128)  # the parked buffer is still being read: a new one is allocated
    assert other.ctypes.data != buf.ctypes.data
    copy.done = True
    pool.give(other)
    again = pool.take(128)  # take() collects the finished copy's buffer first
    assert pool.parked == 0 and pool.outstanding == 1
    assert again.ctypes.data in (buf.ctypes.data, other.ctypes.data)
    pool.give(again)
    assert pool.outstanding == 0 and pool.pinned_bytes == 256


def test_reclaim_wait_waits_for_every_parked_copy():
    pool = StagingPool(bytearray)
    copies = [Copy() for _ in range(3)]
    for c in copies:
        pool.give_after(pool.take(16), c)
    copies[0].done = True
    assert pool.reclaim() == 1
    assert pool.reclaim(wait=True) == 2 and all(c.waited for c in copies[1:])
    assert pool.outstanding == 0 and pool.parked == 0
    with pytest.raises(ValueError, match="not one of this pool's buffers"):
        pool.give_after(np.zeros(4, np.uint8), Copy())


def test_concurrent_take_and_give_lose_nothing():
    pool = StagingPool(bytearray)
    errors = []

    def worker(k):
        try:
            for i in range(200):
                buf = pool.take(32 * (1 + (i + k) % 3))
                buf[:] = k
                if i % 2:
                    pool.give(buf)
                else:
                    c = Copy()
                    pool.give_after(buf, c)
                    c.done = True
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    pool.reclaim()
    assert pool.outstanding == 0 and pool.parked == 0


@pytest.mark.parametrize("shape,dtype", [((1000, 4), np.uint64), ((9 << 20) + 3, np.uint64), ((5,), np.uint8)])
def test_copy_into_copies_every_byte(shape, dtype):
    """Large arrays go in page-aligned chunks on several threads: the last chunk's odd size too."""
    from cuzk.backend.staging import copy_into

    src = np.random.default_rng(1).integers(0, 2**63, shape, dtype=np.uint64).astype(dtype)
    dst = np.zeros_like(src)
    copy_into(dst, src)
    assert np.array_equal(dst, src)


def test_copy_into_refuses_mismatched_arrays():
    from cuzk.backend.staging import copy_into

    with pytest.raises(ValueError, match="equal size"):
        copy_into(np.zeros(8, np.uint64), np.zeros(9, np.uint64))
    with pytest.raises(ValueError, match="C-contiguous"):
        copy_into(np.zeros(8, np.uint64), np.zeros(16, np.uint64)[::2])


def test_cpu_backend_host_buffers_are_plain_arrays():
    """Backend.host_array / release_host / pin_host on a backend without a device: plain memory, as is."""
    from cuzk.backend.cpu import CpuBackend

    be = CpuBackend()
    a = be.host_array((3, 4))
    assert a.shape == (3, 4) and a.dtype == np.uint64
    be.release_host(a)
    assert be.pin_host(a) is a
