"""`cuzk circuit info --kind`, `cuzk bench gen-vanilla`, `cuzk bench synth --kind` end to end."""

import base64
import json

from cuzk.circuits import get_kind
from cuzk.cli.main import main
from cuzk.formats.vanilla import generate_vanilla


def test_circuit_info_kind_reports_fractions_and_satisfaction(capsys):
    assert main(["circuit", "info", "--kind", "window-post-like", "--preset", "tiny", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "window-post-like-tiny" in out and "a model" in out
    assert "aux values: zero" in out and "satisfied: yes" in out


def test_gen_vanilla_then_info_with_the_file(tmp_path, capsys):
    path = tmp_path / "v.bin"
    assert main(["bench", "gen-vanilla", "--kind", "winning-post-like", "--preset", "tiny", "--out", str(path),
                 "--seed", "9"]) == 0
    data = path.read_bytes()
    assert data == generate_vanilla(get_kind("winning-post-like"), "tiny", 9)
    assert main(["circuit", "info", "--kind", "winning-post-like", "--preset", "tiny", "--vanilla", str(path)]) == 0
    assert "satisfied: yes" in capsys.readouterr().out


def test_gen_vanilla_count_writes_a_json_array(tmp_path):
    path = tmp_path / "v.json"
    assert main(["bench", "gen-vanilla", "--kind", "window-post-like", "--preset", "tiny", "--count", "2",
                 "--seed", "5", "-o", str(path)]) == 0
    items = [base64.b64decode(x) for x in json.loads(path.read_text())]
    assert items == [generate_vanilla(get_kind("window-post-like"), "tiny", s) for s in (5, 6)]


def test_bench_synth_kind_writes_json(tmp_path, capsys):
    path = tmp_path / "synth.json"
    assert main(["bench", "synth", "--kind", "winning-post-like", "--preset", "tiny", "--repeat", "1",
                 "--json", str(path)]) == 0
    (rec,) = json.loads(path.read_text())
    assert rec["circuit"] == "winning-post-like-tiny" and rec["satisfied"] and rec["counts_match"]
    assert rec["constraints"] == get_kind("winning-post-like").counts("tiny").constraints
    assert abs(rec["zero_fraction"] + rec["one_fraction"] + rec["other_fraction"] - 1) < 1e-9
    assert "synth c/s/core" in capsys.readouterr().out
