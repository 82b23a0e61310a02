"""Filecoin's Poseidon (neptune v11, Strength::Standard, HashType::MerkleTree) against
numbers published outside this repository.

Sources (transcribed, not computed by our code):
* neptune v11.0.0 src/poseidon.rs, test `hash_values` (`hash_values_aux`): the hash of
  [0, 1, ..., arity-1] for Standard and Strengthened strength (`scalar_from_u64s` limbs,
  little-endian 64-bit words of the canonical value).
* neptune v11.0.0 src/circuit.rs, test `test_poseidon_hash`: constraints of
  `circuit::poseidon_hash`, counted in a TestConstraintSystem in which the inputs were
  allocated with `AllocatedNum::alloc` (no constraints), i.e. the gadget's own count.
  neptune gives no number for arity 11 (Filecoin's column hash); the test's own formula
  3 (t R_F + R_P - 1) + t R_F + R_P - arity gives 598.
* neptune v11.0.0 src/round_numbers.rs, test `test_round_numbers_against_known_values`
  (t -> R_P, R_F = 8) and src/lib.rs `test_strengthened_round_numbers` (arity -> R_P).
* neptune v11.0.0 parameters/round_constants-1-1-255-9-8-57-73EDA753...txt: Grain round
  constants of the t = 9 (arity 8) instance (first three and last).
* neptune v11.0.0 src/hash_type.rs, test `test_domain_tags`: MerkleTree tag for U8 = 0xff.
* Curio lib/proof/post_vproof_test.go, `TestPoseidonHashMulti`: an arity-8 hash of real
  PoSt data as 32-byte little-endian Fr encodings (Filecoin's PoseidonDomain bytes).
"""

import numpy as np
import pytest

from cuzk.field import fields_of
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_constants import ARITIES, neptune_constants
from cuzk.gadgets.poseidon.neptune_gadget import num_constraints, poseidon_hash
from cuzk.gadgets.poseidon.neptune_native import hash_ints, hash_many
from cuzk.gadgets.poseidon.neptune_rounds import neptune_round_numbers
from cuzk.gadgets.poseidon.neptune_stamped import hash_template, hash_witness
from cuzk.r1cs import ONE, RecordingCS, TestCS
from cuzk.r1cs.coefficients import decode

from gadget_helpers import assert_satisfied_and_tamper_evident

FR = fields_of("bls12_381")[0]
P = FR.p


def limbs(*words: int) -> int:
    return sum(w << (64 * i) for i, w in enumerate(words))


# neptune src/poseidon.rs `hash_values`: hash of [0, 1, ..., arity - 1]
HASH_VALUES = {
    "standard": {
        2: limbs(0x2E203C369A02E7FF, 0xA6FBA9339D05A69D, 0x739E0FD902EFE161, 0x396508D75E76A56B),
        4: limbs(0x019814FF6662075D, 0xFB6B4605BF1327EC, 0x00DB3C6579229399, 0x58A54B10A9E5848A),
        8: limbs(0x2A9934F56D38A5E6, 0x4B682E9D9CC4AED9, 0x1201004211677077, 0x2394611DA3A5DE55),
        11: limbs(0xCEE3BBC32B693163, 0x09F3DCD8CCB08FC1, 0x6CA537E232EBE87A, 0x0C0FC1B2E5227F28),
        16: limbs(0x1291C74060266D37, 0x5B8DBC6D30680A6F, 0xC1C2FB5A6F871E63, 0x2D3AE2663381AE8A),
        24: limbs(0xD7EF3569F585B321, 0xC3E779F6468815B1, 0x066F39BF783F3D9F, 0x63BEB8831F11AE15),
        36: limbs(0x4473606DFA4E8140, 0x75CD368DF8A8AC3C, 0x540A30E03C10BBAA, 0x699303082A6E5D5F),
    },
    "strengthened": {
        2: limbs(0x793DBAF54552CD69, 0x5278ECBF17040EA6, 0xC48B36ECC4CAB748, 0x33D28A753BAEE41B),
        8: limbs(0x9F0C3C93C3FC894E, 0xE843D4CFBA662DF1, 0xD69AAE8FE1CB63E8, 0x69E61465981AE17E),
    },
}

# neptune src/circuit.rs `test_poseidon_hash`
NEPTUNE_CONSTRAINTS = {
    "standard": {2: 311, 4: 377, 8: 505, 16: 761, 24: 1009, 36: 1385},
    "strengthened": {2: 367, 4: 433, 8: 565, 16: 821, 24: 1069, 36: 1445},
}
ARITY_11_CONSTRAINTS = 598  # neptune's formula, see the module docstring

