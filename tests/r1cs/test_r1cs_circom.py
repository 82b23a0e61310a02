"""circom .r1cs/.wtns import: the fixtures are satisfied, broken files give FormatError."""

import json
import subprocess
import sys

import numpy as np
import pytest
from r1cs_helpers import CIRCUITS, fixture_files

from cuzk.errors import FormatError
from cuzk.field import fields_of
from cuzk.formats.circom_r1cs import read_r1cs, witness_for
from cuzk.formats.wtns import read_wtns
from cuzk.r1cs.evaluation import check_satisfied

BN = fields_of("bn254")[0].p
BLS = fields_of("bls12_381")[0].p

# README.md of the fixtures: constraints, wires, private inputs, public inputs, outputs, labels
EXPECTED = {"poseidon_chain": (2892, 2905, 12, 0, 1, 9243), "bits_mix": (2740, 2733, 8, 2, 3, 2761)}


def section(stype: int, body: bytes) -> bytes:
    return stype.to_bytes(4, "little") + len(body).to_bytes(8, "little") + body


def r1cs_bytes(prime, n_wires, n_out, n_pub, n_prv, constraints, n_labels=None):
    header = (32).to_bytes(4, "little") + prime.to_bytes(32, "little")
    header += b"".join(x.to_bytes(4, "little") for x in (n_wires, n_out, n_pub, n_prv))
    header += (n_labels or n_wires).to_bytes(8, "little") + len(constraints).to_bytes(4, "little")
    body = b""
    for row in constraints:
        for lc in row:
            body += len(lc).to_bytes(4, "little")
            body += b"".join(w.to_bytes(4, "little") + (c % prime).to_bytes(32, "little") for w, c in lc)
    labels = b"".join(i.to_bytes(8, "little") for i in range(n_wires))
    return b"r1cs" + (1).to_bytes(4, "little") + (3).to_bytes(4, "little") + section(2, body) + section(
        1, header) + section(3, labels)


def wtns_bytes(prime, values):
    header = (32).to_bytes(4, "little") + prime.to_bytes(32, "little") + len(values).to_bytes(4, "little")
    body = b"".join((v % prime).to_bytes(32, "little") for v in values)
    return b"wtns" + (2).to_bytes(4, "little") + (2).to_bytes(4, "little") + section(1, header) + section(2, body)


def square(prime):
    """out = x*x + 2x - 1 (wires: ONE, out, x, t), with witness x = 3."""
    cons = [([(2, 1)], [(2, 1)], [(3, 1)]), ([], [], [(3, 1), (2, 2), (0, -1), (1, -1)])]
    return r1cs_bytes(prime, 4, 1, 0, 1, cons), wtns_bytes(prime, [1, 14, 3, 9])


@pytest.mark.parametrize("prime,curve", [(BN, "bn254"), (BLS, "bls12_381")], ids=["bn254", "bls12_381"])
def test_small_handmade_file(tmp_path, prime, curve):
    r, w = square(prime)
    (tmp_path / "c.r1cs").write_bytes(r)
    (tmp_path / "c.wtns").write_bytes(w)
    c = read_r1cs(tmp_path / "c.r1cs")
    assert (c.curve, c.n_wires, c.num_public, c.n_constraints) == (curve, 4, 1, 2)
    assert c.wire_to_label.tolist() == [0, 1, 2, 3]
    cc = c.circuit
    assert (cc.num_inputs, cc.num_aux, cc.num_constraints) == (2, 2, 2)
    wit = read_wtns(tmp_path / "c.wtns")
    assert cc.fr.to_ints(wit.values) == [1, 14, 3, 9]
    assert check_satisfied(cc, witness_for(c, wit)) is None
    bad = wit.values.copy()
    bad[1] = cc.fr.from_int(15)
    assert check_satisfied(cc, bad) == 1


@pytest.mark.parametrize("curve", ["bn254", "bls12_381"])
@pytest.mark.parametrize("circuit", CIRCUITS)
def test_fixtures_are_satisfied(circuit, curve):
    r1cs_path, wtns_path = fixture_files(circuit, curve)
    c = read_r1cs(r1cs_path)
    assert c.curve == curve
    assert (c.n_constraints, c.n_wires, c.n_prv_in, c.n_pub_in, c.n_pub_out, c.n_labels) == EXPECTED[circuit]
    cc = c.circuit
    assert cc.num_inputs == 1 + c.n_pub_out + c.n_pub_in
    w = witness_for(c, read_wtns(wtns_path))
    assert check_satisfied(cc, w) is None
    public = json.loads((r1cs_path.parent / "public.json").read_text())
    assert cc.fr.to_ints(w[1 : cc.num_inputs]) == [int(x) for x in public]
    assert cc.bytes_per_constraint() < 120
    # change one wire that is used by a constraint
    bad = w.copy()
    wire = int(cc.c.cols[int(cc.c.indptr[cc.num_constraints]) - 1])
    bad[wire] = cc.fr.add(bad[wire], cc.fr.ones(1)[0])
    assert check_satisfied(cc, bad) is not None


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "cuzk", "circuit", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_cli_info_and_compile(tmp_path):
    r1cs_path, wtns_path = fixture_files("bits_mix", "bn254")
    ok = run_cli("info", "--r1cs", r1cs_path, "--wtns", wtns_path)
    assert ok.returncode == 0, ok.stderr
    for line in ("curve: bn254", "constraints: 2740", "public inputs: 5", "private inputs: 8", "satisfied: yes"):
        assert line in ok.stdout
    assert "nonzeros: A " in ok.stdout and "aux values: zero " in ok.stdout

    # a changed witness value -> "satisfied: no", exit 1
    r1cs_path, wtns_path = fixture_files("poseidon_chain", "bls12_381")
    data = bytearray(wtns_path.read_bytes())
    c = read_r1cs(r1cs_path)
    wire = c.n_wires - 1
    off = len(data) - 32 * (c.n_wires - wire)
    v = int.from_bytes(data[off : off + 32], "little")
    data[off : off + 32] = ((v + 1) % BLS).to_bytes(32, "little")
    (tmp_path / "bad.wtns").write_bytes(bytes(data))
    bad = run_cli("info", "--r1cs", r1cs_path, "--wtns", tmp_path / "bad.wtns")
    assert bad.returncode == 1, bad.stderr
    assert "satisfied: no (first failing: constraint " in bad.stdout



