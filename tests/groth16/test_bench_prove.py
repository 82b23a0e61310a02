"""`cuzk bench prove` on the CPU: a real setup, verified proofs, per-phase timings in the JSON."""

import json

from cuzk.cli.main import main


def test_bench_prove_cpu_verifies_and_reports_phases(tmp_path, capsys):
    out = tmp_path / "prove.json"
    assert main(["bench", "prove", "--backend", "cpu", "--sizes", "12", "--repeat", "1", "--verify-up-to", "12",
                 "--json", str(out)]) == 0
    (rec,) = json.loads(out.read_text())
    assert rec["verified"] is True and rec["rows"] > 1 << 12
    assert {"msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble", "total"} <= set(rec["phases_ms"])
    assert "verified" in capsys.readouterr().out


def test_bench_prove_rejects_bad_sizes(capsys):
    import pytest

    with pytest.raises(SystemExit) as e:
        main(["bench", "prove", "--sizes", "5,40"])
    assert e.value.code == 2
    assert "between 6 and 27" in capsys.readouterr().err


def test_bench_prove_a_workload_kind_proves_its_partition(tmp_path, capsys):
    """Filecoin's 2 KiB WindowPoSt circuit, from a Curio-shaped request over random sectors."""
    out = tmp_path / "prove.json"
    assert main(["bench", "prove", "--backend", "cpu", "--kind", "window-post", "--sector-size", "2KiB",
                 "--repeat", "1", "--json", str(out)]) == 0
    (rec,) = json.loads(out.read_text())
    from cuzk.circuits.filecoin.post.circuit import counts
    from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for

    n = counts(post_config_for("window", SECTOR_SIZES["2KiB"]))
    assert rec["circuit"] == "window-post-2KiB"
    assert rec["rows"] == n.constraints + n.inputs  # the kind's circuit, not SHA-256
    assert rec["verified"] is True
    assert "window-post-2KiB (2 sector(s))" in capsys.readouterr().out


def test_a_budget_too_small_is_reported_and_the_next_budget_still_runs(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["bench", "prove", "--backend", "cpu", "--sizes", "10", "--repeat", "1", "--verify-up-to", "10",
                 "--device-memory", "1MiB,card", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "REFUSED: a device-memory budget of 1.00 MiB is too small" in text and "Traceback" not in text
    refused, ran = json.loads(out.read_text())
    assert "too small" in refused["out_of_memory"] and refused["device_memory_limit"] == 1 << 20
    assert ran["verified"] is True  # the proof the verifier accepts came after the refusal
