"""Our SHA-256 / UInt32 / Boolean gadgets produce bellperson's R1CS, constraint for constraint.

The expected fingerprints were made outside this repository by running the reference
sources themselves -- bellperson's gadgets/sha256.rs, uint32.rs, multieq.rs, multipack.rs,
bellpepper-core 0.2's boolean.rs, num.rs, lc.rs, constraint_system.rs, and rust-fil-proofs'
Sha256Function::hash_circuit / hash2_circuit bodies (filecoin-hashers/src/sha256.rs), all
unmodified but for import paths -- on BLS12-381's scalar field, with a recording
ConstraintSystem that writes each circuit below in `canonical_text`'s form: a header line,
then per constraint "A | B | C", each side its terms "i<input>:<coeff>" / "a<aux>:<coeff>"
(duplicates merged, zeros dropped, sorted by kind then index, coefficients canonical
decimals). The SHA-256 of that text must match; equal text means the same variables in the
same order and the same constraints in the same order with the same linear combinations.
"""

import hashlib

import numpy as np
import pytest

from cuzk.gadgets.boolean import Boolean, and_, sha256_ch, sha256_maj, xor
from cuzk.gadgets.multieq import MultiEq
from cuzk.gadgets.num import Num
from cuzk.gadgets.sha256.filecoin import hash2_circuit, hash_circuit
from cuzk.gadgets.sha256.gadget import compression_words, sha256, sha256_block_no_padding, words_from_bits
from cuzk.gadgets.uint32 import UInt32
from cuzk.r1cs import RecordingCS

# name -> (constraints, aux, SHA-256 of bellperson's canonical text)
BELLPERSON = {
    "boolean_ops": (703, 703, "a2f6649fbd630117fadad4c50570f7950c41db964523839da31171b28ddee1ed"),
    "uint32_ops": (528, 526, "509385324a7bdc9786b46bd7d0d4dc462e7921f7198e66ca0fdb4a178990c0eb"),
    "full_block": (26352, 26326, "306c5a9d42823763597429b1e16c455775ac49bedae83430922f34c07cc7948e"),
    "compression_var_state": (26960, 26934, "0d44a72edd1b0fa00b223d1229e17e7056a1783639631cea8a4dac73f79d0d37"),
    "mixed_1024": (71717, 71645, "ddbd412a8891280fb5b607ae5ca7bbf5259c9ae0b0e79610d40ee71967c1a7bc"),
    "hash_3_bytes": (24394, 24368, "8b1b5bfc90916200afd59b7bec331ebf61e29335446c2ee5851bb71a297ad935"),
    "hash_55_bytes": (26029, 26003, "ca9d29ef0b7852c97d7f6d66be953ecb87884ee02c745742c14fe74026f2ea8e"),
    "hash_56_bytes": (45092, 45046, "e0b5b6aca253c6878ffe2584b6a00ce1266f929af76f27c480e7852e68aa67d4"),
    "fil_hash_circuit": (45387, 45341, "68c3f728e592b97ce3d3f792f3cf21f99ca600d34bd0821452d9cd0b15d71e17"),
    "fil_hash2_circuit": (45379, 45333, "128cea3f21dd47c2a06451566361a9e5b62d5219e5bdc357ac734e8f506e45a7"),
}


def _bits(cs, n):
    return [Boolean.alloc(cs) for _ in range(n)]


def _mixed_bits(cs, n):
    """Bit i: constant (i % 11 == 0, value: i even), a negated new bit (i % 3 == 0), else a new bit."""
    return [Boolean.constant(i % 2 == 0) if i % 11 == 0 else ~Boolean.alloc(cs) if i % 3 == 0 else Boolean.alloc(cs)
            for i in range(n)]


