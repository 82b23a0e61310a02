"""The PoRep C1 output Curio sends (cuzk.circuits.filecoin.porep.c1_layout,
c1_read, c1_write, c1_verify): byte-exact round trips, a sealed
2 KiB sector through encode -> decode -> the circuit, every tampering named, the layout against a
hand-written fragment read off the Rust serde derives, and the large shapes (Sub / Top paths) from a
sparse sealing (slow)."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re

import numpy as np
import pytest

from cuzk.circuits.filecoin.porep.challenges import interactive_challenges
from cuzk.circuits.filecoin.porep.config import porep_config
from cuzk.circuits.filecoin.porep.vanilla_gen import make_replica
from cuzk.circuits.filecoin.porep.vanilla_proof import PorepPartitionProof
from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, random_fr, random_nodes, to_mont
from cuzk.circuits.filecoin.porep.c1_layout import API_NAMES, GO_ORDER, C1Output, _column_hashes, _labeling_parents
from cuzk.circuits.filecoin.porep.c1_read import decode_c1
from cuzk.circuits.filecoin.porep.c1_verify import check_c1
from cuzk.circuits.filecoin.porep.c1_write import encode_c1

SEED = bytes(range(32))
TICKET = bytes(range(100, 132))


# ---------------------------------------------------------------- generators


def sealed_c1(number: int = 5, seed: int = 11, sector_number: int | None = 234) -> tuple[C1Output, object]:
    """A whole sealed random sector (make_replica) of a small registered proof, as Curio would send it."""
    cfg = porep_config(number)
    rep = make_replica(cfg, seed)
    parts = [rep.partition_proof(SEED, k) for k in range(cfg.partitions)]
    c1 = C1Output(number, rep.comm_r.copy(), rep.comm_d.copy(), rep.replica_id.copy(),
                  np.frombuffer(SEED, np.uint8).copy(), np.frombuffer(TICKET, np.uint8).copy(), parts,
                  sector_number=sector_number, sector_size=cfg.sector_size if sector_number is not None else None)
    return c1, rep


def _sparse_tree(index: np.ndarray, leaves: np.ndarray, arities, parent, rng):
    """A Merkle tree known only along the paths of `index` (other subtrees: random nodes).
    Returns (root [32], per level siblings [M, a - 1, 32] of each of the M leaves)."""
    idx = np.asarray(index, dtype=np.int64)
    uniq, inv = np.unique(idx, return_inverse=True)
    vals = np.zeros((len(uniq), 32), dtype=np.uint8)
    vals[inv] = leaves
    cur_idx, cur = uniq, vals
    pos = idx.copy()
    sibs = []
    for a in arities:
        par, pinv = np.unique(cur_idx // a, return_inverse=True)
        kids = random_nodes(rng, (len(par), a))
        kids[pinv, cur_idx % a] = cur
        keep = np.arange(a)[None, :] != (pos % a)[:, None]
        row = np.searchsorted(par, pos // a)
        sibs.append(kids[row][keep].reshape(len(pos), a - 1, 32))
        cur_idx, cur, pos = par, parent(kids), pos // a
    assert len(cur) == 1
    return cur[0], sibs


def sparse_c1(number: int, seed: int = 1, sector_number: int = 7) -> C1Output:
    """A valid C1 output of any size without sealing a sector: the trees are built only along the
    opened paths, columns of the parents are random labels and each challenged column is computed
    from them (so every check of check_c1 holds)."""
    from cuzk.circuits.filecoin.porep.sdr import SdrGraph
    from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children
    from cuzk.gadgets.sha256.filecoin import sha254_many

    cfg = porep_config(number)
    P, C, L = cfg.partitions, cfg.challenges, cfg.layers
    rng = np.random.default_rng(seed)
    replica_id = random_fr(rng, 1)[0]
    seed_b = rng.integers(0, 256, 32, dtype=np.uint8)
    ticket = rng.integers(0, 256, 32, dtype=np.uint8)
    ch = np.concatenate([interactive_challenges(cfg, bytes(replica_id), bytes(seed_b), p) for p in range(P)])
    graph = SdrGraph.for_proof(number)
    parents = graph.parents(ch.astype(np.int64)).astype(np.uint64)
    assert not np.isin(ch, parents).any(), "a challenge is another's parent: pick another seed"
    N = P * C
    # parents' columns: one random column per node
    pu, pinv = np.unique(parents, return_inverse=True)
    rows = np.empty((N, 15, L, 32), dtype=np.uint8)
    rows[:, 1:] = random_nodes(rng, (len(pu), L))[pinv.reshape(N, 14)]
    lab = _labeling_parents(rows)
    head = np.zeros((N, L, 64), dtype=np.uint8)
    head[:, :, :32] = replica_id
    head[:, :, 32:36] = np.arange(1, L + 1, dtype=">u4").view(np.uint8).reshape(L, 4)
    head[:, :, 36:44] = ch.astype(">u8").view(np.uint8).reshape(N, 1, 8)
    rows[:, 0] = sha254_many(np.concatenate([head, lab.reshape(N, L, -1)], axis=2).reshape(N * L, -1)).reshape(N, L, 32)
    cu, cinv = np.unique(ch, return_inverse=True)
    data = random_nodes(rng, len(cu))[cinv]
    replica = from_mont(fr().add(to_mont(rows[:, 0, L - 1]), to_mont(data)))

    def poseidon(kids):
        return from_mont(hash_children(to_mont(kids)))

    col_index = np.concatenate([ch[:, None], parents], axis=1).reshape(-1).astype(np.int64)
    comm_c, csibs = _sparse_tree(col_index, _column_hashes(rows).reshape(-1, 32), cfg.arities, poseidon, rng)
    comm_r_last, rsibs = _sparse_tree(ch, replica, cfg.arities, poseidon, rng)
    comm_d, dsibs = _sparse_tree(ch, data, (2,) * cfg.tree_d_depth,
                                 lambda k: sha254_many(k.reshape(len(k), 64)), rng)
    comm_r = comm_r_of(comm_c, comm_r_last)[0]
    csibs = [s.reshape(N, 15, -1, 32) for s in csibs]
    dpaths = np.concatenate(dsibs, axis=1)
    parts = []
    for p in range(P):
        sl = slice(p * C, (p + 1) * C)
        parts.append(PorepPartitionProof(
            replica_id=replica_id.copy(), comm_d=comm_d.copy(), comm_r=comm_r.copy(), comm_c=comm_c.copy(),
            comm_r_last=comm_r_last.copy(), challenges=ch[sl], parents=parents[sl], data_leaves=data[sl],
            data_paths=dpaths[sl], parent_columns=rows[sl, 1:], parent_paths=tuple(s[sl, 1:] for s in csibs),
            columns=rows[sl, 0], column_paths=tuple(s[sl, 0] for s in csibs), replica_leaves=replica[sl],
            replica_paths=tuple(s[sl] for s in rsibs)))
    return C1Output(number, comm_r, comm_d, replica_id, seed_b, ticket, parts, sector_number=sector_number,
                    sector_size=cfg.sector_size)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def c1_2k():
    c1, rep = sealed_c1()
    return c1, rep, encode_c1(c1, envelope=False), encode_c1(c1)


def _inner(env: bytes) -> bytes:
    return base64.b64decode(json.loads(env)["Phase1Out"])


def _envelope(inner: bytes, number=234, size=2048) -> bytes:
    return (b'{"SectorNum":%d,"Phase1Out":"' % number + base64.b64encode(inner) + b'","SectorSize":%d}' % size)


# ---------------------------------------------------------------- round trips and the circuit


def test_round_trip_is_byte_exact(c1_2k):
    c1, rep, bare, env = c1_2k
    assert encode_c1(decode_c1(bare)) == bare
    assert encode_c1(decode_c1(env)) == env
    assert _inner(env) == bare
    d = decode_c1(env)
    assert (d.sector_number, d.sector_size, d.registered_proof, d.proof_name) == (234, 2048, 5, "StackedDrg2KiBV1_1")
    # Curio's Go re-encode (Commit1OutRaw): the top-level keys in Go's order, the rest the same
    go = json.dumps({k: json.loads(bare)[k] for k in GO_ORDER}, separators=(",", ":")).encode()
    dg = decode_c1(go)
    assert dg.key_order == GO_ORDER and encode_c1(dg) == go
    # whitespace (valid JSON) is read too
    assert encode_c1(decode_c1(json.dumps(json.loads(bare), indent=1).encode())) == bare


def test_decoded_arrays_are_the_generators_and_satisfy_the_circuit(c1_2k):
    from cuzk.circuits.filecoin.porep import stamped as ps
    from cuzk.circuits.filecoin.porep.unsatisfied import first_unsatisfied

    c1, rep, bare, env = c1_2k
    d = decode_c1(env, registered_proof=5)
    want = rep.partition_proof(SEED, 0)
    got = d.partitions[0]
    for f in dataclasses.fields(PorepPartitionProof):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if isinstance(b, tuple):
            assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b)), f.name
        else:
            assert np.array_equal(a, b) and a.shape == b.shape, f.name
    for k in ("comm_r", "comm_d", "replica_id"):
        assert np.array_equal(getattr(d, k), getattr(rep, k))
    assert bytes(d.seed) == SEED and bytes(d.ticket) == TICKET
    assert first_unsatisfied(c1.config, ps.PorepInputs.from_proof(got), got.public_inputs(), challenges=[0]) is None


# ---------------------------------------------------------------- tampering


def _nth(doc: bytes, key: bytes, n: int = 0) -> int:
    return [m.end() for m in re.finditer(re.escape(key), doc)][n]


def _set_number(doc: bytes, at: int, value: int) -> bytes:
    m = re.compile(rb"\d+").match(doc, at)
    return doc[:at] + str(value).encode() + doc[m.end():]


def _raises(doc: bytes, *words: str, **kw):
    with pytest.raises(ValueError) as e:
        check_c1(decode_c1(doc, **kw))
    msg = str(e.value)
    for w in words:
        assert w in msg, msg
    return msg


def test_tampered_sibling_byte_is_named(c1_2k):
    bare = c1_2k[2]
    # a tree D sibling
    at = _nth(bare, b'"hashes":[[', 0)
    v = int(re.compile(rb"\d+").match(bare, at).group())
    _raises(_set_number(bare, at, v ^ 1), "partition 0, challenge 0", "comm_d_proofs")
    # a tree C sibling of exp parent 2: the column's path no longer reaches comm_c
    at = _nth(bare, b'"exp_parents":[')
    at = _nth(bare[at:], b'"hashes":[[', 2 * 2) + at  # 2 levels per path: parent 2's first level
    v = int(re.compile(rb"\d+").match(bare, at).group())
    _raises(_set_number(bare, at, v ^ 2), "partition 0, challenge 0", "exp_parents[2]", "comm_c")


def test_tampered_column_label_is_named(c1_2k):
    bare = c1_2k[2]
    at = _nth(bare, b'"drg_parents":[') 
    at = _nth(bare[at:], b'"rows":[[') + at
    v = int(re.compile(rb"\d+").match(bare, at).group())
    # the column no longer hashes to its path's leaf; the labeling proofs no longer repeat it
    _raises(_set_number(bare, at, v ^ 4), "partition 0, challenge 0", "drg_parents[0]", "leaf")


def test_tampered_commitments_and_challenges_are_named(c1_2k):
    c1, rep, bare, env = c1_2k
    doc = json.loads(bare)
    doc["comm_r"][0] ^= 1
    _raises(json.dumps(doc, separators=(",", ":")).encode(), "comm_r", "Poseidon(comm_c, comm_r_last)")
    doc = json.loads(bare)
    doc["comm_d"][0] ^= 1
    _raises(json.dumps(doc, separators=(",", ":")).encode(), "comm_d_proofs.root", "not comm_d")
    # another challenge, consistent everywhere (a re-encoded partition): refused by the derivation
    bad = dataclasses.replace(c1, partitions=[rep.partition_proof(bytes(32), 0)], sector_number=None)
    _raises(encode_c1(bad), "partition 0, challenge 0", "c_x.column.index", "seed derive")
    # a challenge index changed in place: its paths no longer open it
    at = _nth(bare, b'"c_x":{"column":{"index":')
    _raises(_set_number(bare, at, 3), "partition 0, challenge 0", "path", "do not open")


def test_malformed_documents_are_named(c1_2k):
    c1, rep, bare, env = c1_2k
    _raises(env[: len(env) // 2], "Phase1Out")  # truncated envelope
    _raises(bare[: len(bare) // 2], "vanilla_proofs")  # truncated JSON
    _raises(bare[:-1], "document")
    _raises(_envelope(bare)[:40] + b"!" + _envelope(bare)[41:], "Phase1Out", "base64")
    _raises(_envelope(bare[:-300]), "Phase1Out")
    _raises(_envelope(bare, size=4096), "SectorSize")
    _raises(bare.replace(b'"StackedDrg2KiBV1_1"', b'"StackedDrg8MiBV1_1"'), "vanilla_proofs", "StackedDrg8MiBV1")
    _raises(bare.replace(b'"StackedDrg2KiBV1_1"', b'"StackedDrg2KiBV9"'), "registered_proof", "unknown")
    _raises(bare, "registered_proof", registered_proof=6)
    # the V1 graph (api 1.0.0, legacy DRG order) gives other parents
    _raises(bare.replace(b'"StackedDrg2KiBV1_1"', b'"StackedDrg2KiBV1"'), "column.index", "graph's parent")
    _raises(bare.replace(b'"_h":null', b'"_h":0', 1), "partition 0, challenge 0", "c_x.column")
    _raises(bare.replace(b'"index":1', b'"index":01', 1), "leading zero")
    _raises(bare.replace(b'"labeling_proofs":[', b'"labeling_proofs":[[', 1), "labeling_proofs[0]")
    at = _nth(bare, b'"leaf":[')
    _raises(_set_number(bare, at, 256), "comm_d_proofs.data.Single.leaf", "not a byte")
    _raises(bare.replace(b'"seed"', b'"sead"'), "sead")
    _raises(b"[]", "document")
    _raises(b"", "document")
    with pytest.raises(ValueError):
        decode_c1("text")


# ---------------------------------------------------------------- the layout, from the Rust sources


def test_layout_matches_the_serde_derives():
    """A hand-written fragment of one stacked::Proof's JSON, key by key from the derives (values
    elided to the shapes): the encoder's keys, nesting and order must be these."""
    B = "[" + ",".join(["0"] * 32) + "]"  # a Domain: [u8; 32] newtype (filecoin-hashers sha256.rs / poseidon.rs)

    def path(arities_minus_one):  # InclusionPath {path: Vec<PathElement {hashes, index}>} (merkle/proof.rs)
        return '{"path":[' + ",".join('{"hashes":[' + ",".join([B] * k) + '],"index":0}'
                                      for k in arities_minus_one) + "]}"

    single = lambda k: '{"data":{"Single":{"root":' + B + ',"leaf":' + B + ',"path":' + path(k) + "}}}"  # noqa
    # Column {index: u32, rows: Vec<Domain>, _h: PhantomData (no serde(skip) -> null)} (vanilla/column.rs);
    # ColumnProof {column, inclusion_proof} (vanilla/column_proof.rs)
    cp = '{"column":{"index":0,"rows":[' + B + "," + B + '],"_h":null},"inclusion_proof":' + single([7, 7]) + "}"
    # LabelingProof / EncodingProof {parents, layer_index: u32, node: u64; _h skipped} (labeling_proof.rs)
    lp = lambda layer: '{"parents":[' + ",".join([B] * 37) + '],"layer_index":' + str(layer) + ',"node":0}'  # noqa
    # stacked::Proof {comm_d_proofs, comm_r_last_proof, replica_column_proofs {c_x, drg_parents,
    # exp_parents}, labeling_proofs, encoding_proof} (storage-proofs-porep vanilla/params.rs)
    proof = ('{"comm_d_proofs":' + single([1] * 6) + ',"comm_r_last_proof":' + single([7, 7]) +
             ',"replica_column_proofs":{"c_x":' + cp + ',"drg_parents":[' + ",".join([cp] * 6) +
             '],"exp_parents":[' + ",".join([cp] * 8) + ']},"labeling_proofs":[' + lp(1) + "," + lp(2) +
             '],"encoding_proof":' + lp(2) + "}")
    # SealCommitPhase1Output {registered_proof, vanilla_proofs: VanillaSealProof::StackedDrg2KiBV1(Vec<Vec<_>>),
    # comm_r, comm_d, replica_id, seed, ticket} (rust-filecoin-proofs-api src/seal.rs)
    doc = ('{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[' + proof + "," +
           proof + ']]},"comm_r":' + B + ',"comm_d":' + B + ',"replica_id":' + B + ',"seed":' + B +
           ',"ticket":' + B + "}")
    c1, _ = sealed_c1(sector_number=None)
    mine = encode_c1(c1)
    zero = lambda d: re.sub(rb"\d+", b"0", d)  # noqa: E731  (every number; the names keep their place)
    assert zero(mine) == zero(doc.encode())
    assert mine.startswith(b'{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[')
    # the encoder writes what the decoder's skeleton expects (no digits in keys: numbers are the values)
    assert json.loads(mine)["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"][
        "column"]["_h"] is None
    assert API_NAMES[18] == "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep"
    # Curio's envelope (lib/ffi/cuzk_funcs.go c1OutputWrapper): Go's field order, base64 std with padding
    env = encode_c1(dataclasses.replace(c1, sector_number=234, sector_size=2048))
    assert env.startswith(b'{"SectorNum":234,"Phase1Out":"') and env.endswith(b'","SectorSize":2048}')
    assert _inner(env) == mine


# ---------------------------------------------------------------- the large shapes


@pytest.mark.slow
@pytest.mark.parametrize("number", [8, pytest.param(9, marks=pytest.mark.skipif(
    os.environ.get("CUZK_LONG_FILECOIN") != "1", reason="long: set CUZK_LONG_FILECOIN=1"))], ids=["32GiB-Sub", "64GiB-Top"])
def test_large_shapes_round_trip_and_check(number):
    c1 = sparse_c1(number)
    check_c1(c1)
    env = encode_c1(c1)
    d = decode_c1(env, registered_proof=number)
    assert encode_c1(d) == env
    variant = b'"Sub":{' if number == 8 else b'"Top":{'
    assert variant in _inner(env)[:20000]
