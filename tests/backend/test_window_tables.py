"""The window-table budget: built when it fits, kept, never evicted for another."""

import threading

from cuzk.backend.window_tables import TableCache, table_bytes, table_room, table_rows, table_sets

G1 = 96  # bytes of an affine BLS12-381 G1 point
PLAIN_2_27 = 13 << 19  # the plain MSM at 2^27: 13 windows of 20 bits, 2^19 buckets each


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


def test_room_is_what_the_tables_leave():
    cache = TableCache(100)
    assert cache.room() == 100
    cache.get("a", 30, lambda: "A")
    assert cache.room() == 70


def test_clear_after_out_of_memory_halves_what_tables_may_hold():
    cache = TableCache(100)
    cache.get("a", 60, lambda: "A")
    cache.clear()  # the proof ran out of memory with 60 bytes of tables
    assert len(cache) == 0 and cache.used == 0 and cache.room() == 30
    assert cache.get("a", 60, lambda: "again") is None  # not rebuilt into the same error
    assert cache.get("b", 30, lambda: "B") == "B"
    cache.clear()  # 30 held: 15 left
    cache.clear()  # none held: the error was not the tables', the budget stays
    assert cache.room() == 15 and cache.get("c", 15, lambda: "C") == "C"


def test_find_returns_a_kept_table_only():
    cache = TableCache(100)
    assert cache.find("a") is None
    cache.get("a", 10, lambda: "A")
    assert cache.find("a") == "A" and cache.find("b") is None and cache.used == 10


def test_a_table_is_its_rows_past_the_bases_and_a_chunk_of_scratch():
    # 2^27 bases, c = 20: 13 windows; 7 sets leave 2 rows (windows 0-6 on the bases, 7-12 on
    # 2^140 times them): one row of 12.9 GB to store, and 2^22 XYZZ points (2 x 96 bytes) of scratch
    assert table_rows(20, 7) == 2 and table_rows(20, 1) == 13 and table_rows(20, 5) == 3
    assert table_bytes(1 << 27, 20, 7, G1) == (12_884_901_888, 805_306_368)
    assert table_bytes(1 << 12, 8, 1, G1) == (31 * 4096 * 96, 2 * 4096 * 96)  # 32 windows, small n: all scratch


def test_table_sets_takes_the_fewest_sets_that_fit():
    n = 1 << 27
    row = n * G1
    chunk = 805_306_368
    assert table_sets(n, 20, G1, 12 * row + chunk, PLAIN_2_27) == 1  # every window
    assert table_sets(n, 20, G1, 12 * row + chunk - 1, PLAIN_2_27) == 2  # 7 rows: 6 past the bases
    assert table_sets(n, 20, G1, 2 * row + chunk, PLAIN_2_27) == 5  # 3 rows (4 sets would need 4)
    assert table_sets(n, 20, G1, row + chunk, PLAIN_2_27) == 7  # 2 rows
    assert table_sets(n, 20, G1, row + chunk - 1, PLAIN_2_27) is None  # not even one row past the bases
    assert table_sets(n, 20, G1, 0, PLAIN_2_27) is None


def test_table_sets_never_gives_more_buckets_than_the_plain_msm():
    # 2^24: the plain MSM has 17 windows of 2^15 buckets (c = 16); a c = 20 table's set has 2^19,
    # so only a table with one set qualifies, however little memory the room leaves
    n = 1 << 24
    plain = 17 << 15
    assert table_sets(n, 20, G1, 1 << 50, plain) == 1
    assert table_sets(n, 20, G1, 6 * n * G1 + (1 << 30), plain) is None  # 7 rows would fit, with 2 sets


def test_table_point_indices_stay_below_the_sign_bit():
    # 2^28 bases: 13 rows would name points up to 13 * 2^28 > 2^31; 7 rows (2 sets) stay below
    assert table_sets(1 << 28, 20, G1, 1 << 50, 13 << 19) == 2


def test_kept_lists_the_tables_oldest_first():
    cache = TableCache(100)
    cache.get("a", 10, lambda: "A")
    cache.get("b", 10, lambda: "B")
    cache.get("c", 90, lambda: "C")  # does not fit
    assert cache.kept() == ["A", "B"]


def test_a_build_that_finds_too_little_memory_keeps_nothing_and_halves_the_request():
    cache = TableCache(100)
    cache.get("a", 10, lambda: "A")
    assert cache.get("b", 60, lambda: None, scratch=20) is None  # the device had less free than it seemed
    assert len(cache) == 1 and cache.used == 10 and cache.room() == 40  # 10 held + (60 + 20) / 2
    assert cache.get("b", 60, lambda: "B") is None  # not tried again at that size
    assert cache.get("b", 30, lambda: "B", scratch=10) == "B"


GIB = 1 << 30


def test_a_lone_msm_may_take_the_pools_cached_blocks_less_its_sort():
    # 30 GiB free on the device, 20 cached in the pool, the sort 13, the reserve 7: 30 left, unless
    # the budget has less
    assert table_room(80 * GIB, 30 * GIB, 20 * GIB, 13 * GIB, 7 * GIB, proofs=0) == 30 * GIB
    assert table_room(25 * GIB, 30 * GIB, 20 * GIB, 13 * GIB, 7 * GIB, proofs=0) == 25 * GIB


def test_no_table_while_the_first_proof_measures_its_memory():
    assert table_room(80 * GIB, 41 * GIB, 20 * GIB, 13 * GIB, 7 * GIB, proofs=1) is None


def test_later_proofs_leave_the_pools_blocks_to_the_proofs():
    # the session-16 figures at 2^27 on a 139 GiB card: one proof at a time the pool reached
    # 112.1 GiB, so ~26 GiB never used, 19 past the reserve: one row (12 GiB) fits, s = 7; in
    # batches it reached 130.7, leaving ~8: no row
    single = table_room(80 * GIB, 26 * GIB, 41 * GIB, 13 * GIB, 7 * GIB, proofs=2)
    assert single == 19 * GIB
    assert table_sets(1 << 27, 20, G1, single, PLAIN_2_27) == 7
    batch = table_room(80 * GIB, 8 * GIB, 41 * GIB, 13 * GIB, 7 * GIB, proofs=5)
    assert batch == 1 * GIB and table_sets(1 << 27, 20, G1, batch, PLAIN_2_27) is None