def _boolean_ops(cs):
    """xor and and_ of every pair, sha256_ch and sha256_maj of every triple of literals."""
    a, b, c = _bits(cs, 3)
    lits = [a, ~a, b, ~b, c, Boolean.constant(True), Boolean.constant(False)]
    for x in lits:
        for y in lits:
            xor(cs, x, y)
            and_(cs, x, y)
    for x in lits:
        for y in lits:
            for z in lits:
                sha256_ch(cs, x, y, z)
                sha256_maj(cs, x, y, z)


def _uint32_ops(cs):
    """Word gadgets with plain, negated and constant bits; 2..10-word sums on one MultiEq."""
    w1 = UInt32.alloc(cs)
    w2 = UInt32.from_bits(_mixed_bits(cs, 32))
    k = UInt32.constant(0x9E3779B9)
    x = w1.xor(cs, w2.rotr(7))
    ch = UInt32.sha256_ch(cs, w1, w2, k)
    mj = UInt32.sha256_maj(cs, x, w2.shr(3), k)
    with MultiEq(cs) as meq:
        UInt32.addmany(meq, [k, UInt32.constant(5)])
        UInt32.addmany(meq, [w1, w2])
        UInt32.addmany(meq, [w1, w2, k])
        for n in range(2, 11):
            UInt32.addmany(meq, [[x, ch, mj.rotr(i), k][i % 4] for i in range(n)])


def _var_state(cs):
    b = _bits(cs, 768)
    compression_words(cs, words_from_bits(b[:256]), words_from_bits(b[256:]))


BUILD = {
    "boolean_ops": _boolean_ops,
    "uint32_ops": _uint32_ops,
    "full_block": lambda cs: sha256_block_no_padding(cs, _bits(cs, 512)),
    "compression_var_state": _var_state,
    "mixed_1024": lambda cs: sha256(cs, _mixed_bits(cs, 1024)),
    "hash_3_bytes": lambda cs: sha256(cs, _bits(cs, 24)),
    "hash_55_bytes": lambda cs: sha256(cs, _bits(cs, 440)),
    "hash_56_bytes": lambda cs: sha256(cs, _bits(cs, 448)),
    "fil_hash_circuit": lambda cs: hash_circuit(cs, _bits(cs, 512)),
    "fil_hash2_circuit": lambda cs: hash2_circuit(cs, Num.alloc(cs, None), Num.alloc(cs, None)),
}


def canonical_text(cs) -> str:
    cc = cs.compile()
    table = [str(v) for v in cc.coefficient_ints()]
    ni = cc.num_inputs
    names = [f"i{c}" for c in range(ni)] + [f"a{c}" for c in range(cc.num_vars - ni)]
    sides = []
    for m in cc.matrices:
        indptr = np.asarray(m.indptr[: cc.num_constraints + 1], dtype=np.int64)
        end = int(indptr[-1])
        cols = np.asarray(m.cols[:end], dtype=np.int64)
        co = np.asarray(m.coeff_idx[:end], dtype=np.int64)
        order = np.lexsort((cols, np.repeat(np.arange(cc.num_constraints), np.diff(indptr))))
        cols, co = cols[order].tolist(), co[order].tolist()  # columns: inputs, then aux: the canonical order
        terms = [f"{names[c]}:{table[k]}" for c, k in zip(cols, co)]
        sides.append([" ".join(terms[indptr[r] : indptr[r + 1]]) for r in range(cc.num_constraints)])
    head = f"# {cc.num_constraints} constraints {cs.num_aux} aux {cs.num_inputs} inputs\n"
    return head + "".join(f"{a} | {b} | {c}\n" for a, b, c in zip(*sides))


@pytest.mark.parametrize("name", list(BELLPERSON))
def test_r1cs_equals_bellpersons(name):
    cs = RecordingCS("bls12_381")
    BUILD[name](cs)
    constraints, aux, digest = BELLPERSON[name]
    assert (cs.num_constraints, cs.num_aux) == (constraints, aux)
    assert hashlib.sha256(canonical_text(cs).encode()).hexdigest() == digest
