"""A parameter file's points are checked once (cuzk/engine/params/check_stamps.py): a stamp for the file's
identity lets a later load skip the check, and any change to the file makes the next load check again.

The file carries a point on the curve outside the prime-order subgroup (made and confirmed with py_ecc), so
whether a load checked is seen from outside: a check rejects it, a skipped one does not."""

from __future__ import annotations

import os
import random

import pytest

from cuzk.backend import get_backend
from cuzk.circuits.textbook_cubic import cube_circuit
from cuzk.engine.params.check_stamps import CheckStamps
from cuzk.errors import ValidationError
from cuzk.formats import bellperson
from cuzk.groth16 import setup
from cuzk.r1cs import RecordingCS

ecc = pytest.importorskip("py_ecc.optimized_bls12_381", reason="py_ecc (the dev extra) makes the bad point")
P = ecc.field_modulus


def off_subgroup_g1() -> bytes:
    """An uncompressed zcash G1 encoding of a curve point whose order is not r (py_ecc says so)."""
    rng = random.Random(5)
    while True:
        x = rng.randrange(P)
        rhs = (x**3 + 4) % P
        y = pow(rhs, (P + 1) // 4, P)  # p = 3 mod 4
        if y * y % P != rhs:
            continue
        pt = (ecc.FQ(x), ecc.FQ(y), ecc.FQ.one())
        if not ecc.is_inf(ecc.multiply(pt, ecc.curve_order)):
            return x.to_bytes(48, "big") + y.to_bytes(48, "big")


@pytest.fixture(scope="module")
def circuit_and_key():
    rec = RecordingCS("bls12_381")
    cube_circuit(rec, 0, double=True)
    cc = rec.compile()
    return cc, setup.generate(cc, backend=get_backend("cpu"))


def write_with_bad_l(path, pk) -> None:
    bellperson.write_params(path, pk)
    data = bytearray(path.read_bytes())
    off, _, _ = bellperson.scan_params(bytes(data), str(path)).sections["l"]
    data[off : off + 96] = off_subgroup_g1()
    path.write_bytes(bytes(data))


def test_a_stamp_skips_the_check_for_that_file_only(tmp_path, circuit_and_key):
    cc, pk = circuit_and_key
    stamps = CheckStamps(tmp_path / "stamps")
    path = tmp_path / "bad.params"
    write_with_bad_l(path, pk)
    with pytest.raises(ValidationError, match="params.l: element 0: point is not in the prime-order subgroup"):
        bellperson.open_params(path, cc, stamps=stamps).bases("l")
    assert not stamps.done(path, os.stat(path), "l")  # a failed check stamps nothing

    stamps.mark_written(path)  # as if cuzk had written these points itself: trusted, not checked
    assert bellperson.open_params(path, cc, stamps=stamps).bases("l").shape[0] == cc.num_aux

    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # the file changes: its stamp no longer fits
    with pytest.raises(ValidationError, match="not in the prime-order subgroup"):
        bellperson.open_params(path, cc, stamps=stamps).bases("l")
    assert bellperson.open_params(path, cc, checked=False).bases("l").shape[0] == cc.num_aux  # unchecked: loads


def test_a_checked_section_is_stamped_and_its_points_are_the_files(tmp_path, circuit_and_key):
    cc, pk = circuit_and_key
    stamps = CheckStamps(tmp_path / "stamps")
    path = tmp_path / "good.params"
    bellperson.write_params(path, pk)
    first = bellperson.open_params(path, cc, stamps=stamps)
    assert (first.bases("h") == pk.bases("h")).all()
    st = os.stat(path)
    assert stamps.done(path, st, "h") and not stamps.done(path, st, "l")  # per section, as decoded
    again = bellperson.open_params(path, cc, stamps=stamps)
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        assert (again.bases(name) == pk.bases(name)).all()
    assert all(stamps.done(path, st, n) for n in ("h", "l", "a", "b_g1", "b_g2"))
    other = tmp_path / "copy.params"
    other.write_bytes(path.read_bytes())  # the same bytes under another name: checked on its own
    assert not stamps.done(other, os.stat(other), "h")
