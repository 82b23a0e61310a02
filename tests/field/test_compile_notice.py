"""The first-run compile notice listens to numba's real compile events."""

import io
import re
import threading
import time

import numba
import pytest

from cuzk.field.compile_notice import CompileNotice
from numba.core import event


@pytest.fixture(autouse=True)
def progress_on(monkeypatch):
    monkeypatch.setenv("CUZK_PROGRESS", "1")  # the tests' conftest turns it off


def test_notice_on_compile_and_periodic_progress_then_silence_on_cache_hits():
    ticks = iter(range(0, 1000, 3))  # each clock read advances 3 "seconds"
    out = io.StringIO()
    notice = CompileNotice("/some/cache", stream=out, interval_s=5.0, clock=lambda: next(ticks), ticker=False)

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
    assert lines[0].startswith("cuzk: compiling CPU kernels on first use (once") and "/some/cache" in lines[0]
    assert notice.compiled == 2  # outer (with inner nested in it) and inner(float)
    assert notice.depth == 0
    # one counter, each update a whole line of its own, no carriage returns (issue 42)
    assert "\r" not in out.getvalue() and out.getvalue().endswith("\n")
    assert lines[1:] and all(re.fullmatch(r"cuzk: compiling CPU kernels: \d+ compiled, \d+ s \(.+\)", x)
                             for x in lines[1:]), lines


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


def test_notice_names_the_kernel_group():
    from cuzk.field.compile_notice import kernel_group

    def fake(module):
        f = lambda: None  # noqa: E731
        f.__module__ = module
        return type("D", (), {"py_func": f})()

    assert kernel_group(fake("cuzk_jit_bls12_381_msm_0123456789abcdef")) == "bls12_381 msm"
    assert kernel_group(fake("cuzk_jit_bn254_neptune_poseidon_0123456789abcdef")) == "bn254 neptune_poseidon"
    assert kernel_group(fake("cuzk.r1cs.witness")) == "r1cs.witness"
    assert kernel_group(None) == "kernels"


def test_a_long_compile_still_gets_a_counter_line_and_muted_prints_nothing():
    from cuzk.field import compile_notice

    out = io.StringIO()
    notice = CompileNotice("/c", stream=out, interval_s=0.1)
    start = type("E", (), {"data": {"dispatcher": None}})()

    def tickers():  # the process's own notice may tick too, for a kernel another test compiled just before
        return {t for t in threading.enumerate() if t.name == "cuzk-compile-notice"}

    before = tickers()
    notice.on_start(start)  # a compile that runs for a while: the ticker speaks during it
    ours = tickers() - before
    assert ours
    time.sleep(0.5)
    notice.on_end(start)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("cuzk: compiling CPU kernels on first use")
    assert any("0 compiled" in x for x in lines[1:]), lines
    time.sleep(0.1)
    assert not any(t.is_alive() for t in ours)  # the ticker ended
    with compile_notice.muted():
        before = out.getvalue()
        notice.on_start(start)
        time.sleep(0.3)
        notice.on_end(start)
        assert out.getvalue() == before and notice.compiled == 2


def test_wait_notice_only_for_long_waits(monkeypatch, capsys):
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
