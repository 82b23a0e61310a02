"""snarkjs .zkey reader: agrees with the fixtures' vk.json and .r1cs; broken files are refused."""

import numpy as np
import pytest
from snarkjs_fixtures import CASE_IDS, CASES, fixture, other_circuit

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.errors import CuzkError, FormatError, ValidationError
from cuzk.formats.circom_r1cs import read_r1cs
from cuzk.formats.snarkjs_json import read_vk
from cuzk.formats.wtns import read_wtns
from cuzk.formats.zkey import read_zkey
from cuzk.groth16.keys import H_SNARKJS


def sections(data: bytes) -> dict[int, tuple[int, int]]:
    """Independent scan of the iden3 section table: type -> (body offset, size)."""
    out, pos = {}, 12
    for _ in range(int.from_bytes(data[8:12], "little")):
        stype = int.from_bytes(data[pos : pos + 4], "little")
        size = int.from_bytes(data[pos + 4 : pos + 12], "little")
        out[stype] = (pos + 12, size)
        pos += 12 + size
    return out


def write(tmp_path, data: bytes, name="k.zkey"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def case(request):
    fx = fixture(*request.param)
    return fx, read_zkey(fx.zkey)


def test_header_and_vk_match_the_exported_vk(case):
    fx, z = case
    r1cs = read_r1cs(fx.r1cs)
    vk = read_vk(fx.vk)
    assert z.curve is get_curve(fx.curve) is vk.curve
    assert z.n_vars == r1cs.n_wires
    assert z.n_public == r1cs.num_public == vk.num_public
    assert z.vk.ic.shape[0] == z.n_public + 1
    # snarkjs's rule (zkey_new.js): smallest power of two >= constraints + public + 1
    need = r1cs.n_constraints + r1cs.num_public + 1
    assert z.domain_size >= need > z.domain_size // 2
    for name in ("alpha_g1", "beta_g2", "gamma_g2", "delta_g2", "ic"):
        assert np.array_equal(getattr(z.vk, name), getattr(vk, name)), name
    assert z.vk.beta_g1.any() and z.vk.delta_g1.any()


def test_coefficients_are_the_r1cs_a_and_b_with_public_rows(case):
    fx, z = case
    backend = get_backend("cpu")
    cc = read_r1cs(fx.r1cs).circuit
    fr = z.curve.fr
    m = z.matrices
    assert m.num_rows == cc.num_rows  # constraints + one row per public signal (ONE included)
    # a random vector separates different matrices with overwhelming probability
    w = fr.random(z.n_vars, np.random.default_rng(7))
    a, b, c = z.row_evaluations(w, backend)
    for ours, theirs in ((a, cc.a), (b, cc.b)):
        ref = backend.spmv(z.curve, theirs.indptr, theirs.cols, theirs.coeff_idx, cc.coeff_table, w)
        assert np.array_equal(m.in_snarkjs_order(ours), ref)
    assert np.array_equal(c, fr.mul(a, b))
    # rows outside snarkjs's are empty (they only exist where the domain order is permuted)
    rest = np.setdiff1d(np.arange(len(a)), m.positions)
    assert not a[rest].any() and not b[rest].any()
    # for the satisfying witness, a * b is C . w on every row
    w = read_wtns(fx.wtns).values
    _, _, c = z.row_evaluations(w, backend)
    ref = backend.spmv(z.curve, cc.c.indptr, cc.c.cols, cc.c.coeff_idx, cc.coeff_table, w)
    assert np.array_equal(m.in_snarkjs_order(c), ref)


def test_proving_key_is_lazy_and_sized(case):
    fx, z = case
    z = read_zkey(fx.zkey)  # a fresh one: nothing decoded yet
    pk = z.proving_key
    assert pk.h_convention == H_SNARKJS
    assert (pk.num_inputs, pk.num_aux, pk.domain_size) == (z.n_public + 1, z.n_vars - z.n_public - 1, z.domain_size)
    assert not any(pk.is_decoded(k) for k in ("a", "b_g1", "b_g2", "l", "h"))
    g1, g2 = z.curve.g1.coord, z.curve.g2.coord
    assert pk.bases("h").shape == (z.domain_size, 2) + g1
    assert pk.bases("l").shape == (pk.num_aux, 2) + g1
    assert pk.bases("a").shape == (len(pk.a_vars), 2) + g1
    assert pk.bases("b_g2").shape == (len(pk.b_vars), 2) + g2
    # the public signals are in A through their rows; the dropped A bases are infinity
    assert set(range(pk.num_inputs)) <= set(pk.a_vars.tolist())
    full = z.points("A")
    dropped = np.setdiff1d(np.arange(z.n_vars), pk.a_vars)
    assert not full[dropped].any() and full[pk.a_vars].reshape(len(pk.a_vars), -1).any(axis=1).all()
    assert np.array_equal(pk.bases("a"), full[pk.a_vars])


def test_contributions(case):
    _, z = case
    contrib = z.contributions
    assert contrib.names == ("fixture contributor 1",)
    assert len(contrib.cs_hash) == 64
    assert np.array_equal(contrib.delta_after[-1], z.vk.delta_g1)


def test_public_signals_are_what_snarkjs_wrote(case):
    fx, z = case
    import json

    w = read_wtns(fx.wtns).values
    assert [str(v) for v in z.public_signals(w)] == json.loads(fx.public.read_text())


# ---- refusals -----------------------------------------------------------------


@pytest.fixture(scope="module")
def bn_bits():
    fx = fixture("bits_mix", "bn254")
    return fx, fx.zkey.read_bytes()


@pytest.mark.parametrize("stype", [2, 3, 4, 5, 7, 9, 10])
def test_truncation_names_the_section(tmp_path, bn_bits, stype):
    _, data = bn_bits
    off, size = sections(data)[stype]
    with pytest.raises(FormatError, match=rf"section {stype} \("):
        read_zkey(write(tmp_path, data[: off + size // 2]))


def test_tiny_missing_and_foreign_files(tmp_path, bn_bits):
    _, data = bn_bits
    for blob, pattern in (
        (b"", "truncated"),
        (b"zkey\x01\x00", "truncated"),
        (b"r1cs" + data[4:], "bad magic"),
        (data[:4] + (9).to_bytes(4, "little") + data[8:], "version 9"),
        (data + b"\0\0", "trailing"),
    ):
        with pytest.raises(FormatError, match=pattern):
            read_zkey(write(tmp_path, blob))
    with pytest.raises(FormatError, match="no such file"):
        read_zkey(tmp_path / "absent.zkey")


def test_plonk_key_is_refused(tmp_path, bn_bits):
    _, data = bn_bits
    off, _ = sections(data)[1]
    bad = data[:off] + (2).to_bytes(4, "little") + data[off + 4 :]
    with pytest.raises(FormatError, match="plonk"):
        read_zkey(write(tmp_path, bad))


def test_header_counts_must_match_section_sizes(tmp_path, bn_bits):
    _, data = bn_bits
    off, _ = sections(data)[2]
    nvars_at = off + 4 + 32 + 4 + 32
    n_vars = int.from_bytes(data[nvars_at : nvars_at + 4], "little")
    bad = data[:nvars_at] + (n_vars + 1).to_bytes(4, "little") + data[nvars_at + 4 :]
    with pytest.raises(FormatError, match=r"section 5 \(A\).*expected"):
        read_zkey(write(tmp_path, bad))


def patch(data: bytes, pos: int, blob: bytes) -> bytes:
    return data[:pos] + blob + data[pos + len(blob) :]


def test_bad_points_name_their_section(tmp_path, bn_bits):
    fx, data = bn_bits
    q = get_curve("bn254").fq.p
    secs = sections(data)
    # a coordinate >= q in an A point: FormatError when the bases are decoded
    bad = patch(data, secs[5][0] + 64 * 3, q.to_bytes(32, "little"))
    z = read_zkey(write(tmp_path, bad, "a.zkey"))
    with pytest.raises(FormatError, match=r"section 5 \(A\): element 3: coordinate"):
        z.proving_key.bases("a")
    # an H point moved off the curve (y + 1 in Montgomery form is still < q here)
    off = secs[9][0] + 64 * 5 + 32
    y = int.from_bytes(data[off : off + 32], "little")
    bad = patch(data, off, ((y + 1) % q).to_bytes(32, "little"))
    z = read_zkey(write(tmp_path, bad, "h.zkey"))
    with pytest.raises(ValidationError, match=r"section 9 \(H\): element 5: point is not on the curve"):
        z.proving_key.bases("h")
    # a B2 point of a signal with a B term moved off the curve (the density-filtered path)
    used = int(read_zkey(fx.zkey).matrices.b_vars[-1])
    off = secs[7][0] + 128 * used + 64
    y = int.from_bytes(data[off : off + 32], "little")
    bad = patch(data, off, ((y + 1) % q).to_bytes(32, "little"))
    z = read_zkey(write(tmp_path, bad, "b2.zkey"))
    with pytest.raises(ValidationError, match=rf"section 7 \(B2\): element {used}: point is not on the curve"):
        z.proving_key.bases("b_g2")
    # alpha1 off the curve: refused when the key is opened
    off = secs[2][0] + 4 + 32 + 4 + 32 + 12 + 32
    y = int.from_bytes(data[off : off + 32], "little")
    bad = patch(data, off, ((y + 1) % q).to_bytes(32, "little"))
    with pytest.raises(ValidationError, match=r"section 2 \(groth16 header\) alpha1"):
        read_zkey(write(tmp_path, bad, "alpha.zkey"))


def test_bad_coefficient_records(tmp_path, bn_bits):
    _, data = bn_bits
    off = sections(data)[4][0] + 4 + 44 * 10  # record 10
    for field_at, value, pattern in ((0, 2, "matrix id"), (8, 1 << 30, "signal index"), (4, 1 << 30, "constraint")):
        bad = patch(data, off + field_at, value.to_bytes(4, "little"))
        with pytest.raises(FormatError, match=rf"section 4 \(coefficients\): record 10: .*{pattern}"):
            read_zkey(write(tmp_path, bad)).matrices
    r = get_curve("bn254").fr.p
    bad = patch(data, off + 12, r.to_bytes(32, "little"))
    with pytest.raises(FormatError, match="record 10: value is not below"):
        read_zkey(write(tmp_path, bad)).matrices


def test_stray_base_without_coefficient_is_refused(tmp_path, bn_bits):
    fx, data = bn_bits
    z = read_zkey(fx.zkey)
    unused = int(np.setdiff1d(np.arange(z.n_vars), z.matrices.b_vars)[0])
    used = int(z.matrices.b_vars[-1])
    off = sections(data)[6][0]
    bad = patch(data, off + 64 * unused, data[off + 64 * used : off + 64 * used + 64])
    with pytest.raises(ValidationError, match=rf"section 6 \(B1\): signal {unused} .*no B coefficient"):
        read_zkey(write(tmp_path, bad)).proving_key.bases("b_g1")


def test_witness_of_another_curve_or_circuit_is_refused(bn_bits):
    fx, _ = bn_bits
    z = read_zkey(fx.zkey)
    other_curve = read_wtns(fixture("bits_mix", "bls12_381").wtns)
    with pytest.raises(FormatError, match="witness is over bls12_381"):
        z.check_witness(other_curve.curve, len(other_curve), "w.wtns")
    other = read_wtns(fixture(other_circuit("bits_mix"), "bn254").wtns)
    with pytest.raises(FormatError, match=f"expects nVars = {z.n_vars}"):
        z.check_witness(other.curve, len(other), "w.wtns")
    assert issubclass(FormatError, CuzkError)
