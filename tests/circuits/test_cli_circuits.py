"""`cuzk circuit info --kind` (Filecoin's counts without building), `cuzk circuit check --kind snap`,
`cuzk circuit compile --kind`, `cuzk bench gen-vanilla` (and reading its files back), `cuzk bench synth
--kind` end to end."""

import base64
import json
import os
import subprocess
import sys

import pytest

from cuzk.bench.circuit_inputs import read_inputs_file
from cuzk.circuits.filecoin.post import provable as post_kind
from cuzk.circuits.filecoin.snap import provable as snap_kind
from cuzk.circuits.filecoin.common.registered_proofs import SECTOR_SIZES, post_config_for
from cuzk.circuits.filecoin.snap.config import snap_config
from cuzk.cli.main import main
from cuzk.engine.catalog import synthetic
from cuzk.circuits.filecoin.post.request import sample_request
from cuzk.formats.filecoin.request_json import from_json, to_json

SNAP_2K = 1_705_039  # storage-proofs-update tests/circuit.rs: constraints of the 2 KiB update partition


def test_circuit_info_unknown_kind_lists_the_kinds(capsys):
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        main(["circuit", "info", "--kind", "porep-c2-like"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "'window-post', 'winning-post', 'porep', 'snap'" in err


def test_circuit_info_sector_size_needs_kind(capsys):
    assert main(["circuit", "info", "--pce", "x.pce", "--sector-size", "2KiB"]) == 2
    assert "--sector-size goes with --kind" in capsys.readouterr().err


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


def test_gen_vanilla_snap_then_check_with_the_file(tmp_path, capsys):
    """gen-vanilla's SnapDeals request passes `cuzk circuit check --kind snap`: decoded and checked as at
    submit, its partition's witness satisfies the compiled circuit; a broken one is refused in one line."""
    path = tmp_path / "snap.json"
    assert main(["bench", "gen-vanilla", "--kind", "snap", "--out", str(path), "--seed", "9"]) == 0
    assert main(["circuit", "check", "--kind", "snap", "--vanilla", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"snap-2KiB, {SNAP_2K:,} constraints" in out and "satisfied: every constraint of 1 partition(s)" in out
    doc = json.loads(path.read_text())
    doc["comm_d_new"] = base64.b64encode(bytes(32)).decode()
    path.write_text(json.dumps(doc))
    assert main(["circuit", "check", "--kind", "snap", "--vanilla", str(path)]) == 2
    err = capsys.readouterr().err
    assert "comm_d_new" in err and "Traceback" not in err


def test_bench_synth_kind_writes_json(tmp_path, capsys):
    path = tmp_path / "synth.json"
    assert main(["bench", "synth", "--kind", "snap", "--sector-size", "2KiB", "--repeat", "1",
                 "--json", str(path)]) == 0
    rec = json.loads(path.read_text())
    assert rec["circuit"] == "snap-2KiB" and rec["constraints"] == SNAP_2K and rec["partitions"] == 1
    assert rec["variables"] == 5 + 1_703_569 and rec["peak_rss_bytes"] > 0  # ONE, 4 inputs, the gadgets' aux
    assert {"poseidon", "stamp", "assemble w"} <= set(rec["phases"])
    assert all(v["calls"] >= 1 and v["cpu_s"] >= 0 for v in rec["phases"].values())
    assert rec["rate_cpu"] > 0 and rec["rate_wall"] > 0
    out = capsys.readouterr().out
    assert "decode + check (as at submit)" in out and "per sector (1 partition(s))" in out


def _fields(out: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in out.splitlines() if line.split(" ", 1)[0] in
                ("constraints", "aux", "public"))


def test_circuit_info_snap_counts_equal_the_built_circuit(capsys):
    """The counts `info` gives from the gadgets' sizes (the published 1,705,039 at 2 KiB) are the built
    circuit's."""
    assert main(["circuit", "info", "--kind", "snap", "--sector-size", "2KiB"]) == 0
    out = capsys.readouterr().out
    cc = snap_kind.compiled(snap_config(0))  # built (or loaded) independently of the counts
    assert f"constraints {cc.num_constraints}\n" in out and cc.num_constraints == SNAP_2K
    assert f"aux variables {cc.num_aux}\n" in out and f"public inputs {cc.num_inputs}\n" in out
    assert "published: constraints 1705039, public inputs 5" in out and ": equal" in out


def test_circuit_info_32GiB_answers_without_building(tmp_path):
    env = dict(os.environ, CUZK_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "cuzk.cli.main", "circuit", "info", "--kind", "snap",
                           "--sector-size", "32GiB"], env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "constraints 81049499\n" in proc.stdout and "16 partition(s) per update" in proc.stdout
    circuits = tmp_path / "cache" / "circuits"
    assert not circuits.exists() or not any(circuits.iterdir())  # nothing compiled, nothing cached


def test_circuit_compile_kind_writes_a_loadable_copy(tmp_path, capsys):
    from cuzk.r1cs import load_compiled

    out = tmp_path / "c.pce"
    assert main(["circuit", "compile", "--kind", "snap", "--sector-size", "2KiB", "--out", str(out)]) == 0
    assert "peak memory" in capsys.readouterr().out
    assert load_compiled(out, verify=True).id == snap_kind.compiled(snap_config(0)).id
    post = tmp_path / "w.pce"  # Filecoin's circuit, by sector size
    assert main(["circuit", "compile", "--kind", "winning-post", "--sector-size", "2KiB", "--out", str(post)]) == 0
    assert "winning-post-2KiB: " in capsys.readouterr().out
    cfg = post_config_for("winning", SECTOR_SIZES["2KiB"])
    assert load_compiled(post, verify=True).id == post_kind.compiled(cfg).id
