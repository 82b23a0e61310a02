"""`cuzk circuit info --kind` (counts without building; --check builds and checks), `cuzk circuit
compile --kind`, `cuzk bench gen-vanilla` (and reading its files back), `cuzk bench synth --kind`
end to end."""

import base64
import json
import os
import subprocess
import sys

import pytest

from cuzk.bench.circuit_inputs import read_inputs_file
from cuzk.circuits import get_kind
from cuzk.circuits.filecoin import post_kind
from cuzk.circuits.filecoin.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.cli.main import main
from cuzk.engine.catalog import synthetic
from cuzk.formats.filecoin.post_request import sample_request
from cuzk.formats.filecoin.request_json import from_json, to_json
from cuzk.formats.vanilla import generate_vanilla


def test_circuit_info_kind_reports_fractions_and_satisfaction(capsys):
    assert main(["circuit", "info", "--kind", "snap-like", "--preset", "tiny", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "snap-like-tiny" in out and "a model" in out
    assert "aux values: zero" in out and "satisfied: yes" in out


def test_circuit_info_unknown_kind_lists_the_kinds(capsys):
    assert main(["circuit", "info", "--kind", "no-such-kind"]) == 2
    err = capsys.readouterr().err
    assert "window-post, winning-post with --sector-size" in err and "porep-c2-like, snap-like" in err


def test_gen_vanilla_post_writes_a_json_request_that_checks(tmp_path, capsys):
    """For Filecoin's PoSt kinds gen-vanilla writes the request as Curio sends it (JSON); `cuzk circuit
    check` derives its challenges and checks every sector against the real circuit."""
    path = tmp_path / "w.json"
    assert main(["bench", "gen-vanilla", "--kind", "window-post", "--out", str(path), "--seed", "9"]) == 0
    cfg = post_config_for("window", SECTOR_SIZES["2KiB"])
    assert path.read_bytes() == to_json(sample_request(cfg, 9))  # 2KiB: the family's smallest preset
    fields = from_json(path.read_bytes())
    assert fields["proof_kind"] == "WINDOW_POST_PARTITION" and len(fields["vanilla_proofs"]) == 2
    assert read_inputs_file(str(path)) == [fields]  # what `cuzk bench single --vanilla` submits
    assert main(["circuit", "check", "--kind", "window-post", "--vanilla", str(path)]) == 0
    assert "satisfied: every constraint of 2 slot(s)" in capsys.readouterr().out


def test_gen_vanilla_count_writes_a_json_array(tmp_path):
    path = tmp_path / "v.json"
    assert main(["bench", "gen-vanilla", "--kind", "synthetic", "--preset", "tiny", "--count", "2",
                 "--seed", "5", "-o", str(path)]) == 0
    items = [base64.b64decode(x) for x in json.loads(path.read_text())]
    assert items == [synthetic.generate_vanilla("tiny", s) for s in (5, 6)]
    assert read_inputs_file(str(path)) == [{"vanilla_proof": x} for x in items]
    post = tmp_path / "p.json"
    assert main(["bench", "gen-vanilla", "--kind", "winning-post", "--preset", "2KiB", "--count", "2",
                 "--seed", "5", "-o", str(post)]) == 0
    cfg = post_config_for("winning", SECTOR_SIZES["2KiB"])
    assert read_inputs_file(str(post)) == [sample_request(cfg, s) for s in (5, 6)]


def test_gen_vanilla_then_info_with_the_file(tmp_path, capsys):
    path = tmp_path / "v.bin"
    assert main(["bench", "gen-vanilla", "--kind", "snap-like", "--preset", "tiny", "--out", str(path),
                 "--seed", "9"]) == 0
    data = path.read_bytes()
    assert data == generate_vanilla(get_kind("snap-like"), "tiny", 9)
    assert read_inputs_file(str(path)) == [{"vanilla_proof": data}]
    assert main(["circuit", "info", "--kind", "snap-like", "--preset", "tiny", "--vanilla", str(path)]) == 0
    assert "satisfied: yes" in capsys.readouterr().out


def test_bench_synth_kind_writes_json(tmp_path, capsys):
    path = tmp_path / "synth.json"
    assert main(["bench", "synth", "--kind", "snap-like", "--preset", "tiny", "--repeat", "1",
                 "--json", str(path)]) == 0
    (rec,) = json.loads(path.read_text())
    assert rec["circuit"] == "snap-like-tiny" and rec["satisfied"] and rec["counts_match"]
    assert rec["constraints"] == get_kind("snap-like").counts("tiny").constraints
    assert abs(rec["zero_fraction"] + rec["one_fraction"] + rec["other_fraction"] - 1) < 1e-9
    assert rec["vars"] == rec["aux"] + rec["inputs"] and rec["peak_rss_bytes"] > 0
    assert {"poseidon", "assemble w"} <= set(rec["phases"]) and rec["core_s"] == rec["witness_s"] * rec["threads"]
    out = capsys.readouterr().out
    assert "c/CPU-s" in out and "where the time goes" in out and "per sector (16 partitions)" in out


def test_bench_synth_witness_only_reports_phases(tmp_path, capsys):
    path = tmp_path / "synth.json"
    assert main(["bench", "synth", "--kind", "porep-c2-like", "--preset", "tiny", "--repeat", "1",
                 "--witness-only", "--json", str(path)]) == 0
    (rec,) = json.loads(path.read_text())
    counts = get_kind("porep-c2-like").counts("tiny")
    assert rec["constraints"] == counts.constraints and rec["vars"] == counts.aux + counts.inputs
    assert "satisfied" not in rec and rec["partitions"] == 10
    assert {"bit tapes", "poseidon", "stamp", "assemble w"} <= set(rec["phases"])
    assert all(v["calls"] >= 1 and v["cpu_s"] >= 0 for v in rec["phases"].values())
    assert rec["rate_cpu"] > 0 and rec["rate_core"] > 0
    assert "record" not in capsys.readouterr().out.split("where the time goes")[-1]


def _fields(out: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line and not line.startswith(" "))


@pytest.mark.parametrize("preset", ["tiny", "small"])
@pytest.mark.parametrize("name", ["porep-c2-like", "snap-like"])
def test_circuit_info_kind_counts_equal_the_built_circuit(name, preset, capsys):
    assert main(["circuit", "info", "--kind", name, "--preset", preset]) == 0
    f = _fields(capsys.readouterr().out)
    cc = get_kind(name).compile(preset)  # built (or loaded) independently of the counts
    assert int(f["constraints"]) == cc.num_constraints
    assert int(f["aux variables"]) == cc.num_aux
    assert int(f["public inputs"]) == cc.num_inputs - 1
    assert int(f["rows"].split()[0]) == cc.num_rows
    assert f["domain"] == f"2^{(cc.num_rows - 1).bit_length()}"
    a, b, c = (int(x.split()[1]) for x in f["nonzeros (from the templates)"].split(", "))
    # raw template terms: the built circuit merges a stamped row's repeated columns, never adds terms
    for est, m in zip((a, b, c), cc.matrices):
        assert m.nnz <= est <= m.nnz * 1.01
    size = int(f["estimated compiled size"].split()[0])
    assert cc.nbytes <= size <= cc.nbytes * 1.01
    assert "satisfied" not in f


def test_circuit_info_32g_answers_without_building(tmp_path):
    env = dict(os.environ, CUZK_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "cuzk.cli.main", "circuit", "info", "--kind", "porep-c2-like",
                           "--preset", "32g"], env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    f = _fields(proc.stdout)
    counts = get_kind("porep-c2-like").counts("32g")
    assert int(f["constraints"]) == counts.constraints > 100_000_000
    assert f["domain"] == "2^27" and int(f["partitions"]) == 10
    assert "estimated peak memory to compile" in f
    circuits = tmp_path / "cache" / "circuits"
    assert not circuits.exists() or not any(circuits.iterdir())  # nothing compiled, nothing cached


def test_circuit_info_check_flags_need_kind(capsys):
    assert main(["circuit", "info", "--pce", "x.pce", "--check"]) == 2
    assert "need --kind" in capsys.readouterr().err


def test_circuit_compile_kind_writes_a_loadable_copy(tmp_path, capsys):
    from cuzk.r1cs import load_compiled

    out = tmp_path / "c.pce"
    assert main(["circuit", "compile", "--kind", "snap-like", "--preset", "tiny", "--out", str(out)]) == 0
    assert "peak memory" in capsys.readouterr().out
    assert load_compiled(out, verify=True).id == get_kind("snap-like").compile("tiny").id
    post = tmp_path / "w.pce"  # Filecoin's circuit, by sector size
    assert main(["circuit", "compile", "--kind", "winning-post", "--sector-size", "2KiB", "--out", str(post)]) == 0
    assert "winning-post-2KiB: " in capsys.readouterr().out
    cfg = post_config_for("winning", SECTOR_SIZES["2KiB"])
    assert load_compiled(post, verify=True).id == post_kind.compiled(cfg).id
