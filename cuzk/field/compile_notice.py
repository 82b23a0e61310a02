"""Tell a person at a terminal that the pause they see is kernel compilation.

numba compiles each kernel on its first call and caches the machine code on
disk, so only a first run (or one after the generators changed) compiles, for
a minute or more on a small machine, silently. A listener on numba's compile
events says so on stderr when the first compile starts and every few seconds
while compiles go on. Cache hits raise no compile event, so warm runs print
nothing. It speaks only when stderr is a terminal, or when CUZK_PROGRESS=1.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from numba.core import event

INTERVAL_S = 5.0


class CompileNotice(event.Listener):
    def __init__(self, cache: str, stream=None, interval_s: float = INTERVAL_S, clock=time.monotonic):
        self.cache, self.stream, self.interval_s, self.clock = cache, stream, interval_s, clock
        self.depth = 0  # a kernel's compile compiles the kernels it calls inside it
        self.compiled = 0
        self.started = self.last = None
        self.lock = threading.Lock()

    def _out(self):
        return self.stream or sys.stderr

    def on_start(self, ev) -> None:
        with self.lock:
            self.depth += 1
            if self.started is None:
                self.started = self.last = self.clock()
                print(f"cuzk: compiling CPU kernels on first use; this happens once, later runs load them "
                      f"from {self.cache}", file=self._out(), flush=True)

    def on_end(self, ev) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth:
                return
            self.compiled += 1
            now = self.clock()
            if now - self.last >= self.interval_s:
                self.last = now
                print(f"cuzk: still compiling kernels ({self.compiled} done, {now - self.started:.0f} s)",
                      file=self._out(), flush=True)


_installed: CompileNotice | None = None


def wanted() -> bool:
    """Whether anyone reads progress notices: stderr is a terminal, or CUZK_PROGRESS=1 (0: never)."""
    flag = os.environ.get("CUZK_PROGRESS")
    return flag == "1" or (flag != "0" and sys.stderr.isatty())


def after(delay_s: float, message: str) -> threading.Timer:
    """Print `message` on stderr if the caller's wait is still going after delay_s
    (the caller cancels the returned timer when done); a no-op timer when unwanted."""
    timer = threading.Timer(delay_s, lambda: print(message, file=sys.stderr, flush=True))
    timer.daemon = True
    if wanted():
        timer.start()
    return timer


def install(cache: str) -> CompileNotice | None:
    """Listen for numba compiles in this process (once), if someone can read the notice."""
    global _installed
    if not wanted():
        return None
    if _installed is None:
        _installed = CompileNotice(cache)
        event.register("numba:compile", _installed)
    return _installed