def test_cli_compile_and_errors_in_process(tmp_path, capsys):
    from cuzk.cli.main import main

    r1cs_path, _ = fixture_files("poseidon_chain", "bls12_381")
    out = tmp_path / "p.pce"
    assert main(["circuit", "compile", "--r1cs", str(r1cs_path), "--out", str(out)]) == 0
    assert main(["circuit", "info", "--pce", str(out), "--verify"]) == 0
    text = capsys.readouterr().out
    assert "constraints: 2892" in text and read_r1cs(r1cs_path).circuit.id in text

    (tmp_path / "wrong.r1cs").write_bytes(r1cs_bytes(BN + 2, 4, 1, 0, 1, []))
    for argv in (["--r1cs", tmp_path / "wrong.r1cs"], ["--r1cs", tmp_path / "missing.r1cs"],
                 ["--pce", tmp_path / "wrong.r1cs"]):
        assert main(["circuit", "info", *map(str, argv)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cuzk: error: ") and err.count("\n") == 1


def test_wrong_prime(tmp_path):
    r, _ = square(BN)
    r = bytearray(r)
    pos = r.index(BN.to_bytes(32, "little"))
    r[pos] ^= 1
    (tmp_path / "c.r1cs").write_bytes(bytes(r))
    with pytest.raises(FormatError, match="header: prime"):
        read_r1cs(tmp_path / "c.r1cs")
    (tmp_path / "c.wtns").write_bytes(wtns_bytes(BN, [1, 2]).replace(BN.to_bytes(32, "little"), (7).to_bytes(32, "little")))
    with pytest.raises(FormatError, match="header: prime"):
        read_wtns(tmp_path / "c.wtns")


@pytest.mark.parametrize("circuit", CIRCUITS)
def test_truncated_fixture_files(tmp_path, circuit):
    r1cs_path, wtns_path = fixture_files(circuit, "bn254")
    for src, reader in ((r1cs_path, read_r1cs), (wtns_path, read_wtns)):
        data = src.read_bytes()
        for size in (3, 11, 40, len(data) // 2, len(data) - 1):
            path = tmp_path / f"t{size}{src.suffix}"
            path.write_bytes(data[:size])
            with pytest.raises(FormatError, match="truncated"):
                reader(path)


def test_inconsistent_files(tmp_path):
    p = tmp_path / "c.r1cs"
    cases = [
        (r1cs_bytes(BN, 3, 1, 0, 1, [([(2, 1)], [(2, 1)], [(3, 1)])]), "wire id 3 >= nWires 3"),
        (r1cs_bytes(BN, 3, 2, 1, 1, []), "exceed 3 wires"),
    ]
    # a constraint record longer than its section (section sizes consistent)
    good, _ = square(BN)
    body_len = int.from_bytes(good[16:24], "little")
    short = bytearray(good)
    cut = 40  # drop the last 40 bytes of the constraint section
    short[16:24] = (body_len - cut).to_bytes(8, "little")
    del short[24 + body_len - cut : 24 + body_len]
    cases.append((bytes(short), "constraints: constraint 1 of 2 runs past"))
    # a coefficient that is not reduced
    big = bytearray(good)
    pos = 24 + 4 + 4  # first term's coefficient
    big[pos : pos + 32] = (BN + 1).to_bytes(32, "little")
    cases.append((bytes(big), "not below the prime"))
    cases.append((b"wtns" + good[4:], "bad magic"))
    for data, message in cases:
        p.write_bytes(data)
        with pytest.raises(FormatError, match=message):
            read_r1cs(p)

    w = tmp_path / "c.wtns"
    data = bytearray(wtns_bytes(BN, [1, 2, 3]))
    data[12 + 12 + 36 : 12 + 12 + 40] = (4).to_bytes(4, "little")  # nWitness says 4, 3 values follow
    w.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="values: 96 bytes, expected 4 values"):
        read_wtns(w)
    w.write_bytes(wtns_bytes(BN, [1, 2, 3]))
    data = bytearray(w.read_bytes())
    data[-32:] = (BN).to_bytes(32, "little")
    w.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="values: .*not canonical"):
        read_wtns(w)
    r, _ = square(BN)
    p.write_bytes(r)
    w.write_bytes(wtns_bytes(BN, [1, 2, 3]))
    with pytest.raises(FormatError, match="witness has 3 values, circuit has 4 wires"):
        witness_for(read_r1cs(p), read_wtns(w))
    w.write_bytes(wtns_bytes(BLS, [1, 2, 3, 4]))
    with pytest.raises(FormatError, match="over bls12_381"):
        witness_for(read_r1cs(p), read_wtns(w))
