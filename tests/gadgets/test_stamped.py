"""Stamped templates with vectorized witnesses: the same assignment as
calling the gadget once per instance, and satisfied through the PCE path."""

import numpy as np
import pytest

from cuzk.field import fields_of
from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.gadget import poseidon_hash
from cuzk.gadgets.poseidon.native import poseidon_hash as poseidon_native
from cuzk.gadgets.poseidon.stamped import hash_template, hash_witness
from cuzk.gadgets.sha256.gadget import sha256_compression
from cuzk.gadgets.sha256.native import bits_to_words, compress
from cuzk.gadgets.sha256.stamped import compression_template, compression_witness, interface_bits
from cuzk.r1cs import RecordingCS, TestCS, WitnessCS, check_satisfied

from gadget_helpers import assert_satisfied_and_tamper_evident

N = 3


def test_sha256_compression_stamped():
    curve = "bls12_381"
    rng = np.random.default_rng(11)
    state = rng.integers(0, 2**32, (N, 8), dtype=np.uint32)
    block = rng.integers(0, 2**32, (N, 16), dtype=np.uint32)
    bits = interface_bits(state, block)
    g = compression_template(curve)
    # bellperson's compression with a variable state (test_bellperson_layout: 26,960 - 768 input bits)
    assert (g.num_inputs, g.num_constraints, g.num_aux) == (768, 26192, 26166)

    aux = compression_witness(curve, state, block)
    assert aux.shape == (N, g.num_aux, 4)
    assert (bits_to_words(compression_witness(curve, state, block, montgomery=False)[:, g.outputs])
            == compress(state, block)).all()

    stamped = WitnessCS(curve)
    iface = stamped.alloc_many(N * 768, bits.ravel()).reshape(N, 768)
    out_vars = g.stamp(stamped, iface, aux)

    direct = TestCS(curve)  # the gadget called once per instance, every constraint checked
    iface_d = direct.alloc_many(N * 768, bits.ravel()).reshape(N, 768)
    for k in range(N):
        b = [Boolean.of_var(v, x) for v, x in zip(iface_d[k].tolist(), bits[k].tolist())]
        direct_out = sha256_compression(direct, b[:256], b[256:])
    assert direct.is_satisfied(), direct.which_is_unsatisfied()
    assert (stamped.aux_assignment() == direct.aux_assignment()).all()
    assert [int(x.var) for x in direct_out] == out_vars[-1].tolist()
    sliced = g.program.run_sliced(bits)  # the circuits' bit-sliced path: the same bits
    assert np.array_equal(sliced.to_bits(), compression_witness(curve, state, block, montgomery=False))

    rec = RecordingCS(curve)
    g.stamp(rec, rec.alloc_many(N * 768).reshape(N, 768))
    cc = rec.compile()
    w = stamped.witness()
    assert check_satisfied(cc, w) is None
    w[cc.num_inputs + int(~out_vars[1, 7])] = fields_of(curve)[0].zeros(1)[0] + 5
    assert check_satisfied(cc, w) is not None


@pytest.mark.parametrize("curve", ["bls12_381", "bn254"])
@pytest.mark.parametrize("arity", [2, 4, 8, 11])
def test_poseidon_stamped(curve, arity):
    fr = fields_of(curve)[0]
    x = fr.random(N * arity, np.random.default_rng(arity)).reshape(N, arity, fr.limbs)
    g = hash_template(curve, arity)
    aux = hash_witness(curve, x)
    assert aux.shape == (N, g.num_aux, 4)
    assert (aux[:, g.outputs[0]] == poseidon_native(curve, x)).all()

    stamped = TestCS(curve)
    iface = stamped.alloc_many(N * arity, x.reshape(-1, fr.limbs)).reshape(N, arity)
    out_vars = g.stamp(stamped, iface, aux)
    assert stamped.is_satisfied(), stamped.which_is_unsatisfied()

    direct = WitnessCS(curve)
    iface_d = direct.alloc_many(N * arity, x.reshape(-1, fr.limbs)).reshape(N, arity)
    xi = fr.to_ints(x.reshape(-1, fr.limbs))
    for k in range(N):
        out = poseidon_hash(direct, [Num.of_var(v, xi[k * arity + j], direct.modulus)
                                     for j, v in enumerate(iface_d[k].tolist())])
    assert (stamped.aux_assignment() == direct.aux_assignment()).all()
    assert out.single_var() == out_vars[-1, 0]
    assert_satisfied_and_tamper_evident(stamped, aux_indices=range(N * arity, stamped.num_aux), samples=None)


@pytest.mark.parametrize("nbytes", [32, 64])
def test_sha256_full_hash_stamped_with_private_message(nbytes):
    """The bit tape's external bits: message bits allocated inside the template."""
    import hashlib

    from cuzk.gadgets.sha256.stamped import hash_template, hash_witness

    curve = "bn254"
    msgs = np.random.default_rng(nbytes).integers(0, 256, (N, nbytes), dtype=np.uint8)
    g = hash_template(curve, nbytes)
    assert g.num_inputs == 0
    bits = hash_witness(curve, msgs, montgomery=False)
    assert (np.packbits(bits[:, g.outputs], axis=1) == np.array(
        [np.frombuffer(hashlib.sha256(m.tobytes()).digest(), np.uint8) for m in msgs])).all()

    cs = TestCS(curve)
    g.stamp(cs, np.zeros((N, 0), dtype=np.int64), bits.ravel())
    rec = RecordingCS(curve)
    g.stamp(rec, np.zeros((N, 0), dtype=np.int64))
    cc, w = rec.compile(), cs.witness()
    assert check_satisfied(cc, w) is None
    col = cc.num_inputs + g.num_aux + 8 * nbytes + 5  # a derived bit of instance 1
    w[col] = fields_of(curve)[0].ones(1)[0] if not w[col].any() else 0
    assert check_satisfied(cc, w) is not None
