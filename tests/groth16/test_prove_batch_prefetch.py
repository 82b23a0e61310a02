"""prove_batch with the one-job-ahead witness staging (Lookahead), on the CPU backend.

The staging order, the bound (one job ahead), errors raised at the failing
job's turn and the clean-up are checked on Lookahead directly with real
functions; prove_batch is checked end to end: proofs verify, equal prove()
one by one under the same randomness, and a bad job fails at its turn with
nothing left running."""

import threading
import time

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.groth16 import prover, setup
from cuzk.groth16.lookahead import Lookahead
from cuzk.groth16.verifier import PreparedVerifyingKey, verify
from cuzk.r1cs import LC, ONE, RecordingCS, WitnessCS
from cuzk.r1cs.evaluation import evaluate

from test_groth16 import assert_phases_add_up

CURVE = "bn254"


def square_circuit(cs, x):
    """Public y = x^2 + x + 3."""
    xv = cs.alloc(x)
    x2 = cs.alloc(lambda: x * x)
    y = cs.alloc_input(lambda: x * x + x + 3)
    cs.enforce(xv, xv, x2)
    cs.enforce(LC.of(x2, 1) + LC.of(xv, 1) + LC.constant(3), ONE, y)


def witness(x):
    ws = WitnessCS(CURVE)
    square_circuit(ws, x)
    return ws.witness()


@pytest.fixture(scope="module")
def keyed():
    rec = RecordingCS(CURVE)
    square_circuit(rec, 0)
    cc = rec.compile()
    return cc, setup.generate(cc, backend=get_backend("cpu"))


def lookahead_threads():
    return [t for t in threading.enumerate() if t.name.startswith("cuzk-lookahead")]


class Recorder:
    """A device lock that records each proof's entry (the prover holds it around backend work)."""

    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1

    def __exit__(self, *exc):
        pass


# ---- Lookahead ------------------------------------------------------------------------


def test_lookahead_prepares_the_next_job_while_the_current_one_runs():
    log, lock = [], threading.Lock()
    started = {j: threading.Event() for j in range(5)}
    ahead_now, most_ahead = [0], [0]

    def prepare(j):
        with lock:
            log.append(("prepare", j, threading.current_thread().name))
            ahead_now[0] += 1
            most_ahead[0] = max(most_ahead[0], ahead_now[0])
        started[j].set()
        return j * 10

    with Lookahead(prepare, 5) as ahead:
        for j in range(5):
            value = ahead.take(j)
            with lock:
                log.append(("take", j))
                ahead_now[0] -= 1
            assert value == j * 10
            if j + 1 < 5:  # job j "runs" until job j+1's preparation has begun: it overlaps
                assert started[j + 1].wait(30), f"job {j + 1} was not prepared while job {j} ran"
    order = [(e[0], e[1]) for e in log]
    for k in range(2, 5):  # never more than one job ahead: k starts only after k-2 was taken
        assert order.index(("prepare", k)) > order.index(("take", k - 2))
    assert most_ahead[0] <= 2  # the job being taken plus the one prepared ahead
    assert all(e[2].startswith("cuzk-lookahead") for e in log if e[0] == "prepare" and e[1] > 0)
    assert not lookahead_threads()


def test_lookahead_raises_a_preparation_error_at_that_jobs_turn():
    def prepare(j):
        if j == 2:
            raise ValueError("job 2 is bad")
        return j

    taken = []
    with pytest.raises(ValueError, match="job 2 is bad"):
        with Lookahead(prepare, 4) as ahead:
            for j in range(4):
                taken.append(ahead.take(j))
    assert taken == [0, 1]
    assert not lookahead_threads()


def test_lookahead_close_waits_for_a_running_preparation():
    began, release, finished = threading.Event(), threading.Event(), []

    def prepare(j):
        if j == 1:
            began.set()
            release.wait(30)
            finished.append(j)
        return j

    with pytest.raises(RuntimeError, match="job 0 failed"):
        with Lookahead(prepare, 3) as ahead:
            ahead.take(0)
            assert began.wait(30)
            threading.Timer(0.05, release.set).start()
            raise RuntimeError("job 0 failed")
    assert finished == [1]  # waited for, not abandoned mid-copy; job 2 never started
    assert not lookahead_threads()


def test_lookahead_single_job_runs_inline_and_takes_in_order():
    names = []
    with Lookahead(lambda j: names.append(threading.current_thread().name), 1) as ahead:
        ahead.take(0)
    assert names == [threading.current_thread().name]
    with Lookahead(lambda j: j, 3) as ahead:
        with pytest.raises(ValueError, match="expected job 0, not 1"):
            ahead.take(1)


# ---- prove_batch ---------------------------------------------------------------------------


def test_prove_batch_equals_prove_one_by_one_and_verifies(keyed):
    cc, pk = keyed
    cpu = get_backend("cpu")
    fr = get_curve(CURVE).fr
    xs = [2, 5, 9, 14]
    rng = np.random.default_rng(1)
    rs = [tuple(int(v) % fr.p for v in rng.integers(1, 2**62, 2)) for _ in xs]
    jobs = [prover.ProofJob(witness(x), rows=evaluate(cc, witness(x))) if i % 2
            else prover.ProofJob(witness(x), circuit=cc) for i, x in enumerate(xs)]
    t0 = time.perf_counter()
    batch = prover.prove_batch(pk, jobs, backend=cpu, rs=rs)
    wall_ms = (time.perf_counter() - t0) * 1e3
    pvk = PreparedVerifyingKey(pk.vk)
    for p in batch:
        assert_phases_add_up(p.timings, wall_ms)
    assert sum(p.timings["total"] for p in batch) <= wall_ms  # the proofs of a pass follow each other
    for job, (r, s), p, x in zip(jobs, rs, batch, xs):
        one = prover.prove_batch(pk, [job], backend=cpu, rs=[(r, s)])[0]
        assert all(np.array_equal(getattr(one, k), getattr(p, k)) for k in ("a", "b", "c"))
        assert verify(pvk, p, [(x * x + x + 3) % fr.p])
    assert not lookahead_threads()


