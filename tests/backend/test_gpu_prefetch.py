"""CUDA witness prefetch (gpu marked): data through the copy stream, pinned buffers returned.
prove_batch with prefetch on the GPU is tested in tests/groth16/test_prove_batch_prefetch.py."""

import threading

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def fresh_backend():
    from cuzk.backend.cuda import CudaBackend

    return CudaBackend()


def test_prefetched_data_is_identical_and_buffers_return():
    import cupy as cp

    be = fresh_backend()
    pool = be.uploader.pool
    rng = np.random.default_rng(5)
    big = rng.integers(0, 2**63, (1 << 23, 4), dtype=np.uint64)  # 256 MiB: the copy takes a while
    small = rng.integers(0, 2**63, (100, 4), dtype=np.uint64)
    handle = be.prefetch(big)
    assert pool.parked == 1  # its staging buffer waits for the copy's event, not returned at once
    consumer = cp.cuda.Stream(non_blocking=True)
    with consumer:  # a kernel on another stream, ordered after the copy by wait_event only
        dev = be.witness(handle)
        doubled = dev * 2
    consumer.synchronize()
    assert np.array_equal(cp.asnumpy(dev), big)
    assert np.array_equal(cp.asnumpy(doubled), big * 2)
    assert np.array_equal(cp.asnumpy(be.witness(be.prefetch(small))), small)
    held = be.uploader.host_array(small.shape)  # already pinned: uploaded without staging
    held[:] = small
    assert np.array_equal(cp.asnumpy(be.witness(be.prefetch(held))), small)
    be.uploader.release(held)
    on_device = cp.asarray(small)
    assert be.witness(be.prefetch(on_device)) is on_device
    be.synchronize()
    pool.reclaim()
    assert pool.outstanding == 0 and pool.parked == 0
    before = pool.pinned_bytes
    again = be.prefetch(big)  # the size's buffer is reused, not pinned again
    assert pool.pinned_bytes == before
    assert np.array_equal(cp.asnumpy(be.witness(again)), big)
    be.synchronize()
    pool.reclaim()
    assert pool.outstanding == 0


def test_prefetch_from_threads_shares_one_pool():
    import cupy as cp

    be = fresh_backend()
    arrays = [np.full((1 << 18, 4), k, dtype=np.uint64) for k in range(6)]
    out = [None] * len(arrays)

    def work(k):
        out[k] = be.prefetch(arrays[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, h in enumerate(out):
        assert np.array_equal(cp.asnumpy(be.witness(h)), arrays[k])
    be.synchronize()
    be.uploader.pool.reclaim()
    assert be.uploader.pool.outstanding == 0


def test_host_array_comes_from_the_pinned_pool_and_release_host_returns_only_its_own():
    """The engine's witness buffers: Backend.host_array / release_host over the uploader's pool."""
    be = fresh_backend()
    pool = be.uploader.pool
    held = be.host_array((100, 4))
    assert held.shape == (100, 4) and held.dtype == np.uint64
    assert pool.owns(held) and pool.outstanding == 1
    be.release_host(np.empty((100, 4), dtype=np.uint64))  # not the pool's: left alone
    assert pool.outstanding == 1
    be.release_host(held)
    assert pool.outstanding == 0
