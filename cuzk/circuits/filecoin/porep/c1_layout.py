"""The PoRep C1 output Curio sends for C2: filecoin-proofs-api's `SealCommitPhase1Output` as JSON.

Layout (serde_json, no whitespace; every field below in this order; facts from the sources):

Curio's envelope (curio lib/ffi/cuzk_funcs.go `c1OutputWrapper`, Go encoding/json; the Rust side
is extern/cuzk cuzk-core prover.rs `C1OutputWrapper`):

    {"SectorNum":<u64>,"Phase1Out":"<base64 (std, padded) of the JSON below>","SectorSize":<u64>}

`SealCommitPhase1Output` (rust-filecoin-proofs-api src/seal.rs, derive(Serialize)):

    {"registered_proof":"StackedDrg32GiBV1_1",         RegisteredSealProof (registry.rs), unit variant
     "vanilla_proofs":{"StackedDrg32GiBV1":[[P, ...], ...]},   VanillaSealProof: one variant per sector
                                                       size ("...V1" whatever the proof's version),
                                                       partitions x challenges of stacked::Proof
     "comm_r":D,"comm_d":D,"replica_id":D,"seed":D,"ticket":D}

    D, a 32-byte value: a JSON array of 32 numbers 0-255. Commitment and Ticket are [u8; 32]
    (filecoin-proofs types/mod.rs); Sha256Domain(pub [u8; 32]) and PoseidonDomain(<Fr as
    PrimeField>::Repr) are derived newtypes (filecoin-hashers sha256.rs, poseidon.rs), and blstrs
    0.7's Scalar Repr is [u8; 32], little-endian canonical (scalar.rs `to_repr` = to_bytes_le).

stacked::Proof P (storage-proofs-porep stacked/vanilla/params.rs):

    {"comm_d_proofs":MerkleProof<Sha256, U2>,            tree D: always "Single"
     "comm_r_last_proof":MerkleProof<Poseidon, shape>,   tree R-last
     "replica_column_proofs":{"c_x":CP,"drg_parents":[CP x 6],"exp_parents":[CP x 8]},
     "labeling_proofs":[LP x layers],"encoding_proof":LP}

    CP (column_proof.rs, column.rs): {"column":{"index":<u32>,"rows":[D x layers],"_h":null},
                                      "inclusion_proof":MerkleProof<Poseidon, shape>}
        (Column's `_h: PhantomData` has no serde(skip): serde_json writes it as null)
    LP (labeling_proof.rs, encoding_proof.rs): {"parents":[D x 37],"layer_index":<u32>,"node":<u64>}
        (their PhantomData is serde(skip)); made from the columns (vanilla proof.rs
        `prove_layers_generate`): layer l's parents are the 6 DRG parents' labels of layer l (l = 1)
        or those and the 8 expander parents' labels of layer l - 1, repeated to 37; node = the
        challenge; the encoding proof is the last layer's labeling proof.

MerkleProof (storage-proofs-core merkle/proof.rs): {"data":{"<variant>":{...}}}, externally tagged
ProofData enum, by the tree shape: "Single": {"root":D,"leaf":D,"path":PATH}; "Sub":
{"base_proof":PATH,"sub_proof":PATH,"root":D,"leaf":D}; "Top": base_proof, sub_proof, top_proof,
root, leaf. PATH (InclusionPath) = {"path":[{"hashes":[D x arity - 1],"index":<usize>}, ...]}, leaf
level first; the index is the running node's position among its siblings (PathElement).

Curio may also re-encode the JSON through its Go types (lib/proof/porep_vproof_types.go
`Commit1OutRaw`, e.g. the proofshare path): same nested layout, top-level keys in Go's order
(comm_d, comm_r, registered_proof, replica_id, seed, ticket, vanilla_proofs). Top-level and envelope
keys are read in any order; the order found is kept so that `encode_c1(decode_c1(x)) == x`.

Decoding follows the data layout rule: the proofs' numbers never become Python objects. The proofs'
array is reduced to a skeleton (every number a '#') that must equal the one the registered proof's
shape implies, byte for byte (a mismatch names its partition, challenge and field); the numbers are
then parsed in bulk with numpy and gathered into arrays by index maps computed once per shape.
Everything the circuit's arrays (`PorepPartitionProof`) do not hold is checked to be what the
encoder would derive (roots equal to the commitments, path indices the digits of the challenge or
parent, column leaves the columns' Poseidon hashes, labeling and encoding proofs made of the
columns), so the decoded value is lossless (c1_read). `c1_verify.check_c1` is the semantic check
(vanilla Proof::verify): challenges, parents, every path to its root, comm_r, the labels and the
encoding. `c1_write` writes the layout back, byte for byte.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from cuzk.circuits.filecoin.common.fr_bytes import from_mont, to_mont
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES
from cuzk.circuits.filecoin.common.tree_r_last import hash_children

from .config import BASE_DEGREE, DEGREE, TOTAL_PARENTS, PorepConfig, porep_config
from .vanilla_proof import PorepPartitionProof


WHERE = "C1 output"
SERDE_ORDER = ("registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket")
GO_ORDER = ("comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket", "vanilla_proofs")
ENVELOPE_KEYS = ("SectorNum", "Phase1Out", "SectorSize")
_BYTES_FIELDS = ("comm_r", "comm_d", "replica_id", "seed", "ticket")
_FR_FIELDS = ("comm_r", "comm_d", "replica_id")  # Fr elements (seed and ticket are raw bytes)
_U64 = (1 << 64) - 1


def _api_names() -> dict[int, str]:
    """Go abi.RegisteredSealProof number -> filecoin-proofs-api RegisteredSealProof variant name."""
    suffixes = ("V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep")
    sizes = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")
    return {5 * g + i: f"StackedDrg{s}{suffix}" for g, suffix in enumerate(suffixes) for i, s in enumerate(sizes)}


API_NAMES: dict[int, str] = _api_names()
_BY_NAME = {v: k for k, v in API_NAMES.items()}


def vanilla_tag(cfg: PorepConfig) -> str:
    """The VanillaSealProof variant of a sector size (seal.rs: "StackedDrg<size>V1" for every version)."""
    return f"StackedDrg{SIZE_NAMES[cfg.sector_size]}V1"


@dataclass
class C1Output:
    """A decoded C1 output; the 32-byte fields are uint8[32], `partitions` one per partition."""

    registered_proof: int  # Go abi.RegisteredSealProof
    comm_r: np.ndarray
    comm_d: np.ndarray
    replica_id: np.ndarray
    seed: np.ndarray
    ticket: np.ndarray
    partitions: list[PorepPartitionProof]
    sector_number: int | None = None  # from Curio's envelope (None: bare SealCommitPhase1Output)
    sector_size: int | None = None
    key_order: tuple[str, ...] = SERDE_ORDER  # top-level key order (serde's, or Go's for Curio re-encodes)

    @property
    def config(self) -> PorepConfig:
        return porep_config(self.registered_proof)

    @property
    def proof_name(self) -> str:
        return API_NAMES[self.registered_proof]

    @property
    def enveloped(self) -> bool:
        return self.sector_number is not None


# ---------------------------------------------------------------- the shape's template


_BYTE, _NUM = 0, 1


@dataclass
class _Template:
    """One stacked::Proof's text for a shape: K numbers between K + 1 literal pieces."""

    lits: list[str]
    names: list[str]  # per number slot: the field it belongs to
    kinds: np.ndarray  # uint8[K]: _BYTE (0-255) or _NUM
    slots: dict[str, np.ndarray]  # array name -> slot indices shaped like the array (bytes: [..., 32])
    skeleton: bytes  # lits joined by '#'
    mark_pos: list[int] = field(default_factory=list)  # skeleton offsets where a field starts
    mark_names: list[str] = field(default_factory=list)

    @property
    def K(self) -> int:
        return len(self.names)


