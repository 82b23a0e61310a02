"""Prepare job j+1 while job j runs: one background thread, at most one job ahead.

The prover stages the next witness (validation, the copy into pinned memory,
the start of its upload) while the current proof's kernels run. One job ahead
keeps memory bounded whatever the batch size; an error preparing a job is
raised when that job is taken, so the jobs before it are unaffected; leaving
the `with` block waits for a preparation still running, so no thread and no
half-started copy outlives the batch.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor


class Lookahead:
    def __init__(self, prepare, count: int, background: bool = True):
        """`prepare(j)` for j in range(count), taken in order with `take(j)`.
        Without `background` (or for one job) each runs when taken, in the caller's thread."""
        self._prepare, self._count = prepare, count
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="cuzk-lookahead") if background and count > 1 else None
        self._ahead: tuple[int, Future] | None = None
        self._next = 0

    def take(self, j: int):
        """Job j's prepared value (raising its preparation's error); starts preparing j+1."""
        if j != self._next:
            raise ValueError(f"lookahead: jobs are taken in order; expected job {self._next}, not {j}")
        self._next = j + 1
        ahead, self._ahead = self._ahead, None
        value = ahead[1].result() if ahead is not None else self._prepare(j)
        if self._pool is not None and j + 1 < self._count:
            self._ahead = (j + 1, self._pool.submit(self._prepare, j + 1))
        return value

    def close(self) -> None:
        """Wait for a preparation still running and drop its result (or error)."""
        self._ahead = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Lookahead:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
