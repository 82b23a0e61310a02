"""Every workload model (porep-c2-like, snap-like): satisfied by generated vanilla proofs, not
satisfied when a path element, a label (or leaf) or a public input changes; analytic counts equal
built circuits; inputs checked on decode. Filecoin's PoSt circuits have theirs in tests/filecoin."""

import numpy as np
import pytest

from cuzk.circuits import KINDS, UnknownKind, get_kind, preset_for
from cuzk.errors import FormatError
from cuzk.formats.vanilla import generate_vanilla, parse_vanilla
from cuzk.r1cs import RecordingCS, check_satisfied

TINY_SEED = 11

# per kind: (array, index) of a path element and of a label/leaf to alter
# (index into the vanilla array: partition, challenge, ..., byte 0)
ALTER = {
    "porep-c2-like": {
        "path": [("data_paths", (-1, 0, 1, 0)), ("column_paths", (-1, 0, 1, 0, 3, 0)),
                 ("replica_paths", (-1, 0, 0, 6, 0))],
        "label": [("columns", (-1, 0, 0, 1, 0)), ("columns", (-1, 0, 1, 0, 0)), ("data_leaves", (-1, 0, 0)),
                  ("replica_leaves", (-1, 0, 0))],
    },
    "snap-like": {
        "path": [("data_paths", (-1, 0, 0, 0)), ("partition_paths", (-1, 2, 0)), ("old_paths", (-1, 0, 1, 3, 0)),
                 ("new_paths", (-1, 0, 0, 0, 0))],
        "label": [("data_leaves", (-1, 0, 0)), ("apex_leaves", (-1, 1, 0)), ("new_leaves", (-1, 0, 0))],
    },
}


@pytest.fixture(scope="module", params=list(KINDS))
def tiny(request):
    kind = get_kind(request.param)
    vanilla = generate_vanilla(kind, "tiny", TINY_SEED)
    return kind, kind.compile("tiny"), parse_vanilla(kind, "tiny", vanilla)


def test_tiny_every_partition_satisfied(tiny):
    kind, cc, parsed = tiny
    public = kind.public_inputs("tiny", parsed)
    assert len(public) == kind.partitions
    for p in range(kind.partitions):
        w, pub = kind.witness("tiny", parsed, p)
        assert w.shape == (cc.num_vars, 4)
        assert pub == public[p] and len(pub) == cc.num_inputs - 1
        assert check_satisfied(cc, w) is None


def _altered(parsed, name, index):
    bad = parsed.copy()
    idx = tuple(index)
    bad.arrays[name][idx] ^= 1  # lowest bit of a 32-byte LE node: stays a field element / 254-bit node
    return bad


@pytest.mark.parametrize("what", ["path", "label"])
def test_tiny_altered_input_unsatisfied(tiny, what):
    kind, cc, parsed = tiny
    for name, index in ALTER[kind.name][what]:
        bad = _altered(parsed, name, index)
        p = index[0] % kind.partitions if bad.arrays[name].ndim > 1 else kind.partitions - 1
        w, _ = kind.witness("tiny", bad, p)
        assert check_satisfied(cc, w) is not None, f"{name}{index} altered, still satisfied"


def test_tiny_altered_public_input_unsatisfied(tiny):
    kind, cc, parsed = tiny
    p = kind.partitions - 1
    w, _ = kind.witness("tiny", parsed, p)
    fr = cc.fr
    for i in range(1, cc.num_inputs):
        bad = w.copy()
        bad[i] = fr.add(bad[i : i + 1], fr.ones(1))[0]
        assert check_satisfied(cc, bad) is not None, f"public input {i} changed, still satisfied"


def test_tiny_altered_challenge_index_unsatisfied(tiny):
    kind, cc, parsed = tiny
    bad = parsed.copy()
    ch = bad.arrays["challenges"]
    ch.reshape(-1)[-1] ^= 1  # another node, same vanilla paths
    w, _ = kind.witness("tiny", bad, kind.partitions - 1)
    assert check_satisfied(cc, w) is not None


@pytest.mark.parametrize("name", list(KINDS))
def test_small_satisfied(name):
    kind = get_kind(name)
    cc = kind.compile("small")
    parsed = parse_vanilla(kind, "small", generate_vanilla(kind, "small", 5))
    for p in sorted({0, kind.partitions - 1}):
        w, _ = kind.witness("small", parsed, p)
        assert check_satisfied(cc, w) is None
    bad = _altered(parsed, *ALTER[name]["path"][0])
    w, _ = kind.witness("small", bad, kind.partitions - 1)
    assert check_satisfied(cc, w) is not None