class _Builder:
    def __init__(self):
        self.lits = [""]
        self.names: list[str] = []
        self.kinds: list[int] = []
        self.slots: dict[str, list[int]] = {}
        self.size = 0  # skeleton length so far
        self.marks: list[tuple[int, str]] = []  # (skeleton offset, the field starting there)

    def lit(self, s: str) -> None:
        self.lits[-1] += s
        self.size += len(s)

    def mark(self, name: str) -> None:
        self.marks.append((self.size, name))

    def opens(self, name: str, s: str) -> None:
        """The literal `s` where field `name` starts."""
        self.mark(name)
        self.lit(s)

    def num(self, key: str | None, name: str, kind: int = _NUM) -> None:
        if key is not None:
            self.slots.setdefault(key, []).append(len(self.names))
        if kind == _NUM:
            self.mark(name)
        self.names.append(name)
        self.kinds.append(kind)
        self.lits.append("")
        self.size += 1

    def domain(self, key: str, name: str) -> None:
        self.opens(name, "[")
        for i in range(32):
            if i:
                self.lit(",")
            self.num(key, name, _BYTE)
        self.lit("]")

    def path(self, levels, arities, key: str, name: str) -> None:
        self.opens(name, '{"path":[')
        for j, lv in enumerate(levels):
            self.lit("," if j else "")
            self.opens(f"{name}[{j}]", '{"hashes":[')
            for s in range(arities[lv] - 1):
                self.lit("," if s else "")
                self.domain(f"{key}_sib{lv}", f"{name}[{j}].hashes[{s}]")
            self.opens(f"{name}[{j}].index", '],"index":')
            self.num(f"{key}_idx", f"{name}[{j}].index")
            self.lit("}")
        self.lit("]}")

    def merkle(self, cfg: PorepConfig, key: str, name: str) -> None:
        """A Poseidon MerkleProof of the sector shape."""
        ar, b = cfg.arities, cfg.base_levels
        variant = "Single" if not cfg.sub_arity else ("Sub" if not cfg.top_arity else "Top")
        pre = f"{name}.data.{variant}"
        self.opens(name, '{"data":{"' + variant + '":{')
        if variant == "Single":
            self.opens(f"{pre}.root", '"root":')
            self.domain(f"{key}_root", f"{pre}.root")
            self.opens(f"{pre}.leaf", ',"leaf":')
            self.domain(f"{key}_leaf", f"{pre}.leaf")
            self.opens(f"{pre}.path", ',"path":')
            self.path(range(len(ar)), ar, key, f"{pre}.path.path")
        else:
            blocks = [("base_proof", range(b)), ("sub_proof", [b])]
            if variant == "Top":
                blocks.append(("top_proof", [b + 1]))
            for j, (bn, levels) in enumerate(blocks):
                self.lit("," if j else "")
                self.opens(f"{pre}.{bn}", f'"{bn}":')
                self.path(levels, ar, key, f"{pre}.{bn}.path")
            self.opens(f"{pre}.root", ',"root":')
            self.domain(f"{key}_root", f"{pre}.root")
            self.opens(f"{pre}.leaf", ',"leaf":')
            self.domain(f"{key}_leaf", f"{pre}.leaf")
        self.lit("}}}")

    def column_proof(self, cfg: PorepConfig, name: str) -> None:
        self.opens(f"{name}.column", '{"column":{"index":')
        self.num("col_index", f"{name}.column.index")
        self.opens(f"{name}.column.rows", ',"rows":[')
        for r in range(cfg.layers):
            self.lit("," if r else "")
            self.domain("col_rows", f"{name}.column.rows[{r}]")
        self.lit("]")
        self.opens(f"{name}.column._h", ',"_h":null}')
        self.opens(f"{name}.inclusion_proof", ',"inclusion_proof":')
        self.merkle(cfg, "col", f"{name}.inclusion_proof")
        self.lit("}")

    def labeling(self, key: str, name: str) -> None:
        self.opens(name, '{"parents":[')
        for i in range(TOTAL_PARENTS):
            self.lit("," if i else "")
            self.domain(f"{key}_parents", f"{name}.parents[{i}]")
        self.lit("]")
        self.opens(f"{name}.layer_index", ',"layer_index":')
        self.num(f"{key}_layer", f"{name}.layer_index")
        self.opens(f"{name}.node", ',"node":')
        self.num(f"{key}_node", f"{name}.node")
        self.lit("}")


