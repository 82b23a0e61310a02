"""A first `cuzk prove` on a fresh machine compiles its kernels on every core before it starts (issue 42
item 3): cuzk/cli/first_run.py hands the command's kernel list to cuzk/field/precompile.py, which
compiles it in forked workers into numba's cache; the command then loads every kernel from there.

Checked from outside, in processes with empty caches (CUZK_CACHE_DIR and NUMBA_CACHE_DIR in tmp):
numba's compile notice (cuzk.field.compile_notice) prints when a kernel compiles in the command's
own process, so a first run must show the parallel compile's lines and never that notice, a second
run no compile line at all; the proof is checked by snarkjs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "bits_mix"
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
LAZY = "compiling CPU kernels on first use"  # compile_notice: a kernel compiled in the command's process


def fresh_env(tmp_path: Path, **extra) -> dict:
    return {**os.environ, "CUZK_CACHE_DIR": str(tmp_path / "cuzk-cache"),
            "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "CUZK_PROGRESS": "1", **extra}


@pytest.fixture(scope="module")
def bits_mix_key(tmp_path_factory):
    d = tmp_path_factory.mktemp("key")
    zkey = d / "bits_mix.zkey"
    subprocess.run([sys.executable, "-m", "cuzk", "setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--zkey",
                    str(zkey), "--vk-json", str(d / "vk.json"), "--backend", "cpu"],
                   check=True, capture_output=True, env={**os.environ, "CUZK_PROGRESS": "0"}, timeout=900)
    return zkey, d / "vk.json"


def test_a_first_prove_compiles_its_list_in_workers_then_nothing_itself(tmp_path, bits_mix_key):
    zkey, vk = bits_mix_key
    cmd = [sys.executable, "-m", "cuzk", "prove", "--zkey", str(zkey), "--r1cs", str(EXAMPLE / "bits_mix.r1cs"),
           "--wtns", str(EXAMPLE / "witness.wtns"), "--proof", str(tmp_path / "proof.json"),
           "--public", str(tmp_path / "public.json"), "--backend", "cpu"]
    env = fresh_env(tmp_path)
    first, second = (subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900) for _ in range(2))
    assert first.returncode == 0, first.stderr
    assert "cuzk: compiling the CPU kernels of cuzk prove on" in first.stderr, first.stderr
    assert LAZY not in first.stderr, first.stderr  # the list covers everything the command calls
    assert "(compile " in first.stderr  # the timing line reports compiling apart from reading
    assert second.returncode == 0, second.stderr
    assert "cuzk prove:" in second.stderr and "compiling" not in second.stderr, second.stderr
    if SNARKJS.is_file():
        res = subprocess.run([str(SNARKJS), "groth16", "verify", str(vk), str(tmp_path / "public.json"),
                              str(tmp_path / "proof.json")], capture_output=True, text=True, timeout=300)
        assert "OK!" in res.stdout, res.stdout + res.stderr


@pytest.fixture(scope="module")
def bits_mix_proof(tmp_path_factory, bits_mix_key):
    """A proof of the example made with the usual caches, for `cuzk verify`."""
    zkey, vk = bits_mix_key
    d = tmp_path_factory.mktemp("proof")
    subprocess.run([sys.executable, "-m", "cuzk", "prove", "--zkey", str(zkey), "--r1cs", str(EXAMPLE / "bits_mix.r1cs"),
                    "--wtns", str(EXAMPLE / "witness.wtns"), "--proof", str(d / "proof.json"), "--public",
                    str(d / "public.json")], check=True, capture_output=True, env={**os.environ, "CUZK_PROGRESS": "0"},
                   timeout=900)
    return d


@pytest.mark.parametrize("command", ["verify", "setup", "prove without an .r1cs"])
def test_a_first_verify_setup_or_unchecked_prove_compiles_its_list_in_workers(tmp_path, bits_mix_key,
                                                                               bits_mix_proof, command):
    """Issue 59: `cuzk verify` (the pairing), `cuzk setup --r1cs` and `cuzk prove` of a key without its
    .r1cs (which verifies the proof it made) compile their kernel lists first, on every core, and
    nothing one at a time after."""
    zkey, vk = bits_mix_key
    alone = tmp_path / "alone.zkey"  # no .r1cs beside it
    alone.write_bytes(zkey.read_bytes())
    cmd = {"verify": ["verify", "--vk", str(vk), "--public", str(bits_mix_proof / "public.json"), "--proof",
                      str(bits_mix_proof / "proof.json")],
           "setup": ["setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--zkey", str(tmp_path / "new.zkey")],
           "prove without an .r1cs": ["prove", "--zkey", str(alone), "--wtns", str(EXAMPLE / "witness.wtns"),
                                      "--proof", str(tmp_path / "proof.json"), "--public",
                                      str(tmp_path / "public.json"), "--backend", "cpu"]}[command]
    res = subprocess.run([sys.executable, "-m", "cuzk", *cmd], capture_output=True, text=True,
                         env=fresh_env(tmp_path), timeout=900)
    assert res.returncode == 0, res.stderr
    what = "cuzk prove's verification" if command.startswith("prove") else f"cuzk {command}"
    assert f"cuzk: compiling the CPU kernels of {what} on" in res.stderr, res.stderr
    assert LAZY not in res.stderr, res.stderr  # the lists cover everything the command calls


PROBE = textwrap.dedent('''
    import numpy as np
    from cuzk.field import precompile
    from cuzk.field.codegen import build_module

    m = build_module("precompile_probe", "@njit(cache=True)\\ndef twice(a):\\n    return a * 2\\n\\n"
                     "@njit(cache=True)\\ndef total(a):\\n    return a.sum()\\n")
    arr = "(Array(int64, 1, 'C', False, aligned=True),)"
    text = (f"0.10\\t0\\tprecompile_probe\\ttwice\\t{arr}\\n0.20\\t0\\tprecompile_probe\\ttotal\\t{arr}\\n"
            f"9.00\\t20\\tprecompile_probe\\ttwice\\t(Array(float64, 1, 'C', False, aligned=True),)\\n"
            "0.00\\t0\\tprecompile_probe\\trenamed_since\\t(int64,)\\n0.00\\t0\\tbn254_gone\\tf\\t(int64,)\\n")
    done = precompile.ensure("probe", text, [m], size=12)
    with precompile.Recorder() as rec:
        assert m.twice(np.arange(3)).tolist() == [0, 2, 4] and m.total(np.arange(4)) == 6
    print(done.compiled, done.failed, len(rec.kernels), precompile.ensure("probe", text, [m], size=12))
''')


def test_precompile_compiles_a_list_once_and_skips_stale_entries(tmp_path):
    res = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         env=fresh_env(tmp_path, CUZK_PROGRESS="0"), timeout=300, cwd=REPO)
    assert res.returncode == 0, res.stderr
    # two kernels compiled (the stale entries and one for sizes past 2^12 left out), none when called
    # after, nothing the second time
    assert res.stdout.split() == ["2", "0", "0", "None"], res.stdout


ALONGSIDE = PROBE.split("done = precompile.ensure")[0] + textwrap.dedent('''
    import threading, time

    finished = []
    def side():  # the command's own work (a GPU's NVRTC compiles) in a thread while the workers compile
        time.sleep(0.5)
        finished.append(threading.current_thread().name)
    done = precompile.ensure("probe", text, [m], size=12, alongside=("the probe's side work", side))
    again = precompile.ensure("probe-failing", text, [m], size=12, alongside=("a failing one", lambda: 1 / 0))
    print(done.compiled, done.failed, finished, again.compiled)
''')


def test_precompile_runs_the_commands_own_work_alongside_and_waits_for_it(tmp_path):
    res = subprocess.run([sys.executable, "-c", ALONGSIDE], capture_output=True, text=True,
                         env=fresh_env(tmp_path), timeout=300, cwd=REPO)
    assert res.returncode == 0, res.stderr
    # the side work finished before ensure returned; one that fails is left to the command (its own
    # first use meets the error again), the kernels are compiled all the same
    assert res.stdout.split() == ["2", "0", "['cuzk-precompile-alongside']", "2"], res.stdout + res.stderr
    assert "and the probe's side work beside them" in res.stderr, res.stderr


def test_recorder_lines_parse_back(tmp_path):
    from cuzk.field.precompile import Kernel, parse

    k = Kernel("bn254_msm", "g1_window_xyzz", "(Array(uint64, 3, 'C', False, aligned=True), int64)", 1.25)
    assert parse("# a comment\n\n" + k.line() + "\n") == [k]
