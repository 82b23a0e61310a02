"""cuzk.progress: one counter, whole lines where no terminal is (issue 42: under `make run | tee log` the
counter and the notices must be plain lines, never carriage returns, never glued to each other)."""

from __future__ import annotations

import io
import re

import pytest

from cuzk import progress


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def progress_on(monkeypatch):
    monkeypatch.setenv("CUZK_PROGRESS", "1")  # the tests' conftest turns it off


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_not_a_terminal_one_line_per_due_update_single_counter():
    out = io.StringIO()
    clock = Clock()
    st = progress.Status("demo", 6, every_s=10.0, stream=out, clock=clock)
    for t, done in ((0, 0), (0.5, 0), (1, 0), (13, 0), (14, 3), (14.5, 3), (15, 6)):
        clock.t = t
        st.update(done, "x")
    st.close()
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    # the first update, the one 12 s later (still 0 done: a long wait says it is still going), 3/6, 6/6
    assert [re.match(r"demo: (\d)/6 done", x).group(1) for x in lines] == ["0", "0", "3", "6"], lines
    assert all(re.fullmatch(r"demo: \d/6 done, x, \d+\.\d s", x) for x in lines), lines


def test_off_with_cuzk_progress_0_where_no_terminal_is(monkeypatch):
    monkeypatch.setenv("CUZK_PROGRESS", "0")
    out = io.StringIO()
    progress.notice("cuzk: compiling", out)
    st = progress.Status("demo", 2, stream=out)
    st.update(1)
    assert out.getvalue() == ""


def test_at_a_terminal_the_counter_is_redrawn_in_place_and_a_notice_takes_its_own_line():
    tty = Tty()
    clock = Clock()
    st = progress.Status("demo", 6, stream=tty, clock=clock)
    clock.t = 1.0
    st.update(1)
    progress.notice("cuzk daemon: compiling CPU kernels: 3 compiled, 5 s (bls12_381 msm)", tty)
    clock.t = 2.0
    st.update(2)
    st.close()
    text = tty.getvalue()
    # the notice clears the status line, takes a whole line, and the status line is drawn again after it
    assert text == (progress.CLEAR + "demo: 1/6 done, 1.0 s"
                    + progress.CLEAR + "cuzk daemon: compiling CPU kernels: 3 compiled, 5 s (bls12_381 msm)\n"
                    + "demo: 1/6 done, 1.0 s"
                    + progress.CLEAR + "demo: 2/6 done, 2.0 s\n")
    progress.notice("after", tty)  # no status line any more: a plain line
    assert tty.getvalue().endswith("demo: 2/6 done, 2.0 s\nafter\n")


def test_ticking_speaks_only_when_nothing_else_did(capsys):
    import time

    with progress.ticking("  loading x", every_s=0.2, first_s=0.2):
        time.sleep(0.9)
    err = capsys.readouterr().err.splitlines()
    assert err and all(re.fullmatch(r"  loading x: still going, \d+ s", x) for x in err), err
    with progress.ticking("  loading y", every_s=0.4, first_s=0.4):
        for _ in range(8):  # another line every 0.1 s: the ticker has nothing to add
            progress.notice("cuzk daemon: compiling")
            time.sleep(0.1)
    assert "loading y" not in capsys.readouterr().err
