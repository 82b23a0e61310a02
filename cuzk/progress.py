"""Progress on stderr: what cuzk is doing during a wait a person would otherwise sit through silently.

Every part of cuzk writes its progress through here: the first-run notice of
numba compiling kernels (cuzk.field.compile_notice), NVRTC compiling CUDA
modules, the job counter of `cuzk demo` and `cuzk bench`, a daemon's notices
echoed by the process that started it. So that they never run into each
other:

* a notice is a whole line of its own (`notice`), at a terminal or not;
* a live status line (`status`: one counter, such as "demo: 3/6 done") is
  redrawn in place with a carriage return only when stderr is a terminal; a
  notice printed meanwhile clears it, takes its own line, and the status
  line is drawn again below it. Elsewhere (a pipe, a log file) every status
  update is a plain line and no carriage return is written; the caller says
  how often (`Status` below: one line per 10 % or per `every_s` seconds).

CUZK_PROGRESS=0 turns notices and non-terminal status lines off (for
scripts that read stderr, benchmarks that time the process, the tests);
unset or 1, they are on.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

_lock = threading.RLock()
_live: dict = {}  # id(stream) -> the status text shown in place on that terminal
_last_write = time.monotonic()  # when anything was last written through here (any stream)
CLEAR = "\r\x1b[K"  # back to the line's start, erase it


def enabled() -> bool:
    """Whether progress is wanted: CUZK_PROGRESS is unset or anything but 0."""
    return os.environ.get("CUZK_PROGRESS", "1") != "0"


def _stream(stream):
    return stream if stream is not None else sys.stderr


def is_terminal(stream=None) -> bool:
    s = _stream(stream)
    try:
        return s.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def notice(text: str, stream=None) -> None:
    """`text` on a line of its own (nothing when CUZK_PROGRESS=0)."""
    if enabled():
        line(text, stream)


def line(text: str, stream=None) -> None:
    """Write `text` as a whole line, even while a status line is shown in place on that terminal
    (it is cleared first and drawn again after)."""
    global _last_write
    s = _stream(stream)
    with _lock:
        _last_write = time.monotonic()
        live = _live.get(id(s))
        try:
            s.write((CLEAR if live is not None else "") + text.rstrip("\n") + "\n" + (live or ""))
            s.flush()
        except ValueError:  # closed at interpreter exit
            pass


def status(text: str, stream=None) -> None:
    """Show `text` as the status line: in place at a terminal, else as a plain line."""
    global _last_write
    s = _stream(stream)
    with _lock:
        if is_terminal(s):
            _last_write = time.monotonic()
            _live[id(s)] = text
            s.write(CLEAR + text)
            s.flush()
        elif enabled():
            line(text, s)


def end_status(stream=None) -> None:
    """Leave the status line shown in place (if any) where it is and go to the next line."""
    s = _stream(stream)
    with _lock:
        if _live.pop(id(s), None) is not None:
            s.write("\n")
            s.flush()


def quiet_for() -> float:
    """Seconds since anything was last written through this module."""
    return time.monotonic() - _last_write


@contextlib.contextmanager
def ticking(what: str, every_s: float = 5.0, first_s: float = 2.0, stream=None):
    """While the block runs, "WHAT: still going, N s" once nothing has been written through this module
    for `first_s` seconds since the block began, then whenever nothing has for `every_s` (other progress
    lines, such as a daemon's echoed compile notices, make it wait): for a single call that may take
    long, such as an RPC, with no counter of its own."""
    done = threading.Event()
    t0 = time.monotonic()

    def run():
        gap = first_s
        while not done.wait(0.25):
            now = time.monotonic()
            if now - max(t0, _last_write) >= gap:
                notice(f"{what}: still going, {now - t0:.0f} s", stream)
                gap = every_s

    thread = threading.Thread(target=run, name="cuzk-progress-ticker", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


class Status:
    """One counter of `total` steps (None: unknown), shown with `status` as
    "LABEL: DONE/TOTAL UNIT, DETAIL, S s". At a terminal every update is drawn in place; elsewhere an
    update becomes a line when it is the first, crosses a tenth of the total, or comes `every_s`
    seconds after the previous line."""

    def __init__(self, label: str, total: int | None = None, unit: str = "done", every_s: float = 10.0,
                 stream=None, clock=time.monotonic):
        self.label, self.total, self.unit, self.every_s = label, total, unit, every_s
        self.stream, self.clock = stream, clock
        self.t0 = clock()
        self._last_line: float | None = None
        self._last_tenth = -1

    def elapsed(self) -> float:
        return self.clock() - self.t0

    def text(self, done: int, detail: str = "") -> str:
        tot = f"/{self.total:,}" if self.total else ""
        return (f"{self.label}: {done:,}{tot} {self.unit}" + (f", {detail}" if detail else "")
                + f", {self.elapsed():.1f} s")

    def update(self, done: int, detail: str = "") -> None:
        if is_terminal(self.stream):
            status(self.text(done, detail), self.stream)
            return
        now = self.clock()
        tenth = done * 10 // self.total if self.total else -1
        if self._last_line is None or tenth != self._last_tenth or now - self._last_line >= self.every_s:
            self._last_line, self._last_tenth = now, tenth
            status(self.text(done, detail), self.stream)

    def close(self) -> None:
        end_status(self.stream)