# neptune src/round_numbers.rs (t -> R_P) and src/lib.rs (arity -> strengthened R_P); R_F = 8
STANDARD_R_P = {2: 55, 3: 55, 4: 56, 5: 56, 6: 56, 7: 56, 8: 57, 9: 57, 10: 57, 11: 57, 12: 57, 13: 57,
                14: 57, 15: 57, 16: 59, 17: 59, 25: 59, 37: 60, 65: 61}
STRENGTHENED_R_P = {1: 69, 2: 69, 3: 70, 4: 70, 5: 70, 6: 70, 7: 72, 8: 72, 9: 72, 10: 72, 11: 72,
                    16: 74, 24: 74, 36: 75, 64: 77}

# neptune parameters/round_constants-1-1-255-9-8-57-...txt (585 constants)
GRAIN_T9 = {
    0: 0x6CE90D12C4045FE08C3CADDB776DD84AC52B4AE7E48CD49443984154F2F4C2F9,
    1: 0x0CCD9B480C84022B25A75B52C8E89D80B4FA6378D32E58F3A175504940BCEC39,
    2: 0x513AD11016AB7BB8C7CE9AE51256040E062487EDF7168D206BA1B86DFE963629,
    584: 0x3B3A75EB91B0F723BCC4AB7E449E4A011B8960063EFE74670C05E545519D9A8C,
}

# Curio lib/proof/post_vproof_test.go `TestPoseidonHashMulti`
CURIO_INPUTS = [
    "f743111428ecda9b74a18826f1cc62d48ae1510de17e58645997559f86442f31",
    "197a6efa37086e3a37108f8460c52bc810e2781aff0091bfd7b74e3f6f752f02",
    "01c2c12f7930bbb59e3b36dae1c694b33ac6b3f199ec32a8665fadb8338f4f21",
    "bbe672a853f65cdb2563339ca61d6ad648473b4b4ce44bf3a48486424b865a2d",
    "937d57295f488cea8099f5525958f1af39c6241614b917835292e8e2314cf908",
    "3272570cd8ba38c1183629ca72d5e9149d76786ed22c1d591db3d2bccfa7d308",
    "2d3fc90e11aaf601bd1beae80fc3aba15a9e1f886d8140533ce36cda3dd9f936",
    "0a017e264d0728bfcd2edb3c6c60cc5a05a02af31a71cdd7bb2da27616f5f630",
]
CURIO_OUTPUT = "0737ca506df7d4544f8512df35aaa07ed8a40691e96ae868c23320220fec6866"


def le_int(hexstr: str) -> int:
    return int.from_bytes(bytes.fromhex(hexstr), "little")


def mont(values) -> np.ndarray:
    return FR.from_ints(list(values))


# ---- constants ------------------------------------------------------------------------


def test_round_numbers():
    for t, r_p in STANDARD_R_P.items():
        assert neptune_round_numbers(t - 1) == (8, r_p), t
    for arity, r_p in STRENGTHENED_R_P.items():
        assert neptune_round_numbers(arity, "strengthened") == (8, r_p), arity


def test_grain_round_constants_and_tag():
    C = neptune_constants(8)
    assert len(C.round_constants) == 585
    for i, v in GRAIN_T9.items():
        assert C.round_constants[i] == v, i
    assert C.domain_tag == 0xFF
    assert len(C.compressed_round_constants) == C.R_F * C.t + C.R_P
    assert len(C.sparse_matrices) == C.R_P


# ---- native -----------------------------------------------------------------------------


@pytest.mark.parametrize("arity", ARITIES)
def test_neptune_hash_values(arity):
    expected = HASH_VALUES["standard"][arity]
    assert hash_ints(list(range(arity))) == expected
    assert FR.to_ints(hash_many(mont(range(arity)).reshape(1, arity, 4))) == [expected]


@pytest.mark.parametrize("arity", sorted(HASH_VALUES["strengthened"]))
def test_neptune_hash_values_strengthened(arity):
    expected = HASH_VALUES["strengthened"][arity]
    assert hash_ints(list(range(arity)), "strengthened") == expected
    assert FR.to_ints(hash_many(mont(range(arity)).reshape(1, arity, 4), "strengthened")) == [expected]


def test_curio_post_vector():
    xs = [le_int(h) for h in CURIO_INPUTS]
    assert hash_ints(xs) == le_int(CURIO_OUTPUT)
    got = hash_many(FR.from_bytes(b"".join(bytes.fromhex(h) for h in CURIO_INPUTS)).reshape(1, 8, 4))
    assert FR.to_bytes(got).hex() == CURIO_OUTPUT


@pytest.mark.parametrize("arity", ARITIES)
def test_hash_many_matches_hash_ints(arity):
    rng = np.random.default_rng(arity)
    n = 37 if arity <= 11 else 5
    xs = FR.random(n * arity, rng).reshape(n, arity, 4)
    xs[0] = mont([P - 1] * arity)
    got = FR.to_ints(hash_many(xs))
    assert got == [hash_ints(FR.to_ints(x)) for x in xs]


