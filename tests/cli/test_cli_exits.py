"""The `cuzk` command's exit statuses: a group without its subcommand is a usage error (2), and
output into a pipe that closes early ends quietly (141, no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.cli.main import EXIT_BROKEN_PIPE, main

BITS_MIX = Path(__file__).resolve().parents[2] / "examples" / "bits_mix"  # the repository's example


@pytest.mark.parametrize("argv", [[], ["bench"], ["params"]])
def test_a_group_without_its_subcommand_prints_help_and_exits_2(argv, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"usage: cuzk {' '.join(argv)}".rstrip() + " [-h]"), err


def commands():
    return [["daemon", "--print-default-config"],
            ["circuit", "info", "--r1cs", str(BITS_MIX / "bits_mix.r1cs"), "--wtns", str(BITS_MIX / "witness.wtns")]]


def env(unbuffered: bool) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return {**e, "PYTHONUNBUFFERED": "1"} if unbuffered else e


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("argv", commands(), ids=lambda a: " ".join(a[:2]))
def test_output_into_a_closed_pipe_ends_quietly(argv, unbuffered):
    """A reader that has gone before the first line (`| head -0`): every write fails with EPIPE."""
    r, w = os.pipe()
    os.close(r)
    try:
        res = subprocess.run([sys.executable, "-m", "cuzk", *argv], stdout=w, stderr=subprocess.PIPE, text=True,
                             env=env(unbuffered), timeout=300)
    finally:
        os.close(w)
    assert res.stderr == "" and res.returncode == EXIT_BROKEN_PIPE, res.stderr


@pytest.mark.parametrize("argv", commands(), ids=lambda a: " ".join(a[:2]))
def test_a_reader_that_closes_after_one_line(argv):
    """`cuzk ... | head -1`: whether or not a write comes after the close, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "cuzk", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env(True))
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(300) in (0, EXIT_BROKEN_PIPE)
    assert first and err == "", err
