"""The circom-shaped generator's .r1cs/.wtns are files snarkjs reads and accepts (its own reader and
witness check are the oracle), and our readers give what snarkjs reads from them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.bench.circom_like import generate
from cuzk.formats.circom_r1cs import read_r1cs
from cuzk.formats.wtns import read_wtns

REPO = Path(__file__).resolve().parents[2]
SNARKJS = REPO / "node_modules" / ".bin" / "snarkjs"
pytestmark = pytest.mark.skipif(not SNARKJS.exists() or shutil.which("node") is None,
                                reason=f"snarkjs not installed ({SNARKJS}): run `npm ci` in {REPO}")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def snarkjs(*args) -> str:
    res = subprocess.run([str(SNARKJS), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    return ANSI.sub("", res.stdout + res.stderr)


@pytest.mark.parametrize("constraints,lanes", [(2, None), (37, 5), (700, None)])
def test_snarkjs_reads_the_circuit_and_accepts_the_witness(tmp_path, constraints, lanes):
    made = generate(constraints, tmp_path / "c.r1cs", tmp_path / "c.wtns", lanes=lanes)
    info = snarkjs("r1cs", "info", made.r1cs)
    fields = dict(re.findall(r"# of ([A-Za-z ]+): (\d+)", info))
    assert int(fields["Constraints"]) == constraints
    assert int(fields["Wires"]) == made.wires
    assert int(fields["Outputs"]) == 1 and int(fields["Public Inputs"]) == 1
    assert "Curve: bn-128" in info
    check = snarkjs("wtns", "check", made.r1cs, made.wtns)
    assert "WITNESS IS CORRECT" in check, check
    # our readers agree on the sizes
    r1cs, wtns = read_r1cs(made.r1cs), read_wtns(made.wtns)
    assert (r1cs.n_constraints, r1cs.n_wires, r1cs.num_public) == (constraints, made.wires, 2)
    assert len(wtns) == made.wires and wtns.curve == "bn254"


def test_a_changed_witness_value_is_rejected_by_snarkjs(tmp_path):
    """The check above is not vacuous: snarkjs refuses the witness once one internal value changes."""
    made = generate(50, tmp_path / "c.r1cs", tmp_path / "c.wtns", lanes=4)
    data = bytearray(made.wtns.read_bytes())
    data[-32] ^= 1  # the last wire's low byte
    bad = tmp_path / "bad.wtns"
    bad.write_bytes(bytes(data))
    res = subprocess.run([str(SNARKJS), "wtns", "check", str(made.r1cs), str(bad)], capture_output=True, text=True,
                         timeout=300)
    assert "WITNESS IS CORRECT" not in ANSI.sub("", res.stdout + res.stderr)


def test_the_mix_has_linear_rows_and_full_size_coefficients(tmp_path):
    """Rows look like circom's: some with empty A and B (linear), coefficients +-1 and large."""
    made = generate(200, tmp_path / "c.r1cs", tmp_path / "c.wtns", lanes=8)
    cc = read_r1cs(made.r1cs).circuit
    import numpy as np

    a_len = np.diff(cc.a.indptr.astype(np.int64))[: cc.num_constraints]
    c_len = np.diff(cc.c.indptr.astype(np.int64))[: cc.num_constraints]
    assert (a_len == 0).any() and (a_len == 2).any() and (c_len == 3).any()
    values = cc.coefficient_ints()
    assert 1 in values and cc.fr.p - 1 in values and max(v for v in values if v != cc.fr.p - 1) > 1 << 200