@pytest.mark.parametrize("preset", ["tiny", "small", "medium"])
@pytest.mark.parametrize("name", list(KINDS))
def test_counts_equal_built_circuit(name, preset):
    kind = get_kind(name)
    cs = RecordingCS(kind.curve)
    kind.synthesize(cs, preset)
    c = kind.counts(preset)
    assert (cs.num_constraints, cs.num_aux, cs.num_inputs) == (c.constraints, c.aux, c.inputs)


def test_preset_targets_and_32g_counts():
    for name in KINDS:
        kind = get_kind(name)
        sizes = [kind.counts(p).constraints for p in kind.presets]
        assert sizes == sorted(sizes), f"{name}: presets do not grow"
        assert kind.counts("medium").rows <= 1 << 20 and kind.counts("large").rows <= 1 << 24
    porep = get_kind("porep-c2-like").counts("32g")
    assert abs(porep.constraints - 130_278_869) / 130_278_869 < 0.02 and porep.domain_log2 == 27
    assert get_kind("snap-like").counts("32g").domain_log2 == 27


def test_kind_metadata_and_presets():
    assert {k.proof_kind for k in KINDS.values()} == {"POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE"}
    assert get_kind("SNAP_DEALS_UPDATE").name == "snap-like"
    assert (get_kind("porep-c2-like").partitions, get_kind("snap-like").partitions) == (10, 16)
    assert get_kind("porep-c2-like").default_priority == "NORMAL" and get_kind("porep-c2-like").batchable
    with pytest.raises(UnknownKind, match="have porep-c2-like, snap-like"):
        get_kind("WINNING_POST")  # Filecoin's PoSt: cuzk.circuits.filecoin, not a workload model
    assert preset_for(sector_size=32 << 30) == "32g" and preset_for(sector_size=2048) == "tiny"
    assert preset_for(registered_proof=13) == "32g" and preset_for(registered_proof=3) == "32g"
    assert preset_for(registered_proof=1) == "small"


def test_vanilla_checked_on_decode():
    kind = get_kind("snap-like")
    data = generate_vanilla(kind, "tiny", 1)
    with pytest.raises(FormatError):
        parse_vanilla(kind, "small", data)  # made for another shape
    with pytest.raises(FormatError):
        parse_vanilla(get_kind("porep-c2-like"), "tiny", data)  # another kind
    with pytest.raises(FormatError):
        parse_vanilla(kind, "tiny", data[:-40])
    parsed = parse_vanilla(kind, "tiny", data).copy()
    parsed.arrays["new_leaves"][0, 0, 31] = 0xFF  # >= r: not a field element
    with pytest.raises(FormatError, match="field element"):
        kind.witness("tiny", parsed, 0)
    assert generate_vanilla(kind, "tiny", 1) == data  # seeded generation is deterministic


def test_aux_values_mostly_bits_for_sha_kinds(tiny):
    from cuzk.r1cs.evaluation import value_fractions

    kind, cc, parsed = tiny
    w, _ = kind.witness("tiny", parsed, 0)
    zero, one, other = value_fractions(cc.fr, w[cc.num_inputs:])
    assert abs(zero + one + other - 1) < 1e-9
    if kind.name in ("porep-c2-like", "snap-like"):
        assert zero + one > 0.95
    else:
        assert other > 0.5  # Poseidon-only circuits: mostly full field elements


@pytest.mark.parametrize("preset", ["tiny", "small"])
@pytest.mark.parametrize("name", list(KINDS))
def test_witness_into_a_buffer_equals_the_test_systems_checked_values(name, preset):
    """kind.witness (bit-sliced tapes, one-pass assembly, written into a caller's buffer)
    equals the values of the same synthesis in TestCS, which checks every constraint
    with Python ints, and satisfies the compiled circuit."""
    from cuzk.r1cs import TestCS

    kind = get_kind(name)
    parsed = parse_vanilla(kind, preset, generate_vanilla(kind, preset, 7))
    cc = kind.compile(preset)
    p = kind.partitions - 1
    t = TestCS(kind.curve)
    kind.synthesize(t, preset, kind.partition_inputs(preset, parsed, p))
    assert t.is_satisfied(), t.which_is_unsatisfied()
    buf = np.zeros((cc.num_vars, 4), dtype=np.uint64)
    w, _ = kind.witness(preset, parsed, p, out=buf)
    assert w is buf
    assert np.array_equal(w, t.witness())
    assert check_satisfied(cc, w) is None
