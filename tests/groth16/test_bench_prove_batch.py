"""`cuzk bench prove --batch K` on the CPU: K jobs per prove_batch, ms per proof, `batch` in the JSON."""

import json

import pytest

from cuzk.cli.main import main


def test_bench_prove_batch_verifies_and_records_the_batch(tmp_path, capsys):
    out = tmp_path / "prove.json"
    assert main(["bench", "prove", "--backend", "cpu", "--sizes", "10", "--repeat", "1", "--batch", "3",
                 "--verify-up-to", "10", "--json", str(out)]) == 0
    (rec,) = json.loads(out.read_text())
    assert rec["batch"] == 3 and rec["verified"] is True
    assert rec["median_ms"] > 0 and {"stage_wait", "device_wait", "msm_h", "total"} <= set(rec["phases_ms"])
    text = capsys.readouterr().out
    assert "batch 3" in text and "ms/proof" in text and "verified" in text


def test_bench_prove_batch_defaults_to_one_and_rejects_zero(tmp_path, capsys):
    out = tmp_path / "prove.json"
    assert main(["bench", "prove", "--backend", "cpu", "--sizes", "8", "--repeat", "1", "--verify-up-to", "8",
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["batch"] == 1
    for bad in ("0", "3,0", "x"):
        with pytest.raises(SystemExit) as e:
            main(["bench", "prove", "--batch", bad])
        assert e.value.code == 2
        assert "--batch" in capsys.readouterr().err


def test_bench_prove_several_batch_sizes_share_one_circuit(tmp_path, capsys):
    out = tmp_path / "prove.json"
    assert main(["bench", "prove", "--backend", "cpu", "--sizes", "8", "--repeat", "1", "--batch", "1,2",
                 "--verify-up-to", "8", "--json", str(out)]) == 0
    recs = json.loads(out.read_text())
    assert [r["batch"] for r in recs] == [1, 2] and all(r["verified"] for r in recs)
    assert capsys.readouterr().out.count("2^8:") == 1  # the circuit, witness and key made once
