"""The working-memory budget: sizes, blocking, order, cancellation, no lost wake-ups."""

import random
import threading
import time

import pytest

from cuzk.engine.errors import BudgetTooSmall, Cancelled
from cuzk.engine.resources.memory import MemoryBudget, parse_size


@pytest.mark.parametrize("text,value", [("4GiB", 4 << 30), ("512 MiB", 512 << 20), ("1.5GB", 1_500_000_000),
                                        (1024, 1024), ("77", 77), ("2kib", 2048)])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("bad", ["", "lots", "4 GiBs", "-1", True, -5])
def test_parse_size_rejects(bad):
    with pytest.raises(ValueError, match="budget"):
        parse_size(bad, "budget")


def test_acquire_release_and_partial_release():
    b = MemoryBudget(100)
    r = b.acquire(60)
    assert b.used == 60
    r.release(20)
    assert b.used == 40 and r.size == 40
    r.release()
    r.release()  # idempotent
    assert b.used == 0 and b.peak == 60


def test_too_large_fails_at_once_with_a_clear_message():
    b = MemoryBudget(100)
    with pytest.raises(BudgetTooSmall, match="memory.total_budget"):
        b.acquire(101, what="partition 3")


def _wait_for(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.005)


def test_blocks_until_release_then_proceeds():
    b = MemoryBudget(100)
    first = b.acquire(80)
    got = []
    t = threading.Thread(target=lambda: got.append(b.acquire(50)))
    t.start()
    _wait_for(lambda: b.waiting == 1)
    assert not got
    first.release()
    t.join(10)
    assert got and b.used == 50


def test_waiters_are_served_in_key_order():
    b = MemoryBudget(100)
    hold = b.acquire(100)
    order = []

    def want(key, n):
        r = b.acquire(n, key=key)
        order.append(key)
        r.release()

    threads = [threading.Thread(target=want, args=((2, k), 10)) for k in range(3)]
    threads.append(threading.Thread(target=want, args=((0, 9), 90)))  # high priority, large
    for t in threads:
        t.start()
    _wait_for(lambda: b.waiting == 4)
    hold.release()
    for t in threads:
        t.join(10)
    assert order[0] == (0, 9)  # the large high-priority request was not overtaken
    assert order[1:] == [(2, 0), (2, 1), (2, 2)]


def test_cancel_while_waiting():
    b = MemoryBudget(10)
    hold = b.acquire(10)
    flag = threading.Event()
    errors = []

    def waiter():
        try:
            b.acquire(5, cancelled=flag.is_set)
        except Cancelled as exc:
            errors.append(exc)

    t = threading.Thread(target=waiter)
    t.start()
    _wait_for(lambda: b.waiting == 1)
    flag.set()
    b.poke()
    t.join(10)
    assert errors and b.waiting == 0
    hold.release()
    assert b.used == 0


def test_evictor_is_asked_for_the_shortfall():
    b = MemoryBudget(100)
    cached = b.acquire(70)  # e.g. hot parameters
    asked = []

    def evictor(short):
        asked.append(short)
        cached.release()
        return 70

    b.evictor = evictor
    r = b.acquire(50)
    assert asked == [20] and b.used == 50
    r.release()


def test_no_overcommit_and_no_lost_wakeups_under_load():
    """Many threads acquire and release; every one finishes and the total never exceeds the budget."""
    b = MemoryBudget(1000)
    seen_over = []
    done = []

    def worker(seed):
        rng = random.Random(seed)
        for _ in range(40):
            r = b.acquire(rng.randint(1, 600), key=(rng.randint(0, 3),))
            if b.used > b.total:
                seen_over.append(b.used)
            time.sleep(rng.random() * 0.001)
            r.release()
        done.append(seed)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(done) == 12 and not seen_over and b.used == 0 and b.peak <= 1000
