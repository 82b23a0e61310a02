"""Compile the kernels a command will call in parallel processes, before it calls them, once.

numba compiles a kernel on its first call, in the calling process, one kernel at a
time: a first `cuzk prove` on a fresh 2-core machine spent 45 s so, on one core,
although nothing it compiles depends on anything else it compiles. A command that
knows its kernels hands them here first:

* a kernel list names them: per kernel the module (a generated module by its base
  name, `bn254_msm`, since its file name carries a hash of its source; any other by
  its import name), the function, numba's argument types, the seconds it took to
  compile when the list was recorded (the longest are handed out first) and the
  smallest problem size (log2 of the domain) whose run called it: some kernels serve
  only larger inputs (an MSM switches to batched affine additions past a few
  thousand points), so a command proving a small circuit leaves them out;
* `ensure` forks one worker process per core (at most one per kernel); each takes
  the next kernel off a shared queue and compiles it into numba's disk cache, while
  the command waits and counts them ("12/28 kernels"); then the command runs and
  every call loads its kernel from the cache (numba looks there on a first call);
* a stamp file per list (named by a digest of the list, numba's version, the CPU
  and the modules' sources) says it was done: later runs cost one `stat`.

A list that has gone stale (a kernel renamed, a signature changed) costs only
speed: what it misses compiles on first call as before, what it names in vain is
skipped. Lists are recorded from a cold run of the command (`Recorder`; the
commands' lists and the script that writes them: cuzk/cli/first_run.py).
CUZK_PRECOMPILE=0 turns this off (to measure or record the serial first run).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

from numba.core import event

from cuzk import progress

from . import compile_notice
from .codegen import cache_dir

GENERATED = re.compile(r"cuzk_jit_(\w+?)_[0-9a-f]{16}")
MAX_WORKERS = 16  # ~0.5 GB each while compiling


@dataclass(frozen=True)
class Kernel:
    module: str  # generated module's base name (bn254_msm) or an import name (cuzk.formats.zkey)
    function: str
    signature: str  # numba's argument types, as numba prints them: (Array(uint64, 2, 'C', False, aligned=True), int64)
    seconds: float = 0.0
    since: int = 0  # the smallest log2 problem size of a recorded run that compiled it

    def line(self) -> str:
        return f"{self.seconds:.2f}\t{self.since}\t{self.module}\t{self.function}\t{self.signature}"


def parse(text: str) -> list[Kernel]:
    """A kernel list's text (`Kernel.line` per line; # comments and blank lines ignored)."""
    out = []
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        seconds, since, module, function, signature = raw.split("\t")
        out.append(Kernel(module, function, signature, float(seconds), int(since)))
    return out


def module_key(module_name: str) -> str:
    m = GENERATED.fullmatch(module_name)
    return m.group(1) if m else module_name


def group_name(module: str) -> str:
    """How progress names a kernel's module: "bls12_381 msm", "formats.zkey"."""
    m = re.fullmatch(r"(bls12_381|bn254)_(\w+)", module)
    return f"{m.group(1)} {m.group(2)}" if m else module.removeprefix("cuzk.")


def enabled() -> bool:
    return os.environ.get("CUZK_PRECOMPILE", "1") != "0"


def workers_available() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# ---- recording ---------------------------------------------------------------------------


class Recorder:
    """Collects the kernels compiled while it listens (the outermost compile of each; what a
    kernel's compile compiles inside it comes with it), in the order they were compiled."""

    def __init__(self):
        self.kernels: list[Kernel] = []
        self._stack: list[float] = []
        self._lock = threading.Lock()

    def __enter__(self) -> "Recorder":
        self._listener = _RecordingListener(self)
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> None:
        event.unregister("numba:compile", self._listener)


class _RecordingListener(event.Listener):
    def __init__(self, recorder: Recorder):
        self.r = recorder

    def on_start(self, ev) -> None:
        with self.r._lock:
            self.r._stack.append(time.perf_counter())

    def on_end(self, ev) -> None:
        with self.r._lock:
            t0 = self.r._stack.pop()
            if self.r._stack:
                return
            data = ev.data if isinstance(ev.data, dict) else {}
            func = getattr(data.get("dispatcher"), "py_func", None)
            if func is None:
                return
            self.r.kernels.append(Kernel(module_key(func.__module__), func.__qualname__, str(data.get("args")),
                                         round(time.perf_counter() - t0, 2)))


# ---- compiling ---------------------------------------------------------------------------


def _signature_types(text: str):
    from numba.core import types

    names = {k: getattr(types, k) for k in dir(types) if not k.startswith("_")}
    return eval(text, {"__builtins__": {}}, names)  # noqa: S307 -- numba's own type reprs, from our lists


def resolve(kernels: list[Kernel], modules: list[ModuleType]) -> list[tuple[Kernel, object, tuple]]:
    """(kernel, dispatcher, argument types) for each kernel whose module and function exist."""
    by_key = {module_key(m.__name__): m for m in modules}
    out = []
    for k in kernels:
        dispatcher = getattr(by_key.get(k.module), k.function, None)
        if dispatcher is None or not hasattr(dispatcher, "compile"):
            continue
        try:
            out.append((k, dispatcher, _signature_types(k.signature)))
        except Exception:  # a type this numba does not know: left to the first call
            continue
    return out


