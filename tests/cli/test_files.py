"""Files named on the command line (cuzk/cli/files.py): outputs get their folders, inputs that are folders or
absent are one line each (issue 42: `cuzk setup ... --zkey build/x.zkey` in a fresh clone ended in a traceback)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.cli import files
from cuzk.cli.main import main
from cuzk.errors import CuzkError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bits_mix"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """`cuzk setup` of the README's example into folders that do not exist yet, then `cuzk prove` likewise."""
    root = tmp_path_factory.mktemp("fresh")
    zkey = root / "build" / "keys" / "bits_mix.zkey"
    assert main(["setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--zkey", str(zkey),
                 "--vk-json", str(root / "vk" / "vk.json"), "--backend", "cpu"]) == 0
    out = root / "out" / "proofs"
    assert main(["prove", "--zkey", str(zkey), "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--wtns",
                 str(EXAMPLE / "witness.wtns"), "--proof", str(out / "proof.json"), "--public",
                 str(root / "pub" / "public.json"), "--backend", "cpu", "--quiet"]) == 0
    return root


def test_setup_and_prove_create_their_output_folders(made):
    for rel in ("build/keys/bits_mix.zkey", "vk/vk.json", "out/proofs/proof.json", "pub/public.json"):
        assert (made / rel).is_file(), rel
    assert not list(made.rglob("*.tmp"))


def test_the_derived_vk_json_gets_its_folder_too(tmp_path):
    zkey = tmp_path / "new" / "k.zkey"
    assert main(["setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--zkey", str(zkey), "--backend", "cpu"]) == 0
    assert zkey.is_file() and (tmp_path / "new" / "k.vk.json").is_file()


def test_a_folder_that_cannot_be_made_is_one_line_before_any_work(tmp_path):
    (tmp_path / "afile").write_text("x")
    res = subprocess.run([sys.executable, "-m", "cuzk", "setup", "--r1cs", str(EXAMPLE / "bits_mix.r1cs"),
                          "--zkey", str(tmp_path / "afile" / "sub" / "x.zkey")], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.count("\n") == 1 and "cannot create the folder" in res.stderr and "afile" in res.stderr
    assert "setup:" not in res.stderr  # refused before the setup started


@pytest.mark.parametrize("argv", [
    ["prove", "--zkey", "{dir}", "--wtns", "{wtns}", "--proof", "{tmp}/p.json", "--public", "{tmp}/q.json"],
    ["prove", "--zkey", "{made}/build/keys/bits_mix.zkey", "--wtns", "{dir}", "--proof", "{tmp}/p.json",
     "--public", "{tmp}/q.json"],
    ["verify", "--vk", "{dir}", "--public", "{made}/pub/public.json", "--proof", "{made}/out/proofs/proof.json"],
    ["setup", "--r1cs", "{dir}", "--zkey", "{tmp}/x.zkey"],
    ["params", "check", "{dir}"],
    ["daemon", "--config", "{dir}"],
])
def test_a_directory_given_as_an_input_file_is_named_as_one(argv, made, tmp_path, capsys):
    d = tmp_path / "a_folder.zkey"
    d.mkdir()
    subst = {"dir": str(d), "tmp": str(tmp_path), "made": str(made), "wtns": str(EXAMPLE / "witness.wtns")}
    assert main([a.format(**subst) for a in argv]) == 2
    err = capsys.readouterr().err
    what = "config file" if argv[0] == "daemon" else "file"
    assert err == f"cuzk: error: {d}: is a directory, not a {what}\n", err


def test_an_absent_input_is_no_such_file_and_an_output_that_is_a_folder_is_refused(made, tmp_path, capsys):
    argv = ["prove", "--zkey", str(tmp_path / "absent.zkey"), "--wtns", str(EXAMPLE / "witness.wtns"),
            "--proof", str(tmp_path / "p.json"), "--public", str(tmp_path / "q.json")]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"cuzk: error: {tmp_path / 'absent.zkey'}: no such file\n"
    argv = ["prove", "--zkey", str(made / "build/keys/bits_mix.zkey"), "--wtns", str(EXAMPLE / "witness.wtns"),
            "--r1cs", str(EXAMPLE / "bits_mix.r1cs"), "--proof", str(tmp_path), "--public", str(tmp_path / "q.json")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and err.count("\n") == 1


def test_prepare_checks_every_value_of_an_appended_option(tmp_path):
    ok = tmp_path / "ok.json"
    ok.write_text("[]")
    args = argparse.Namespace(public=[files.input_file(str(ok)), files.input_file(str(tmp_path / "gone.json"))],
                              out=files.output_file(str(tmp_path / "x" / "y" / "agg.bin")))
    with pytest.raises(CuzkError, match="gone.json: no such file"):
        files.prepare(args)
    assert not (tmp_path / "x").exists()  # inputs are checked before any output folder is made
    args.public.pop()
    files.prepare(args)
    assert (tmp_path / "x" / "y").is_dir()
