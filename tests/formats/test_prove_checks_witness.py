"""`cuzk prove` refuses a witness that does not satisfy the circuit (exit 1, first failing constraint).

On the repository's example (examples/bits_mix) with a key `cuzk setup` makes beside a copy of its .r1cs.
Without an .r1cs (issue 59: snarkjs and rapidsnark prove from the .zkey and .wtns alone) the proof is
verified with the key's verifying key before it is written; snarkjs, an outside verifier, checks the ones
written."""

import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from cuzk.bench.circom_like import generate
from cuzk.cli.main import main
from cuzk.formats.circom_r1cs import read_r1cs
from cuzk.formats.iden3_sections import scan_sections
from cuzk.formats.wtns import WTNS_MAGIC, WTNS_SECTION_NAMES


REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "bits_mix"
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
needs_snarkjs = pytest.mark.skipif(not SNARKJS.exists() or shutil.which("node") is None,
                                   reason=f"snarkjs not installed ({SNARKJS}): run `npm ci` in {REPO}")


@pytest.fixture(scope="module")
def bits_mix(tmp_path_factory):
    """zkey, r1cs (beside it, with its name), wtns and snarkjs vk.json of the example."""
    d = tmp_path_factory.mktemp("bits_mix")
    shutil.copyfile(EXAMPLE / "bits_mix.r1cs", d / "bits_mix.r1cs")
    assert main(["setup", "--r1cs", str(d / "bits_mix.r1cs"), "--zkey", str(d / "bits_mix.zkey"),
                 "--vk-json", str(d / "vk.json"), "--backend", "cpu"]) == 0
    return SimpleNamespace(zkey=d / "bits_mix.zkey", r1cs=d / "bits_mix.r1cs", wtns=EXAMPLE / "witness.wtns",
                           vk=d / "vk.json")


def changed_witness(fx, tmp_path, wire: int):
    """fx's witness with value `wire` plus one, written to tmp_path/changed.wtns."""
    data = bytearray(fx.wtns.read_bytes())
    off, _ = scan_sections(data, WTNS_MAGIC, 2, "wtns", WTNS_SECTION_NAMES)[2]
    at = off + 32 * wire
    value = int.from_bytes(data[at : at + 32], "little")
    data[at : at + 32] = (value + 1).to_bytes(32, "little")  # these values are far below r
    path = tmp_path / "changed.wtns"
    path.write_bytes(bytes(data))
    return path


def first_row_with(cc, wire: int) -> int:
    """The first constraint whose A, B or C has a term in `wire`: the only rows a change of it can break."""
    rows = []
    for m in cc.matrices:
        cols = np.asarray(m.cols)
        hit = np.flatnonzero(cols == wire)
        if len(hit):
            rows.append(int(np.searchsorted(np.asarray(m.indptr), hit[0], side="right")) - 1)
    return min(rows)


def prove_args(fx, tmp_path, wtns, *extra):
    return ["prove", "--zkey", str(fx.zkey), "--wtns", str(wtns), "--proof", str(tmp_path / "proof.json"),
            "--public", str(tmp_path / "public.json"), "--backend", "cpu", "--quiet", *extra]


def test_unsatisfied_witness_is_refused_and_no_check_proves_it(bits_mix, tmp_path, capsys):
    fx = bits_mix
    cc = read_r1cs(fx.r1cs).circuit
    wire = cc.num_vars - 1  # an internal wire
    bad = changed_witness(fx, tmp_path, wire)
    expected = first_row_with(cc, wire)

    assert main(prove_args(fx, tmp_path, bad)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(rf"first failing: constraint {expected}\b", err), err
    assert not (tmp_path / "proof.json").exists() and not (tmp_path / "public.json").exists()

    # the same verdict and row as `cuzk circuit info --wtns`
    assert main(["circuit", "info", "--r1cs", str(fx.r1cs), "--wtns", str(bad)]) == 1
    assert f"first failing: constraint {expected})" in capsys.readouterr().out

    assert main(prove_args(fx, tmp_path, bad, "--no-check")) == 0
    assert (tmp_path / "proof.json").exists() and (tmp_path / "public.json").exists()


def test_satisfied_witness_is_proven_and_the_circuit_is_found_or_named(bits_mix, tmp_path, capsys):
    fx = bits_mix
    assert main(prove_args(fx, tmp_path, fx.wtns)) == 0  # the .r1cs beside the key
    assert (tmp_path / "proof.json").exists()

    args = alone(fx, tmp_path, fx.wtns)
    assert main(args + ["--r1cs", str(fx.r1cs)]) == 0

    other = generate(100, tmp_path / "other.r1cs", tmp_path / "other.wtns")  # a circuit that is not the key's
    assert main(args + ["--r1cs", str(tmp_path / "other.r1cs")]) == 2
    assert f"circuit has {other.wires} wires" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--r1cs", "x.r1cs", "--no-check"]])
def test_r1cs_and_no_check_exclude_each_other(bits_mix, tmp_path, flags, capsys):
    fx = bits_mix
    with pytest.raises(SystemExit) as exc:
        main(prove_args(fx, tmp_path, fx.wtns, *flags))
    assert exc.value.code == 2


def alone(fx, tmp_path, wtns) -> list[str]:
    """prove_args with a copy of the key that has no .r1cs beside it."""
    key = tmp_path / "alone.zkey"
    shutil.copyfile(fx.zkey, key)
    args = prove_args(fx, tmp_path, wtns)
    args[args.index("--zkey") + 1] = str(key)
    return args


@needs_snarkjs
def test_without_the_r1cs_a_good_witness_is_proven_and_snarkjs_verifies_it(bits_mix, tmp_path):
    fx = bits_mix
    assert main(alone(fx, tmp_path, fx.wtns)) == 0
    res = subprocess.run([str(SNARKJS), "groth16", "verify", str(fx.vk), str(tmp_path / "public.json"),
                          str(tmp_path / "proof.json")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "OK!" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize("wire", [1, -1], ids=["public output", "internal wire"])
def test_without_the_r1cs_a_witness_that_does_not_satisfy_the_circuit_is_refused(bits_mix, tmp_path, capsys, wire):
    """Its proof does not verify with the key's verifying key: exit 1, one line, nothing written."""
    fx = bits_mix
    bad = changed_witness(fx, tmp_path, wire % read_r1cs(fx.r1cs).circuit.num_vars)
    assert main(alone(fx, tmp_path, bad)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{bad}: the witness does not satisfy the circuit" in err and "--r1cs" in err, err
    assert not (tmp_path / "proof.json").exists() and not (tmp_path / "public.json").exists()