def test_hash_many_shapes():
    assert hash_many(np.zeros((0, 2, 4), np.uint64)).shape == (0, 4)
    with pytest.raises(ValueError):
        hash_many(np.zeros((3, 2), np.uint64))
    with pytest.raises(ValueError):
        hash_many(np.zeros((1, 3, 4), np.uint64))  # no arity-3 constants in Filecoin
    with pytest.raises(ValueError):
        hash_ints([P, 0])


# ---- gadget ----------------------------------------------------------------------------


@pytest.mark.parametrize("arity", ARITIES)
def test_constraint_counts(arity):
    cs = RecordingCS("bls12_381")
    xs = cs.alloc_many(arity)  # AllocatedNum::alloc in neptune's test: no constraints
    poseidon_hash(cs, xs.tolist())
    expected = NEPTUNE_CONSTRAINTS["standard"].get(arity, ARITY_11_CONSTRAINTS)
    assert cs.num_constraints == expected == num_constraints(arity)
    C = neptune_constants(arity)
    assert expected == 3 * (C.t * C.R_F + C.R_P - 1) + C.t * C.R_F + C.R_P - arity  # neptune's formula
    assert cs.num_aux == arity + expected  # one aux variable per constraint


def test_constraint_count_strengthened():
    assert hash_template(2, "strengthened").num_constraints == NEPTUNE_CONSTRAINTS["strengthened"][2]


def plain_sbox_inputs(values: list[int]) -> list[int]:
    """Every S-box input of the textbook permutation (round keys added, raw constants and
    MDS only, none of the preprocessed ones), in neptune's order, and the output."""
    C = neptune_constants(len(values))
    t, half = C.t, C.half_full_rounds
    state, seen = [C.domain_tag] + values, []
    for r in range(C.R_F + C.R_P):
        state = [(s + k) % P for s, k in zip(state, C.round_keys(r))]
        sboxes = range(t) if r < half or r >= half + C.R_P else range(1)
        seen += [state[i] for i in sboxes if (r, i) != (0, 0)]  # the tag's S-box is a constant
        for i in sboxes:
            state[i] = pow(state[i], 5, P)
        state = [sum(state[i] * C.mds[i][j] for i in range(t)) % P for j in range(t)]
    return seen + [state[1]]