@functools.lru_cache(maxsize=None)
def _template(cfg: PorepConfig) -> _Template:
    L, Dd, ar = cfg.layers, cfg.tree_d_depth, cfg.arities
    t = _Builder()
    t.opens("comm_d_proofs", '{"comm_d_proofs":{"data":{"Single":{"root":')
    t.domain("d_root", "comm_d_proofs.data.Single.root")
    t.opens("comm_d_proofs.data.Single.leaf", ',"leaf":')
    t.domain("d_leaf", "comm_d_proofs.data.Single.leaf")
    t.opens("comm_d_proofs.data.Single.path", ',"path":')
    t.path(range(Dd), (2,) * Dd, "d", "comm_d_proofs.data.Single.path.path")
    t.lit("}}}")
    t.opens("comm_r_last_proof", ',"comm_r_last_proof":')
    t.merkle(cfg, "r", "comm_r_last_proof")
    t.opens("replica_column_proofs", ',"replica_column_proofs":{"c_x":')
    t.column_proof(cfg, "replica_column_proofs.c_x")
    t.opens("replica_column_proofs.drg_parents", ',"drg_parents":[')
    for i in range(BASE_DEGREE):
        t.lit("," if i else "")
        t.column_proof(cfg, f"replica_column_proofs.drg_parents[{i}]")
    t.lit("]")
    t.opens("replica_column_proofs.exp_parents", ',"exp_parents":[')
    for i in range(DEGREE - BASE_DEGREE):
        t.lit("," if i else "")
        t.column_proof(cfg, f"replica_column_proofs.exp_parents[{i}]")
    t.lit("]}")
    t.opens("labeling_proofs", ',"labeling_proofs":[')
    for layer in range(L):
        t.lit("," if layer else "")
        t.labeling("lab", f"labeling_proofs[{layer}]")
    t.lit("]")
    t.opens("encoding_proof", ',"encoding_proof":')
    t.labeling("enc", "encoding_proof")
    t.lit("}")

    shapes = {"d_root": (32,), "d_leaf": (32,), "d_idx": (Dd,), "r_root": (32,), "r_leaf": (32,),
              "r_idx": (len(ar),), "col_index": (DEGREE + 1,), "col_rows": (DEGREE + 1, L, 32),
              "col_root": (DEGREE + 1, 32), "col_leaf": (DEGREE + 1, 32), "col_idx": (DEGREE + 1, len(ar)),
              "lab_parents": (L, TOTAL_PARENTS, 32), "lab_layer": (L,), "lab_node": (L,),
              "enc_parents": (TOTAL_PARENTS, 32), "enc_layer": (), "enc_node": ()}
    for lv in range(Dd):
        shapes[f"d_sib{lv}"] = (1, 32)
    for lv, a in enumerate(ar):
        shapes[f"r_sib{lv}"] = (a - 1, 32)
        shapes[f"col_sib{lv}"] = (DEGREE + 1, a - 1, 32)
    slots = {k: np.asarray(t.slots[k], dtype=np.int64).reshape(shapes[k]) for k in shapes}
    skeleton = "#".join(t.lits)
    if any(c.isdigit() or c == "#" for c in "".join(t.lits)):
        raise AssertionError("template literals must hold no digits")
    tpl = _Template(t.lits, t.names, np.asarray(t.kinds, dtype=np.uint8), slots, skeleton.encode(),
                    [m[0] for m in t.marks], [m[1] for m in t.marks])
    assert t.size == len(tpl.skeleton)
    return tpl


