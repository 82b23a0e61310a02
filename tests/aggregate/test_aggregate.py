"""SnarkPack end to end on cuzk-made proofs: completeness for n = 1, 2, 3
(padded), 4, 8 on both curves, and soundness: any changed proof, public
input, proof order, transcript domain or aggregate byte is rejected cleanly."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.aggregate import proof_format, prover, srs, transcript, verifier
from cuzk.aggregate.errors import SrsFormatError, SrsTooSmall
from cuzk.aggregate.errors import AggregateFormatError
from cuzk.curve import get_curve

from .helpers import CPU, arrays, canon_inputs, keyed, mont_inputs

CURVES = ["bn254", "bls12_381"]


@pytest.fixture(scope="module")
def srs8():
    return {c: srs.generate(c, 8) for c in CURVES}


def make(curve, generic, proofs, pubs, domain=transcript.DOMAIN):
    pk = keyed(curve)[0]
    canon = canon_inputs(curve, pubs)
    include = transcript.statement_digest(pk.vk, canon, len(pubs), domain)
    pkey = srs.prover_key(generic, srs.padded_count(len(proofs)))
    agg = prover.aggregate(pkey, *arrays(proofs), include, CPU)
    return proof_format.to_bytes(agg)


def check(curve, generic, data, pubs, domain=transcript.DOMAIN):
    """verify-aggregate's decision: (ok, reason); a parse failure is (False, message)."""
    pk, pvk = keyed(curve)[:2]
    canon = canon_inputs(curve, pubs)
    include = transcript.statement_digest(pk.vk, canon, len(pubs), domain)
    try:
        agg = proof_format.from_bytes(get_curve(curve), data)
    except AggregateFormatError as exc:
        return False, str(exc)
    return verifier.verify(srs.verifier_key(generic), pvk, mont_inputs(curve, canon), agg, include, CPU)


@pytest.mark.parametrize("curve", CURVES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_aggregate_verifies(curve, n, srs8):
    _, _, proofs, pubs = keyed(curve)
    data = make(curve, srs8[curve], proofs[:n], pubs[:n])
    assert len(data) == proof_format.serialized_size(get_curve(curve), srs.padded_count(n))
    assert check(curve, srs8[curve], data, pubs[:n]) == (True, "")


@pytest.fixture(scope="module", params=CURVES)
def three(request, srs8):
    curve = request.param
    _, _, proofs, pubs = keyed(curve)
    return curve, srs8[curve], proofs[:3], pubs[:3], make(curve, srs8[curve], proofs[:3], pubs[:3])


def test_changed_proof_fails(three):
    curve, generic, proofs, pubs, _ = three
    other = keyed(curve)[2][5]  # a valid proof, of other inputs
    for i in range(3):
        changed = list(proofs)
        changed[i] = other
        ok, why = check(curve, generic, make(curve, generic, changed, pubs), pubs)
        assert not ok and why


def test_changed_public_input_fails(three):
    curve, generic, _, pubs, data = three
    p = get_curve(curve).fr.p
    for i in range(3):
        for j in range(2):
            changed = [list(x) for x in pubs]
            changed[i][j] = (changed[i][j] + 1) % p
            assert check(curve, generic, data, changed)[0] is False


def test_order_matters(three):
    curve, generic, proofs, pubs, data = three
    assert check(curve, generic, data, [pubs[1], pubs[0], pubs[2]])[0] is False
    swapped = make(curve, generic, [proofs[1], proofs[0], proofs[2]], pubs)
    assert check(curve, generic, swapped, pubs)[0] is False


def test_count_and_padding_matter(three):
    curve, generic, _, pubs, data = three
    assert check(curve, generic, data, pubs[:2])[0] is False  # 2 proofs pad to 2, the aggregate holds 4
    assert check(curve, generic, data, pubs + [pubs[2]])[0] is False  # the padded copy is not a 4th proof


def test_transcript_domain_matters(three):
    curve, generic, _, pubs, data = three
    assert check(curve, generic, data, pubs, domain=b"another-domain")[0] is False
    other = make(curve, generic, three[2], pubs, domain=b"another-domain")
    assert check(curve, generic, other, pubs, domain=b"another-domain") == (True, "")
    assert check(curve, generic, other, pubs)[0] is False


def test_byte_flips_fail_cleanly(three):
    curve, generic, _, pubs, data = three
    rng = np.random.default_rng(7)
    positions = sorted(set(rng.integers(0, len(data), 24).tolist()) | {0, 4, len(data) - 1})
    for pos in positions:
        bad = bytearray(data)
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        ok, why = check(curve, generic, bytes(bad), pubs)
        assert ok is False and why, pos
    assert check(curve, generic, data[:-1], pubs)[0] is False
    assert check(curve, generic, data + b"\0", pubs)[0] is False


def test_srs_file_round_trip(tmp_path, srs8):
    for curve in CURVES:
        path = tmp_path / f"{curve}.srs"
        srs.write(srs8[curve], path)
        back = srs.read(path, curve)
        for name in srs.NAMES:
            assert np.array_equal(getattr(back, name), getattr(srs8[curve], name))
        pk = srs.read_prover_key(path, curve, 4)
        assert np.array_equal(pk.w1, srs8[curve].g_alpha[4:8]) and np.array_equal(pk.v2, srs8[curve].h_beta[:4])
        vkey = srs.read_verifier_key(path, curve)
        assert vkey.max_proofs == 8 and np.array_equal(vkey.h_beta, srs8[curve].h_beta[1])
        with pytest.raises(SrsTooSmall):
            srs.read_prover_key(path, curve, 16)
        other = "bn254" if curve == "bls12_381" else "bls12_381"
        with pytest.raises(SrsFormatError):
            srs.read(path, other)
        raw = path.read_bytes()
        (tmp_path / "cut.srs").write_bytes(raw[:-1])
        with pytest.raises(SrsFormatError):
            srs.read(tmp_path / "cut.srs", curve)


def test_srs_powers_are_powers(srs8):
    """Each vector is a geometric sequence: e(g^(a^(i+1)), h) == e(g^(a^i), h^a), checked on the
    whole G1 vector against the first G2 power."""
    from cuzk.curve.pairing import multi_pairing_is_one

    for curve in CURVES:
        s, c = srs8[curve], get_curve(curve)
        for g, h in ((s.g_alpha, s.h_alpha), (s.g_beta, s.h_beta)):
            for i in range(len(g) - 1):
                assert multi_pairing_is_one(curve, np.stack([g[i + 1], c.g1.neg(g[i][None])[0]]),
                                            np.stack([h[0], h[1]]))
            assert np.array_equal(g[0], c.g1.generator) and np.array_equal(h[0], c.g2.generator)


@pytest.mark.parametrize("threads", [1, 2])
def test_same_decision_with_and_without_side_tasks(three, threads):
    """On one numba thread parsing and verification run in sequence; on two, parts
    run as side tasks (cuzk.aggregate.side_task): the decisions must agree."""
    import numba

    curve, generic, proofs, pubs, data = three
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        assert check(curve, generic, data, pubs) == (True, "")
        bad = make(curve, generic, [proofs[0], keyed(curve)[2][5], proofs[2]], pubs)
        assert check(curve, generic, bad, pubs)[0] is False
        flipped = bytearray(data)
        flipped[10] ^= 4  # inside com_ab: a GT element, decoded by the side task
        assert check(curve, generic, bytes(flipped), pubs)[0] is False
    finally:
        numba.set_num_threads(old)
