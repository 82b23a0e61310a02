"""Say that the pause a person sees is kernel compilation, which happens once.

numba compiles each kernel on its first call and caches the machine code on
disk, so only a first run (or one after the generators changed) compiles, for
a minute or more on a small machine. A listener on numba's compile events
says so on stderr (through cuzk.progress: whole lines, at a terminal or not):

    cuzk: compiling CPU kernels on first use (once: later runs load them from DIR): bls12_381 msm
    cuzk: compiling CPU kernels: 12 compiled, 10 s (bls12_381 ntt)
    cuzk: compiling CPU kernels: 35 compiled, 20 s (bls12_381 pairing)

One counter per process (kernels compiled so far, seconds since the first),
a line when the first compile starts, then one at most every INTERVAL_S
seconds while compiles go on (a ticker thread covers a single long
compile), naming the kernel group being compiled. How many kernels a command
will compile is not known before it calls them (numba compiles on first
call), so the counter has no total. Cache hits raise no compile event: warm
runs print nothing. CUZK_PROGRESS=0 silences it.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time

from numba.core import event

from cuzk import progress

INTERVAL_S = 5.0
PREFIX = "cuzk: compiling CPU kernels"


def kernel_group(dispatcher) -> str:
    """A readable name of the kernels a dispatcher belongs to: the generated module's name
    (cuzk_jit_bls12_381_msm_<hash> -> "bls12_381 msm"), else its module's (cuzk.r1cs.witness -> "r1cs.witness")."""
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    m = re.fullmatch(r"cuzk_jit_(bls12_381|bn254)_(\w+?)_[0-9a-f]{16}", module)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    m = re.fullmatch(r"cuzk_jit_(\w+?)_[0-9a-f]{16}", module)
    if m:
        return m.group(1)
    return module.removeprefix("cuzk.") or "kernels"


class CompileNotice(event.Listener):
    def __init__(self, cache: str, stream=None, interval_s: float = INTERVAL_S, clock=time.monotonic,
                 ticker: bool = True):
        self.cache, self.stream, self.interval_s, self.clock, self.ticker = cache, stream, interval_s, clock, ticker
        self.depth = 0  # a kernel's compile compiles the kernels it calls inside it
        self.compiled = 0
        self.group = ""
        self.started = self.last = None
        self.lock = threading.Lock()
        self._ticking = False

    def _say(self, text: str) -> None:
        if not _muted:
            progress.notice(text, self.stream)

    def _counter(self, now: float) -> str:
        return f"{PREFIX}: {self.compiled} compiled, {now - self.started:.0f} s ({self.group})"

    def on_start(self, ev) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            self.group = kernel_group(ev.data.get("dispatcher") if isinstance(ev.data, dict) else None)
            now = self.clock()
            if self.started is None:
                self.started = self.last = now
                self._say(f"{PREFIX} on first use (once: later runs load them from {self.cache}): {self.group}")
            elif now - self.last >= self.interval_s:
                self.last = now
                self._say(self._counter(now))
            if self.ticker and not self._ticking:
                self._ticking = True
                threading.Thread(target=self._tick, name="cuzk-compile-notice", daemon=True).start()

    def on_end(self, ev) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth:
                return
            self.compiled += 1
            now = self.clock()
            if now - self.last >= self.interval_s:
                self.last = now
                self._say(self._counter(now))

    def _tick(self) -> None:
        """While a compile runs, a counter line every interval_s (a single kernel may take longer)."""
        while True:
            time.sleep(self.interval_s / 5)
            with self.lock:
                if not self.depth:
                    self._ticking = False
                    return
                now = self.clock()
                if now - self.last >= self.interval_s:
                    self.last = now
                    self._say(self._counter(now))


_installed: CompileNotice | None = None
_muted = 0


@contextlib.contextmanager
def muted():
    """No compile lines from this process inside the block (compiles are still counted): for work
    done in the background that its caller has announced once, while another counter (a daemon's,
    echoed) is shown."""
    global _muted
    _muted += 1
    try:
        yield
    finally:
        _muted -= 1


def wanted() -> bool:
    """Whether progress notices are on (CUZK_PROGRESS is not 0); at a terminal or not."""
    return progress.enabled()


def after(delay_s: float, message: str) -> threading.Timer:
    """Print `message` on stderr (its own line) if the caller's wait is still going after delay_s
    (the caller cancels the returned timer when done); a no-op timer when CUZK_PROGRESS=0."""
    timer = threading.Timer(delay_s, lambda: progress.notice(message))
    timer.daemon = True
    if wanted():
        timer.start()
    return timer


def forget() -> None:
    """In a forked worker process: stop listening (the parent announces the workers' compiles), so
    that no lock the parent's ticker thread held at the fork is ever waited on here."""
    global _installed, _muted
    _muted += 1
    if _installed is not None:
        event.unregister("numba:compile", _installed)
        _installed = None


def install(cache: str) -> CompileNotice | None:
    """Listen for numba compiles in this process (once), unless CUZK_PROGRESS=0."""
    global _installed
    if not wanted():
        return None
    if _installed is None:
        _installed = CompileNotice(cache)
        event.register("numba:compile", _installed)
    return _installed