@functools.lru_cache(maxsize=4)
def _array_skeleton(cfg: PorepConfig) -> np.ndarray:
    """The skeleton of vanilla_proofs' array of arrays: [[P,...,P],...,[P,...,P]]."""
    T = _template(cfg).skeleton
    part = b"[" + b",".join([T] * cfg.challenges) + b"]"
    return np.frombuffer(b"[" + b",".join([part] * cfg.partitions) + b"]", dtype=np.uint8)


def _digits(values: np.ndarray, arities) -> np.ndarray:
    """uint64[N] -> uint64[N, levels]: mixed-radix digits, leaf level first."""
    out = np.empty((len(values), len(arities)), dtype=np.uint64)
    rest = np.asarray(values, dtype=np.uint64).copy()
    for lv, a in enumerate(arities):
        out[:, lv] = rest % np.uint64(a)
        rest //= np.uint64(a)
    return out


def _hex(node) -> str:
    return "0x" + bytes(np.asarray(node, dtype=np.uint8)).hex()[:16] + "..."


def _column_hashes(rows: np.ndarray) -> np.ndarray:
    """uint8[..., L, 32] columns -> uint8[..., 32] their Poseidon hashes (vanilla hash_single_column)."""
    shape = rows.shape[:-2]
    flat = rows.reshape((-1,) + rows.shape[-2:])
    return from_mont(hash_children(to_mont(flat))).reshape(shape + (32,))


def _labeling_parents(rows: np.ndarray) -> np.ndarray:
    """[N, 15, L, 32] columns (c_x, 6 DRG, 8 expander) -> [N, L, 37, 32] each layer's labeling parents."""
    N, _, L, _ = rows.shape
    out = np.empty((N, L, TOTAL_PARENTS, 32), dtype=np.uint8)
    drg, exp = rows[:, 1:1 + BASE_DEGREE], rows[:, 1 + BASE_DEGREE:]
    for layer in range(1, L + 1):
        if layer == 1:
            base = drg[:, :, 0]
        else:
            base = np.concatenate([drg[:, :, layer - 1], exp[:, :, layer - 2]], axis=1)
        reps = -(-TOTAL_PARENTS // base.shape[1])
        out[:, layer - 1] = np.concatenate([base] * reps, axis=1)[:, :TOTAL_PARENTS]
    return out


def _first_bad(ok: np.ndarray) -> int | None:
    ok = np.asarray(ok).reshape(len(ok), -1).all(axis=1)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


def _col_name(j: int) -> str:
    if j == 0:
        return "replica_column_proofs.c_x"
    if j <= BASE_DEGREE:
        return f"replica_column_proofs.drg_parents[{j - 1}]"
    return f"replica_column_proofs.exp_parents[{j - 1 - BASE_DEGREE}]"