@pytest.mark.parametrize("bad", [0, 1, 3])
def test_prove_batch_reports_a_bad_witness_at_its_own_turn(keyed, bad):
    cc, pk = keyed
    ws = [witness(x) for x in (2, 3, 4, 5)]
    ws[bad] = ws[bad][:-1]  # one variable short
    lock = Recorder()
    with pytest.raises(ValueError, match=f"witness has {pk.num_vars - 1} variables, the key expects {pk.num_vars}"):
        prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc) for w in ws], backend=get_backend("cpu"),
                           device_lock=lock)
    assert lock.entered == bad  # the jobs before it were proven, none after it started
    assert not lookahead_threads()


def test_prove_batch_failure_in_a_proof_leaves_nothing_running(keyed):
    """Job 0 fails inside its device work while job 1 is being staged: the error is
    job 0's, and the staging thread is gone when prove_batch returns."""
    cc, pk = keyed
    w = witness(3)
    a, b, c = evaluate(cc, w)
    too_many = np.zeros((pk.domain_size + 1, 4), dtype=np.uint64)
    with pytest.raises(ValueError, match="constraint rows exceed"):
        prover.prove_batch(pk, [prover.ProofJob(w, rows=(too_many, b, c)), prover.ProofJob(w, rows=(a, b, c))],
                           backend=get_backend("cpu"))
    assert not lookahead_threads()


def cuda_backend():
    from cuzk.backend.cuda import CudaBackend

    return CudaBackend()  # its own pinned pool, so the buffer counts below are this test's


@pytest.mark.gpu
def test_cuda_prove_batch_with_prefetch_matches_cpu_and_returns_every_buffer(keyed):
    cc, pk = keyed
    be = cuda_backend()
    fr = get_curve(CURVE).fr
    xs = [3, 4, 5, 6, 7]
    rs = [(11 + k, 23 + k) for k in range(len(xs))]
    jobs = [prover.ProofJob(witness(x), circuit=cc) for x in xs]
    proofs = prover.prove_batch(pk, jobs, backend=be, rs=rs)
    pvk = PreparedVerifyingKey(pk.vk)
    cpu = get_backend("cpu")
    for job, (r, s), p, x in zip(jobs, rs, proofs, xs):
        assert verify(pvk, p, [(x * x + x + 3) % fr.p])
        one = prover.prove(pk, job.w, evaluate(cc, job.w), backend=cpu, r=r, s=s)
        assert all(np.array_equal(getattr(one, k), getattr(p, k)) for k in ("a", "b", "c"))
        assert "gpu:wait_witness" in p.timings
    pool = be.uploader.pool
    pool.reclaim()  # every copy ended before its proof's results came back: nothing waits
    assert pool.outstanding == 0
    assert pool.pinned_bytes <= 2 * jobs[0].w.nbytes  # one job ahead: two staging buffers at most


@pytest.mark.gpu
def test_cuda_prove_batch_errors_return_every_buffer(keyed):
    cc, pk = keyed
    be = cuda_backend()
    ws = [witness(x) for x in (3, 4, 5)]
    short = [ws[0], ws[1][:-1], ws[2]]
    with pytest.raises(ValueError, match="witness has"):
        prover.prove_batch(pk, [prover.ProofJob(w, circuit=cc) for w in short], backend=be)
    w = ws[0]
    a, b, c = evaluate(cc, w)
    too_many = np.zeros((pk.domain_size + 1, 4), dtype=np.uint64)
    with pytest.raises(ValueError, match="constraint rows exceed"):  # job 1 was prefetched and never used
        prover.prove_batch(pk, [prover.ProofJob(w, rows=(too_many, b, c)), prover.ProofJob(w, rows=(a, b, c))],
                           backend=be)
    be.uploader.pool.reclaim(wait=True)
    assert be.uploader.pool.outstanding == 0
    again = [prover.ProofJob(w, circuit=cc), prover.ProofJob(ws[1], circuit=cc)]
    proofs = prover.prove_batch(pk, again, backend=be)  # the backend still proves
    assert verify(PreparedVerifyingKey(pk.vk), proofs[1], [(16 + 4 + 3) % get_curve(CURVE).fr.p])


@pytest.mark.gpu
def test_cuda_single_job_under_a_device_lock_uploads_before_taking_it(keyed):
    """The engine's prover workers share a GPU through its lock: a single job's witness is staged
    and its upload started before the lock is taken (wait_witness, not a synchronous h2d_witness),
    and the proof verifies."""
    import threading

    cc, pk = keyed
    be = cuda_backend()
    lock = threading.Lock()
    [p] = prover.prove_batch(pk, [prover.ProofJob(witness(4), circuit=cc)], backend=be, device_lock=lock)
    assert "gpu:wait_witness" in p.timings and "gpu:h2d_witness" not in p.timings, p.timings
    assert verify(PreparedVerifyingKey(pk.vk), p, [(16 + 4 + 3) % get_curve(CURVE).fr.p])
    be.uploader.pool.reclaim(wait=True)
    assert be.uploader.pool.outstanding == 0
