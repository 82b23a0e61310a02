"""The vectorized .r1cs readers (all three matrices, and C alone for `cuzk prove`'s check) against
snarkjs's own reading (`snarkjs r1cs export json`), and their one-line errors on damaged files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from snarkjs_fixtures import fixture, needs_snarkjs, snarkjs

from cuzk.bench.circom_like import generate
from cuzk.cli.main import main
from cuzk.errors import FormatError
from cuzk.formats.circom_r1cs import r1cs_from_bytes, read_r1cs, read_r1cs_c
from cuzk.formats.iden3_sections import scan_sections


def csr_rows(m, table_ints, rows):
    """Row i of a CsrMatrix as {wire: coefficient int}."""
    ip = m.indptr.astype(np.int64)
    return [{int(m.cols[j]): table_ints[int(m.coeff_idx[j])] for j in range(ip[i], ip[i + 1])} for i in range(rows)]


def snarkjs_export(path, tmp_path):
    out = tmp_path / "export.json"
    res = snarkjs("r1cs", "export", "json", path, out)
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(out.read_text())


def sources(tmp_path):
    made = generate(300, tmp_path / "gen.r1cs", tmp_path / "gen.wtns", lanes=7)
    return [("bits_mix", "bn254"), ("poseidon_chain", "bls12_381")], made.r1cs


@needs_snarkjs
@pytest.mark.parametrize("which", ["bits_mix-bn254", "poseidon_chain-bls12_381", "generated"])
def test_matrices_are_what_snarkjs_reads(tmp_path, which):
    if which == "generated":
        path = generate(300, tmp_path / "gen.r1cs", tmp_path / "gen.wtns", lanes=7).r1cs
    else:
        path = fixture(*which.split("-")).r1cs
    theirs = snarkjs_export(path, tmp_path)
    r = read_r1cs(path)
    assert (r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in, r.n_labels, r.n_constraints) == (
        theirs["nVars"], theirs["nOutputs"], theirs["nPubInputs"], theirs["nPrvInputs"], theirs["nLabels"],
        theirs["nConstraints"])
    assert r.circuit.fr.p == int(theirs["prime"])
    m = r.n_constraints
    table = r.circuit.coefficient_ints()
    want = [[{int(k): int(v) for k, v in lc.items()} for lc in row] for row in theirs["constraints"]]
    for k, mat in enumerate(r.circuit.matrices):
        assert csr_rows(mat, table, m) == [row[k] for row in want], "ABC"[k]
    c = read_r1cs_c(path)
    c_table = c.coeff_table
    fr = r.circuit.fr
    c_ints = fr.to_ints(c_table)
    assert csr_rows(c.c, c_ints, m) == [row[2] for row in want]
    assert (c.n_wires, c.n_public, c.n_constraints, c.curve) == (r.n_wires, r.num_public, m, r.curve)


def damaged(tmp_path):
    """(name, bytes) of damaged copies of a small generated .r1cs."""
    good = generate(20, tmp_path / "g.r1cs", tmp_path / "g.wtns", lanes=3).r1cs.read_bytes()
    secs = scan_sections(good, b"r1cs", 1, "r1cs", {1: "h", 2: "c", 3: "l"})
    coff, csize = secs[2]
    hoff, _ = secs[1]
    first_term = coff + 4  # constraint 0, A, term 0: wire u32 then 32 coefficient bytes
    n_a = int.from_bytes(good[coff : coff + 4], "little")
    b_at = coff + 4 + 36 * n_a
    n_b = int.from_bytes(good[b_at : b_at + 4], "little")
    c_term = b_at + 4 + 36 * n_b + 4  # constraint 0, C, term 0 (what read_r1cs_c reads)
    cases = {
        "empty": b"",
        "cut in the header": good[: hoff + 10],
        "cut in the constraints": good[: coff + csize // 2],
        "cut in the labels": good[:-5],
        "trailing bytes": good + b"\0" * 3,
        "term count too large": good[:coff] + (10**6).to_bytes(4, "little") + good[coff + 4 :],
        "A wire id too large": good[:first_term] + (10**6).to_bytes(4, "little") + good[first_term + 4 :],
        "A coefficient above the prime": good[: first_term + 4] + b"\xff" * 32 + good[first_term + 36 :],
        "C wire id too large": good[:c_term] + (10**6).to_bytes(4, "little") + good[c_term + 4 :],
        "C coefficient above the prime": good[: c_term + 4] + b"\xff" * 32 + good[c_term + 36 :],
        "bad magic": b"r1cx" + good[4:],
        "nConstraints too large": good[: hoff + 4 + 32 + 24] + (10**7).to_bytes(4, "little") + good[hoff + 4 + 32 + 28 :],
    }
    return cases


def test_damaged_files_give_one_line_errors(tmp_path, capsys):
    for name, data in damaged(tmp_path).items():
        path = tmp_path / "bad.r1cs"
        path.write_bytes(data)
        # C alone is read for the witness check: a damaged A or B term is for the full reader
        readers = (read_r1cs,) if name.startswith(("A ", "B ")) else (read_r1cs, read_r1cs_c)
        for reader in readers:
            with pytest.raises(FormatError) as exc:
                reader(path)
            assert "\n" not in str(exc.value), (name, str(exc.value))
        with pytest.raises(FormatError):
            r1cs_from_bytes(bytearray(data))
        assert main(["circuit", "info", "--r1cs", str(path)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("cuzk: error: ") and err.count("\n") == 1 and "Traceback" not in err, (name, err)


def test_prove_with_a_damaged_circuit_is_a_one_line_error(tmp_path, capsys):
    fx = fixture("bits_mix", "bn254")
    cut = tmp_path / "cut.r1cs"
    cut.write_bytes(fx.r1cs.read_bytes()[:5000])
    rc = main(["prove", "--zkey", str(fx.zkey), "--wtns", str(fx.wtns), "--r1cs", str(cut), "--proof",
               str(tmp_path / "p.json"), "--public", str(tmp_path / "q.json"), "--backend", "cpu", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("cuzk: error: ") and err.count("\n") == 1, err
    assert not (tmp_path / "p.json").exists()
