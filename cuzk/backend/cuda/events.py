"""CUDA-event phase timings: each phase is a pair of events on the current
stream; nested phases are named "outer/inner". Elapsed times are read after
the last event completes, so recording them never stalls the pipeline. `moved`: the bytes this
proof copied from host to device (the uploads count themselves through `count`)."""

from __future__ import annotations

from contextlib import contextmanager

import cupy as cp


class EventTimer:
    def __init__(self):
        self._stack: list[str] = []
        self._marks: list[tuple[str, cp.cuda.Event, cp.cuda.Event]] = []
        self.moved = 0

    def count(self, *arrays) -> None:
        """Count the host arrays among `arrays` as copied to the device (device arrays move nothing)."""
        self.moved += sum(int(a.nbytes) for a in arrays if not isinstance(a, cp.ndarray))

    @contextmanager
    def phase(self, label: str):
        self._stack.append(label)
        name = "/".join(self._stack)
        start = cp.cuda.Event()
        start.record()
        try:
            yield
        finally:
            end = cp.cuda.Event()
            end.record()
            self._marks.append((name, start, end))
            self._stack.pop()

    def results(self) -> dict[str, float]:
        """Milliseconds per phase name (summed over repeats), in first-seen order."""
        out: dict[str, float] = {}
        if not self._marks:
            return out
        self._marks[-1][2].synchronize()
        for name, start, end in self._marks:
            end.synchronize()
            out[name] = out.get(name, 0.0) + cp.cuda.get_elapsed_time(start, end)
        return out
