"""The window-table budget: built when it fits, kept, never evicted for another."""

import threading

from cuzk.backend.window_tables import TableCache


def test_builds_within_budget_and_reuses():
    cache = TableCache(100)
    built = []
    t1 = cache.get("a", 60, lambda: built.append("a") or ["table a"])
    assert t1 == ["table a"] and cache.used == 60
    assert cache.get("a", 60, lambda: built.append("again") or None) is t1  # reused, not rebuilt
    assert built == ["a"]


def test_does_not_evict_for_a_table_that_does_not_fit():
    cache = TableCache(100)
    cache.get("a", 60, lambda: "A")
    assert cache.get("b", 50, lambda: "B") is None  # 60 + 50 > 100: b runs without a table
    assert cache.get("a", 60, lambda: "rebuilt") == "A"
    assert cache.get("c", 30, lambda: "C", scratch=20) is None  # the build's scratch must fit too
    assert cache.get("c", 30, lambda: "C", scratch=10) == "C" and cache.used == 90  # kept: the table only


def test_drop_frees_the_budget_and_the_holder():
    cache = TableCache(100)
    holder = object()
    cache.get("a", 100, lambda: "A", holder=holder)
    assert cache._tables["a"][2] is holder
    cache.drop("a")
    cache.drop("a")  # twice is harmless
    assert cache.used == 0 and len(cache) == 0
    assert cache.get("b", 100, lambda: "B") == "B"


def test_concurrent_requests_build_once():
    cache = TableCache(100)
    calls = []
    gate = threading.Barrier(4)

    def ask():
        gate.wait()
        cache.get("a", 10, lambda: calls.append(1) or "A")

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert calls == [1] and cache.used == 10
