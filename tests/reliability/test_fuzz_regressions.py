"""The parser defects found while fuzzing (RELIABILITY.md lists them), one
input each: every one now raises the project's own error naming the field
or section, where before it escaped as another exception or allocated
memory sized by an unchecked header field."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cuzk.engine.config import ConfigError  # noqa: E402
from cuzk.engine.errors import InvalidRequest  # noqa: E402
from cuzk.errors import FormatError  # noqa: E402
from fuzz import seeds as S  # noqa: E402
from fuzz import targets as T  # noqa: E402


def _r1cs_with_header(prime: int, n_wires: int, n_constraints: int, labels: bool = True) -> bytes:
    header = (32).to_bytes(4, "little") + prime.to_bytes(32, "little")
    header += b"".join(x.to_bytes(4, "little") for x in (n_wires, 1, 0, 1)) + (4).to_bytes(8, "little")
    header += n_constraints.to_bytes(4, "little")
    sections = [S._section(1, header), S._section(2, bytes(24))]
    if labels:
        sections.append(S._section(3, bytes(8 * 4)))
    return b"r1cs" + (1).to_bytes(4, "little") + len(sections).to_bytes(4, "little") + b"".join(sections)


def test_r1cs_constraint_count_is_checked_before_allocating():
    """nConstraints = 2^32 - 1 in a 24-byte section used to allocate 3 * 2^32 int64 (96 GiB)."""
    from cuzk.curve import BN254

    with pytest.raises(FormatError, match="header: nConstraints 4294967295 cannot fit the 24-byte constraints"):
        T.r1cs(_r1cs_with_header(BN254.fr.p, 4, 2**32 - 1))


def test_r1cs_wire_count_is_bounded_by_the_label_map():
    """nWires = 2^32 - 1 without a wire-to-label map sized accordingly used to reach arange(nWires)."""
    from cuzk.curve import BN254

    with pytest.raises(FormatError, match="wire-to-label map: 32 bytes, expected 8 \\* 4294967295 wires"):
        T.r1cs(_r1cs_with_header(BN254.fr.p, 2**32 - 1, 2))
    with pytest.raises(FormatError, match="section 3 \\(wire-to-label map\\): missing"):
        T.r1cs(_r1cs_with_header(BN254.fr.p, 2**32 - 1, 2, labels=False))


@pytest.mark.parametrize("target", ["snarkjs_proof", "snarkjs_vk", "snarkjs_public"])
def test_json_that_python_cannot_load(target):
    """json.loads raises ValueError (digit limit) and RecursionError outside JSONDecodeError, and
    with a raised recursion limit deep nesting overflowed the C stack (a segfault under hypothesis)."""
    with pytest.raises(FormatError, match="invalid JSON \\(Exceeds the limit"):
        T.TARGETS[target].fn(b'{"pi_a": ' + b"1" * 5000 + b"}")
    with pytest.raises(FormatError, match="invalid JSON \\(nested too deeply"):
        T.TARGETS[target].fn(b"[" * 100000 + b"]" * 100000)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10**6)  # as hypothesis and others do: the depth check must not rely on the limit
    try:
        with pytest.raises(FormatError, match="more than 64 levels"):
            T.TARGETS[target].fn(b'{"a": ' + b"[" * 300000 + b"]" * 300000 + b"}")
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(FormatError, match="cannot read \\(not UTF-8"):
        T.TARGETS[target].fn(b'["\xff"]')


@pytest.mark.parametrize("text,words", [
    (b"[daemon]\nlisten = \"\xff\"\n", "not UTF-8 text"),
    (b"a = " + b"[" * 100000 + b"]" * 100000, "not valid TOML \\(nested too deeply\\)"),
    (b"a = " + b"1" * 5000, "not valid TOML"),
    (b"[daemon]\nshutdown_timeout = \"1" + b"0" * 400 + b"h\"\n", "daemon.shutdown_timeout: expected a duration"),
    (b"[memory]\ntotal_budget = \"1" + b"0" * 400 + b"GiB\"\n", "memory.total_budget: .* is too large"),
    (b"[gpus]\ndevices = [\"a\"]\n", "gpus.devices\\[0\\]: 'a' is not a valid entry"),
    (b"[srs]\npreload = [1]\n", "srs.preload\\[0\\]"),
    (b"[[circuits.circom]]\nid = \"c\"\nzkey = \"k\"\nproof_kind = 4\n", "circuits.circom\\[0\\].proof_kind"),
])
def test_config_files_that_used_to_escape(text, words):
    with pytest.raises(ConfigError, match=words):
        T.config(text)


@pytest.mark.parametrize("field,value,words", [
    ("proof_kind", -1, "proof_kind: unknown value -1"),
    ("proof_kind", 99, "proof_kind: unknown value 99"),
    ("request_id", "a\nb", "request_id: must be at most 256 printable characters"),
    ("request_id", "x" * 257, "request_id: must be at most 256 printable"),
    ("circuit_id", "\x00", "circuit_id: must be"),
    ("randomness", b"12345", "randomness: expected 32 bytes or none, got 5"),
    ("comm_d_new", bytes(33), "comm_d_new: expected 32 bytes or none, got 33"),
])
def test_grpc_request_fields(field, value, words):
    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    msg = pb.SubmitProofRequest.FromString(S.grpc_request()[0])
    setattr(msg, field, value)
    with pytest.raises(InvalidRequest, match=words):
        convert.request_from_proto(msg)


def test_grpc_vk_message_without_points_or_curve():
    """vk_from_proto used to fail in np.stack (no IC) or get_curve (an unknown curve) with other errors."""
    from cuzk.proto import proving_pb2 as pb
    from cuzk.server import convert

    msg = pb.GetVerifyingKeyResponse.FromString(S.grpc_vk()[0])
    empty = pb.GetVerifyingKeyResponse()
    empty.CopyFrom(msg)
    del empty.ic[:]
    with pytest.raises(FormatError, match="verifying key ic: empty"):
        convert.vk_from_proto(empty)
    msg.curve = "secp256k1"
    with pytest.raises(FormatError, match="verifying key curve: unknown curve 'secp256k1'"):
        convert.vk_from_proto(msg)