@pytest.mark.parametrize("arity", [2, 8, 11])
def test_gadget_satisfied_and_witness_follows_the_textbook_permutation(arity):
    cs = TestCS("bls12_381")
    xs = [(7919 * i + 3) ** 9 % P for i in range(arity)]
    ins = [Num.alloc(cs, x) for x in xs]
    out = poseidon_hash(cs, ins)
    assert out.value == hash_ints(xs) == cs.value(out.single_var())
    assert cs.is_satisfied(), cs.which_is_unsatisfied()
    # aux layout: per input (x+k)^2, its square, (x+k)^5 + k'; then x, x^2, x^4, x^5 + k per S-box
    aux = cs.aux_assignment()
    vals = FR.to_ints(aux[arity:])
    plain = plain_sbox_inputs(xs)
    first = [vals[3 * i] for i in range(arity)]
    rest = [vals[3 * arity + 4 * j] for j in range((len(vals) - 3 * arity - 1) // 4)]
    assert first == [x * x % P for x in plain[:arity]]
    assert rest == plain[arity:-1]
    assert vals[-1] == plain[-1]
    assert_satisfied_and_tamper_evident(cs, samples=None if arity == 2 else 60)


def test_wrong_output_is_caught():
    cs = TestCS("bls12_381")
    ins = [Num.alloc(cs, x) for x in (1, 2)]
    out = poseidon_hash(cs, ins)
    claimed = Num.alloc_input(cs, out.value + 1)
    with cs.namespace("claim"):
        out.enforce_equal(cs, claimed, name="hash equals public input")
    assert cs.which_is_unsatisfied().startswith("claim/hash equals public input")
    # the hash result variable itself is bound by its constraint
    assert_satisfied_and_tamper_evident(_honest(), aux_indices=[2 + 311 - 1])


def _honest():
    cs = TestCS("bls12_381")
    poseidon_hash(cs, [Num.alloc(cs, x) for x in (1, 2)])
    return cs


def test_rejects_linear_forms_and_other_curves():
    cs = TestCS("bls12_381")
    a, b = Num.alloc(cs, 1), Num.alloc(cs, 2)
    with pytest.raises(ValueError):
        poseidon_hash(cs, [a + b, b])
    with pytest.raises(ValueError):
        poseidon_hash(TestCS("bn254"), [0, 0])


def rows_of(cs, row: int) -> list[dict[int, int]]:
    """Constraint `row` as {variable: coefficient mod p} for A, B, C."""
    out = []
    for m in cs.sparse_rows():
        start = int(m.lens[:row].sum())
        terms: dict[int, int] = {}
        for v, c in zip(m.vars[start : start + int(m.lens[row])].tolist(),
                        m.coeffs[start : start + int(m.lens[row])].tolist()):
            terms[v] = (terms.get(v, 0) + decode(c)) % P
        out.append({v: c for v, c in terms.items() if c})
    return out


def test_linear_combinations_follow_circuit_rs():
    """The LC shapes of neptune's s-box helpers for arity 2 (template inputs 1, 2; aux ~j)."""
    C = neptune_constants(2)
    k, t = C.compressed_round_constants, C.t
    tpl = RecordingCS("bls12_381")
    x1, x2 = tpl.alloc_input_many(2).tolist()
    poseidon_hash(tpl, [x1, x2])
    a = lambda j: ~j  # noqa: E731
    # square_sum: (x1 + k1) * (x1 + k1) = aux0
    assert rows_of(tpl, 0) == [{x1: 1, ONE: k[1]}, {x1: 1, ONE: k[1]}, {a(0): 1}]
    # AllocatedNum::square: aux0 * aux0 = aux1
    assert rows_of(tpl, 1) == [{a(0): 1}, {a(0): 1}, {a(1): 1}]
    # mul_sum pre and post: A = x1 + k1, B = l4 (not swapped), C = res - k'
    assert rows_of(tpl, 2) == [{x1: 1, ONE: k[1]}, {a(1): 1}, {a(2): 1, ONE: (-k[t + 1]) % P}]
    # round 1, s-box 0: ensure_allocated of the MDS form (tag folded to a constant), B = ONE
    tag5 = (pow((C.domain_tag + k[0]) % P, 5, P) + k[t]) % P
    form = {ONE: tag5 * C.mds[0][0] % P, a(2): C.mds[1][0], a(5): C.mds[2][0]}
    assert rows_of(tpl, 6) == [form, {ONE: 1}, {a(6): 1}]
    # quintic_s_box: x * x^4 + k with A = x, B = x^4
    assert rows_of(tpl, 9) == [{a(6): 1}, {a(8): 1}, {a(9): 1, ONE: (-k[2 * t]) % P}]
    # terminal round: no key; then the output allocated from state element 1 (a form)
    n = num_constraints(2)
    assert rows_of(tpl, n - 2) == [{a(n - 5): 1}, {a(n - 3): 1}, {a(n - 2): 1}]
    last = rows_of(tpl, n - 1)
    assert last[1:] == [{ONE: 1}, {a(n - 1): 1}]
    assert set(last[0]) == {a(n - 2 - 4 * j) for j in range(t)}  # the last round's x^5 variables


# ---- stamped template + vectorized witness ---------------------------------------


@pytest.mark.parametrize("arity", [2, 8, 11])
def test_stamped_template_and_witness_equal_the_gadget(arity):
    n = 3
    xs = FR.random(n * arity, np.random.default_rng(100 + arity)).reshape(n, arity, 4)
    g = hash_template(arity)
    assert g.num_inputs == arity and g.num_aux == g.num_constraints == num_constraints(arity)
    assert g.outputs.tolist() == [g.num_aux - 1]
    aux, out = hash_witness(xs)
    assert aux.shape == (n, g.num_aux, 4) and np.array_equal(out, aux[:, -1])
    assert np.array_equal(out, hash_many(xs))

    direct, stamped = TestCS("bls12_381"), TestCS("bls12_381")
    for k in range(n):
        poseidon_hash(direct, [Num.alloc(direct, v) for v in FR.to_ints(xs[k])])
        ins = stamped.alloc_many(arity, xs[k])
        outs = g.stamp(stamped, ins.reshape(1, arity), aux[k : k + 1])
        assert stamped.value(int(outs[0, 0])) == FR.to_int(out[k])
    assert np.array_equal(direct.witness(), stamped.witness())
    assert direct.compile().topology_hash == stamped.compile().topology_hash
    assert stamped.is_satisfied(), stamped.which_is_unsatisfied()


def test_stamped_wrong_output_is_caught():
    xs = FR.random(4, np.random.default_rng(7)).reshape(2, 2, 4)
    aux, _ = hash_witness(xs)
    aux[1, -1] = mont([FR.to_int(aux[1, -1]) + 1])[0]
    cs = TestCS("bls12_381")
    ins = cs.alloc_many(4, xs.reshape(4, 4)).reshape(2, 2)
    hash_template(2).stamp(cs, ins, aux)
    assert cs.which_is_unsatisfied().startswith(f"stamp[1]/row {num_constraints(2) - 1}")
