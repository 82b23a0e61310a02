"""A PoRep partition's sizes are kept on disk beside its compiled circuit (partition_cache.kept_counts), so a
process that builds the circuit registry (the daemon at each start, the demo) does not record the SHA-256
templates again; what it reads back is what counting gives, and a file it cannot use is counted anew."""

from __future__ import annotations

import dataclasses
import json

from cuzk.circuits.filecoin.porep import stamped as porep_circuit
from cuzk.circuits.filecoin.porep import provable as porep_kind
from cuzk.circuits.filecoin.porep.config import porep_config_for
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES


def test_counts_are_kept_and_a_bad_file_is_counted_again(tmp_path, monkeypatch):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path))
    cfg = porep_config_for(SECTOR_SIZES["2KiB"])
    counted = porep_circuit.counts(cfg)
    assert porep_kind.counts(cfg) == counted
    (kept,) = (tmp_path / "circuits").glob("porep-2KiB-v*.counts.json")
    assert json.loads(kept.read_text()) == list(dataclasses.astuple(counted))

    kept.write_text("[1, 2, 3]")  # what the file says is what a later process takes
    assert dataclasses.astuple(porep_kind.counts(cfg)) == (1, 2, 3)
    for bad in ("not json", "[1, -2, 3]", "{}", "[]", "[1.5, 2, 3]"):
        kept.write_text(bad)
        assert porep_kind.counts(cfg) == counted, bad
        assert json.loads(kept.read_text()) == list(dataclasses.astuple(counted)), bad
