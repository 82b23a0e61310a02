"""The .pce file: round trip, mmap loading, truncation and corruption errors."""

import struct

import numpy as np
import pytest

from cuzk.errors import FormatError
from cuzk.r1cs import TestCS
from cuzk.r1cs.evaluation import check_satisfied, evaluate
from cuzk.r1cs.pce_file import ENTRY, HEADER, SECTIONS, load, save


def sample(curve):
    cs = TestCS(curve)
    xs = [cs.alloc(i + 2) for i in range(20)]
    out = cs.alloc_input(1)
    acc = xs[0]
    for k, x in enumerate(xs[1:]):
        v = cs.value(acc) * cs.value(x)
        nxt = cs.alloc(v)
        cs.enforce(acc, LCish(x, k), nxt)
        acc = nxt
    cs.enforce(out, out, out)
    return cs


def LCish(x, k):
    return x + (k * 2**200, x) - (k * 2**200, x)  # a big coefficient that cancels


def saved(tmp_path, curve):
    """(the compiled sample, the .pce file it was saved to, that file's bytes)."""
    cc = sample(curve).compile()
    path = tmp_path / "c.pce"
    save(cc, path)
    return cc, path, bytearray(path.read_bytes())


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
def test_round_trip(tmp_path, curve):
    cs = sample(curve)
    cc = cs.compile()
    path = tmp_path / "c.pce"
    save(cc, path)
    for verify in (False, True):
        back = load(path, verify=verify)
        assert back.curve == curve and back.id == cc.id
        assert (back.num_inputs, back.num_aux, back.num_constraints) == (cc.num_inputs, cc.num_aux, cc.num_constraints)
        arrays = lambda c: [x for m in c.matrices for x in (m.indptr, m.cols, m.coeff_idx)] + [  # noqa: E731
            c.coeff_table, c.a_aux_density, c.b_input_density, c.b_aux_density]
        for x, y in zip(arrays(cc), arrays(back)):
            assert x.dtype == y.dtype and np.array_equal(x, y)
        w = cs.witness()
        assert check_satisfied(back, w) is None
        assert all(np.array_equal(x, y) for x, y in zip(evaluate(back, w), evaluate(cc, w)))
    assert isinstance(back.a.cols.base, np.memmap) or isinstance(back.a.cols, np.memmap)


def section_entry(data, name):
    k = SECTIONS.index(name)
    _, dtype, crc, count, off = ENTRY.unpack_from(data, HEADER.size + k * ENTRY.size)
    return off


def test_truncated_files_name_the_section(tmp_path):
    _, path, data = saved(tmp_path, "bls12_381")
    cases = [
        (40, "header"),
        (HEADER.size + 10, "directory"),
        (section_entry(data, "C.cols") + 4, "C.cols"),
        (len(data) - 1, "density.b_aux"),
    ]
    for size, section in cases:
        path.write_bytes(data[:size])
        with pytest.raises(FormatError, match=section):
            load(path)


def test_corrupted_files(tmp_path):
    _, path, data = saved(tmp_path, "bn254")

    def corrupt(offset, value=None):
        bad = bytearray(data)
        bad[offset] = (bad[offset] ^ 0x5A) if value is None else value
        path.write_bytes(bytes(bad))

    corrupt(0)
    with pytest.raises(FormatError, match="magic"):
        load(path)
    corrupt(20)  # num_inputs
    with pytest.raises(FormatError, match="header: checksum"):
        load(path)
    corrupt(section_entry(data, "B.cols") + 1)  # data: found by verify (crc), not by the lazy load
    load(path)
    with pytest.raises(FormatError, match="B.cols: checksum"):
        load(path, verify=True)
    path.write_bytes(b"not a pce file at all" * 10)
    with pytest.raises(FormatError, match="magic"):
        load(path)


def test_inconsistent_header_counts_are_rejected(tmp_path):
    """A header that lies consistently (crc fixed up) is still caught by the section sizes."""
    import zlib

    cc, path, data = saved(tmp_path, "bn254")
    struct.pack_into("<Q", data, 32, cc.num_constraints + 1)  # num_constraints
    head = bytearray(data[: HEADER.size + ENTRY.size * len(SECTIONS)])
    head[44:48] = b"\0\0\0\0"
    struct.pack_into("<I", data, 44, zlib.crc32(head))
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="A.indptr"):
        load(path)


def test_verify_catches_out_of_range_indices():
    from dataclasses import replace

    from cuzk.r1cs.compiled import CsrMatrix
    from cuzk.r1cs.pce_file import verify_structure

    cc = sample("bls12_381").compile()
    cols = cc.b.cols.copy()
    cols[0] = cc.num_vars
    bad = replace(cc, b=CsrMatrix(cc.b.indptr, cols, cc.b.coeff_idx))
    with pytest.raises(FormatError, match="B.cols"):
        verify_structure(bad)
    verify_structure(cc)
