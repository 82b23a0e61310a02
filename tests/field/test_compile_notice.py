"""The first-run compile notice listens to numba's real compile events."""

import io

import numba

from cuzk.field.compile_notice import CompileNotice
from numba.core import event


def test_notice_on_compile_and_periodic_progress_then_silence_on_cache_hits():
    ticks = iter(range(0, 1000, 3))  # each clock read advances 3 "seconds"
    out = io.StringIO()
    notice = CompileNotice("/some/cache", stream=out, interval_s=5.0, clock=lambda: next(ticks))

    @numba.njit
    def inner(x):
        return x * 3 + 1

    @numba.njit
    def outer(x):
        return inner(x) - 1

    with event.install_listener("numba:compile", notice):
        assert outer(4) == 12  # compiles outer, and inner inside it
        assert inner(5.0) == 16.0  # a second signature: another compile
        before = out.getvalue()
        assert outer(7) == 21  # compiled already: no event, nothing printed
    lines = out.getvalue().splitlines()
    assert out.getvalue() == before
    assert lines[0].startswith("cuzk: compiling CPU kernels on first use") and "/some/cache" in lines[0]
    assert notice.compiled == 2  # outer (with inner nested in it) and inner(float)
    assert notice.depth == 0
    assert any(line.startswith("cuzk: still compiling kernels (") for line in lines[1:])


def test_nothing_without_a_compile():
    out = io.StringIO()
    notice = CompileNotice("/c", stream=out)

    @numba.njit
    def f(x):
        return x + 1

    f(1)  # compiled before listening
    with event.install_listener("numba:compile", notice):
        f(2)
    assert out.getvalue() == "" and notice.compiled == 0


def test_wait_notice_only_for_long_waits(monkeypatch, capsys):
    import time

    from cuzk.field import compile_notice

    monkeypatch.setenv("CUZK_PROGRESS", "1")
    quick = compile_notice.after(60, "cuzk: slow thing")
    quick.cancel()  # done before the delay: nothing printed
    slow = compile_notice.after(0.05, "cuzk: slow thing")
    slow.join(2)
    time.sleep(0.3)
    assert capsys.readouterr().err.count("cuzk: slow thing") == 1
    monkeypatch.setenv("CUZK_PROGRESS", "0")
    silent = compile_notice.after(0.0, "cuzk: never")
    assert not silent.is_alive()
    assert "never" not in capsys.readouterr().err
