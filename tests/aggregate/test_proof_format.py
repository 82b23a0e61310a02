"""The aggregate parser under mutation (like tests/reliability/test_fuzz_parsers.py):
seeds from the project's own writer parse back to the same bytes; bit flips,
truncations, insertions and boundary integers either parse or raise the
project's own error type (fuzz/targets.py: anything else is a defect)."""

from __future__ import annotations

import sys
from pathlib import Path

from byte_mutations import mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fuzz.aggregate_target import aggregate_proof, seeds  # noqa: E402
from fuzz.targets import TARGETS, run_one  # noqa: E402

from cuzk.aggregate import proof_format  # noqa: E402

SMOKE = settings(max_examples=120, derandomize=True, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))
BOUNDARY = [0, 1, 2, 3, 4, 5, 8, 2**24, 2**24 + 1, 2**31, 2**32 - 1]


def test_seeds_round_trip():
    for data in seeds():
        parsed = aggregate_proof(data)
        assert len(parsed) == 1 and proof_format.to_bytes(parsed[0]) == data
    assert "aggregate_proof" in TARGETS


@st.composite
def mutated(draw):
    def own(draw, data, op, pos) -> bool:
        if op == "set" and data:
            data[pos] = draw(st.sampled_from([0, 0x20, 0x40, 0x80, 0xC0, 0xE0, 0xFF]))
        elif op == "nproofs":  # the u32 after com_ab, com_c, ip_ab, agg_c
            at = draw(st.sampled_from([5 * 192 + 64, 5 * 288 + 48]))
            data[at:at + 4] = draw(st.sampled_from(BOUNDARY)).to_bytes(4, "little")
        else:
            return False
        return True

    return mutate(draw, seeds(), 3, ["flip", "set", "nproofs", "truncate", "insert", "delete"], own,
                  insert_max=16, cut_max=64)


@SMOKE
@given(data=mutated())
def test_mutations_raise_only_our_errors(data):
    run_one("aggregate_proof", data)
