"""CI smoke budget of the post_vanilla fuzz target (fuzz/post_vanilla_target.py), in the
manner of tests/reliability/test_fuzz_parsers.py: the seeds parse, hypothesis-driven
mutations of them raise nothing but the project's own errors, and the atheris harness runs."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

from byte_mutations import mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fuzz import post_vanilla_target as T  # noqa: E402
from fuzz.targets import TARGETS, run_one, write_corpus  # noqa: E402

SMOKE = settings(max_examples=150, derandomize=True, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))
BOUNDARY = [0, 1, 2, 7, 8, 9, 10, 65, 66, 67, 2**31, 2**32 - 1, 2**32, 2**63, 2**64 - 1]


def test_seeds_parse():
    seeds = TARGETS["post_vanilla"].seeds()
    assert len(seeds) >= 3
    assert all(run_one("post_vanilla", s) for s in seeds)
    if T.FIXTURE.is_file():
        assert seeds[0] == T.FIXTURE.read_bytes()


@st.composite
def mutated(draw) -> bytes:
    def own(draw, data, op, pos) -> bool:
        if op not in ("u64", "u32"):
            return False
        n = len(data)
        fmt = "<Q" if op == "u64" else "<I"
        value = draw(st.sampled_from(BOUNDARY + [n, n // 32])) % (1 << (8 * struct.calcsize(fmt)))
        data[pos:pos + struct.calcsize(fmt)] = struct.pack(fmt, value)
        return True

    return mutate(draw, TARGETS["post_vanilla"].seeds(), 3,
                  ["flip", "u64", "u32", "truncate", "insert", "delete", "dup"], own, insert_max=40, cut_max=300)


@SMOKE
@given(data=mutated())
def test_mutations_raise_only_our_errors(data):
    run_one("post_vanilla", data)  # anything but CuzkError escaping is a defect


def test_atheris_harness_runs(tmp_path):
    corpus = write_corpus("post_vanilla", tmp_path / "corpus")
    out = subprocess.run([sys.executable, str(ROOT / "fuzz" / "fuzz_post_vanilla.py"), "-runs=300", "-seed=1",
                          f"-artifact_prefix={tmp_path}/", str(corpus)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    assert "Done 300 runs" in out.stderr
    assert not list(tmp_path.glob("crash-*"))