def stamp_path(label: str, kernels: list[Kernel], modules: list[ModuleType]) -> Path:
    """The file that says `label`'s list was compiled into this cache, for these sources and this machine."""
    import llvmlite.binding as llvm
    import numba

    h = hashlib.sha256()
    for part in ("".join(k.line() for k in kernels), numba.__version__, sys.version, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten(),
                 os.environ.get("NUMBA_CACHE_DIR", "")):
        h.update(part.encode() + b"\0")
    for m in sorted(modules, key=lambda m: m.__name__):
        h.update(m.__name__.encode())
        if not GENERATED.fullmatch(m.__name__):  # a generated module's name holds its source's hash
            st = os.stat(m.__file__)
            h.update(f"{m.__file__}:{st.st_mtime_ns}:{st.st_size}".encode())
    return cache_dir() / "compiled-lists" / f"{label}-{h.hexdigest()[:16]}"


@dataclass
class Outcome:
    compiled: int
    failed: int
    workers: int
    seconds: float


def ensure(label: str, text: str, modules: list[ModuleType], what: str = "", size: int | None = None,
           alongside: tuple[str, Callable[[], None]] | None = None) -> Outcome | None:
    """Compile the kernels of list `text` (those recorded at sizes up to `size`, if given) into numba's
    cache unless this was done (its stamp exists); None when nothing was to be done. `modules`: the
    modules the list's kernels live in (the caller builds or imports them: the command needs them
    anyway). `what` names the command in the progress line ("cuzk prove"). `alongside`: (what, work)
    of the command's own that runs in a thread of this process meanwhile, started once the workers
    have forked (the CUDA backend's NVRTC compiles: threads, most of their time outside the GIL); an
    error in it is left to the command's own first use, which meets it again."""
    if not enabled():
        return None
    kernels = [k for k in parse(text) if size is None or k.since <= size]
    stamp = stamp_path(label, kernels, modules)
    if stamp.exists():
        return None
    tasks = sorted(resolve(kernels, modules), key=lambda t: -t[0].seconds)
    if not tasks:
        return None
    t0 = time.monotonic()
    n = min(len(tasks), workers_available(), MAX_WORKERS)
    # forking is safe only while no other thread runs: one holding numba's compiler lock (or any
    # other) at the fork would hold it forever in the child. Else compile here, one at a time.
    if not ("fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1):
        n = 1
    also = f", and {alongside[0]} beside them" if alongside else ""
    progress.notice(f"cuzk: compiling the CPU kernels{' of ' + what if what else ''} on {n} core{'s' if n > 1 else ''}"
                    f"{also}, once (later runs load them from {cache_dir()})")
    status = progress.Status("cuzk: compiling CPU kernels", total=len(tasks), unit="kernels", every_s=5.0)
    side = _Alongside(alongside)
    try:
        failed = _in_workers(tasks, n, status, side.start) if n > 1 else _here(tasks, status, side.start)
        side.wait(status, len(tasks))
    finally:
        status.close()
    if not failed:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    return Outcome(len(tasks) - failed, failed, n, time.monotonic() - t0)


def _compile(task) -> bool:
    _, dispatcher, sig = task
    try:
        dispatcher.compile(sig)
        return True
    except Exception:  # noqa: BLE001 -- the command's own first call compiles it again and reports
        return False


class _Alongside:
    """ensure's `alongside` work in a thread of its own; an error is dropped (see ensure)."""

    def __init__(self, alongside: tuple[str, Callable[[], None]] | None):
        self.what, self.work = alongside or ("", None)
        self.thread: threading.Thread | None = None

    def _run(self) -> None:
        try:
            self.work()
        except Exception:  # noqa: BLE001 -- met again, and reported, at the command's first use
            pass

    def start(self) -> None:
        if self.work is not None:
            self.thread = threading.Thread(target=self._run, name="cuzk-precompile-alongside", daemon=True)
            self.thread.start()

    def wait(self, status, done: int) -> None:
        """Join the thread, the counter saying what is still being waited for."""
        while self.thread is not None and self.thread.is_alive():
            status.update(done, f"waiting for {self.what}")
            self.thread.join(1.0)


def _here(tasks, status, start_alongside=lambda: None) -> int:
    """One at a time in this process (one core, or threads running): the same counter, and a
    "still going" line while a single kernel takes long."""
    start_alongside()
    failed = 0
    with compile_notice.muted(), progress.ticking("cuzk: compiling CPU kernels", every_s=5.0, first_s=5.0):
        for i, task in enumerate(tasks):
            failed += not _compile(task)
            status.update(i + 1, group_name(task[0].module))
    return failed


def _in_workers(tasks, n: int, status, start_alongside=lambda: None) -> int:
    """Forked workers pull task indices from a queue (the list is theirs by inheritance, nothing
    is pickled but numbers) and report (index, ok) back; the parent counts."""
    ctx = multiprocessing.get_context("fork")
    todo, done = ctx.SimpleQueue(), ctx.SimpleQueue()
    for i in range(len(tasks)):
        todo.put(i)
    for _ in range(n):
        todo.put(None)

    def work():
        compile_notice.forget()  # the parent announces; a lock its ticker held must not be waited on
        while (i := todo.get()) is not None:
            done.put((i, _compile(tasks[i])))
        sys.stdout.flush()
        os._exit(0)

    procs = [ctx.Process(target=work, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    start_alongside()  # threads only now: none may run at a fork
    failed = finished = 0
    detail, shown = group_name(tasks[0][0].module), time.monotonic()
    try:
        while finished < len(tasks):
            if done.empty() and not any(p.is_alive() for p in procs):
                failed += len(tasks) - finished  # a worker died (killed for memory?): left to first calls
                break
            if done.empty():
                time.sleep(0.05)
                if time.monotonic() - shown >= 1.0:  # a long kernel: the counter still ticks (every_s apart)
                    shown = time.monotonic()
                    status.update(finished, detail)
                continue
            i, ok = done.get()
            finished += 1
            failed += not ok
            detail, shown = group_name(tasks[i][0].module), time.monotonic()
            status.update(finished, detail)
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
    return failed
