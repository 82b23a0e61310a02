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
columns), so the decoded value is lossless. `check_c1` is the semantic check (vanilla Proof::verify):
challenges, parents, every path to its root, comm_r, the labels and the encoding.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
from dataclasses import dataclass, field

import numpy as np

from .challenges import interactive_challenges
from .config import BASE_DEGREE, DEGREE, TOTAL_PARENTS, PorepConfig, porep_config
from .vanilla_proof import PorepPartitionProof
from cuzk.circuits.filecoin.common.registered_proofs import SIZE_NAMES
from .sdr import SdrGraph
from cuzk.circuits.filecoin.post.vanilla_proof import non_canonical_rows
from cuzk.circuits.filecoin.common.tree_r_last import comm_r_of, hash_children, path_roots
from cuzk.circuits.filecoin.common.fr_bytes import fr, from_mont, to_mont
from cuzk.errors import FormatError, ValidationError
from cuzk.gadgets.sha256.filecoin import sha254_many

__all__ = ["C1Output", "decode_c1", "encode_c1", "check_c1", "API_NAMES", "SERDE_ORDER", "GO_ORDER"]

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


# ---------------------------------------------------------------- small JSON reader (top level)


_BRACKET = np.zeros(256, dtype=np.int8)
_BRACKET[[91, 123]] = 1
_BRACKET[[93, 125]] = -1


def _config(number: int, r: "_Reader") -> PorepConfig:
    cfg = porep_config(number)
    if cfg.sector_size not in SIZE_NAMES:
        raise r.error("registered_proof", f"no sector shape for {number}")
    return cfg


def _check_tag(tag: str, cfg: PorepConfig, number: int, r: "_Reader") -> None:
    if tag != vanilla_tag(cfg):
        raise r.error("vanilla_proofs", f"variant {tag[:40]!r}, expected {vanilla_tag(cfg)!r} for {API_NAMES[number]}")


class _Reader:
    """A strict reader of the little JSON around the proofs (no escapes: no producer writes any)."""

    def __init__(self, data, where: str):
        self.buf = data
        self.pos = 0
        self.where = where

    def error(self, field_: str, problem: str) -> FormatError:
        return FormatError(f"{self.where}: {field_}: {problem}")

    def ws(self) -> None:
        b, n = self.buf, len(self.buf)
        while self.pos < n and b[self.pos] in b" \t\r\n":
            self.pos += 1

    def peek(self, field_: str) -> int:
        self.ws()
        if self.pos >= len(self.buf):
            raise self.error(field_, f"truncated: the document ends at offset {self.pos}")
        return self.buf[self.pos]

    def expect(self, ch: bytes, field_: str) -> None:
        c = self.peek(field_)
        if c != ch[0]:
            raise self.error(field_, f"expected {ch.decode()!r} at offset {self.pos}, got {chr(c)!r}")
        self.pos += 1

    def string(self, field_: str) -> str:
        raw = self.raw_string(field_)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error(field_, "a string is not UTF-8") from None

    def raw_string(self, field_: str) -> bytes:
        """A string's bytes (no escapes)."""
        self.expect(b'"', field_)
        end = self.buf.find(b'"', self.pos)
        if end < 0:
            raise self.error(field_, f"unterminated string at offset {self.pos - 1}")
        raw = self.buf[self.pos:end]
        if b"\\" in raw:
            raise self.error(field_, f"escape sequences are not supported (offset {self.pos})")
        self.pos = end + 1
        return raw

    def uint(self, field_: str, limit: int = _U64) -> int:
        self.peek(field_)
        start = self.pos
        b, n = self.buf, len(self.buf)
        while self.pos < n and 48 <= b[self.pos] <= 57:
            self.pos += 1
        text = b[start:self.pos]
        if not text:
            raise self.error(field_, f"expected an unsigned integer at offset {start}")
        if len(text) > 1 and text[0] == 48:
            raise self.error(field_, f"a number with a leading zero at offset {start}")
        if self.pos < n and b[self.pos] in b".eE-+":
            raise self.error(field_, f"expected an unsigned integer at offset {start}")
        if len(text) > 20 or int(text) > limit:
            raise self.error(field_, f"{text[:24].decode()} is out of range (at most {limit})")
        return int(text)

    def bytes32(self, field_: str) -> np.ndarray:
        self.expect(b"[", field_)
        out = np.empty(32, dtype=np.uint8)
        for i in range(32):
            if i:
                self.expect(b",", field_)
            out[i] = self.uint(f"{field_}[{i}]", 255)
        if self.peek(field_) != ord("]"):
            raise self.error(field_, "expected 32 bytes")
        self.pos += 1
        return out

    def object_keys(self, field_: str, value):
        """Iterate over an object's keys, calling value(key) to read each value."""
        self.expect(b"{", field_)
        seen = []
        if self.peek(field_) == ord("}"):
            self.pos += 1
            return seen
        while True:
            key = self.string(f"{field_} key")
            if key in seen:
                raise self.error(key, "duplicate field")
            seen.append(key)
            self.expect(b":", key)
            value(key)
            c = self.peek(field_)
            self.pos += 1
            if c == ord("}"):
                return seen
            if c != ord(","):
                raise self.error(field_, f"expected ',' or '}}' at offset {self.pos - 1}, got {chr(c)!r}")

    def span(self, field_: str) -> tuple[int, int]:
        """The extent [start, end) of the array or object starting here, by bracket depth (brackets
        inside strings are not told apart: the skeleton check of the proofs refuses those anyway)."""
        c = self.peek(field_)
        if c not in b"[{":
            raise self.error(field_, f"expected an array or object at offset {self.pos}")
        start = self.pos
        a = np.frombuffer(self.buf, dtype=np.uint8)[start:]
        depth = np.cumsum(_BRACKET[a], dtype=np.int32)
        closed = np.flatnonzero(depth == 0)
        if not closed.size:
            raise self.error(field_, f"unterminated (truncated document?) from offset {start}")
        self.pos = start + int(closed[0]) + 1
        return start, self.pos

    def end(self) -> None:
        self.ws()
        if self.pos != len(self.buf):
            raise FormatError(f"{self.where}: {len(self.buf) - self.pos} trailing bytes after the document "
                              f"(offset {self.pos})")


# ---------------------------------------------------------------- decoding


def _as_bytes(data, where: str) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise FormatError(f"{where}: expected bytes, got {type(data).__name__}")


def decode_c1(data, *, registered_proof: int | None = None, check: bool = True) -> C1Output:
    """Curio's envelope or a bare SealCommitPhase1Output JSON -> C1Output.

    registered_proof: the request's number, when known (a document of another proof is refused).
    check: run `check_c1` (the semantic check) before returning. Raises FormatError (a ValueError)
    naming the field (and partition and challenge) of the first problem."""
    doc = _as_bytes(data, WHERE)
    r = _Reader(doc, WHERE)
    if r.peek("document") != ord("{"):
        raise r.error("document", "expected a JSON object")
    sector_number = sector_size = None
    # the first key tells the envelope from the bare output
    save = r.pos
    r.pos += 1
    first = r.string("document key") if r.peek("document") == ord('"') else None
    r.pos = save
    if first in ENVELOPE_KEYS:
        env: dict = {}

        def value(key):
            if key in ("SectorNum", "SectorSize"):
                env[key] = r.uint(key)
            elif key == "Phase1Out":
                env[key] = r.raw_string(key)
            else:
                raise r.error(key, f"unknown envelope field (expected {', '.join(ENVELOPE_KEYS)})")

        r.object_keys("envelope", value)
        r.end()
        for k in ENVELOPE_KEYS:
            if k not in env:
                raise r.error(k, "missing envelope field")
        try:
            inner = base64.b64decode(env["Phase1Out"], validate=True)
        except (binascii.Error, ValueError):
            raise r.error("Phase1Out", "not valid base64 (standard alphabet, padded)") from None
        sector_number, sector_size = env["SectorNum"], env["SectorSize"]
        out = _decode_inner(inner, f"{WHERE} (Phase1Out)", registered_proof)
        if sector_size != out.config.sector_size:
            raise r.error("SectorSize", f"{sector_size} is not {out.proof_name}'s sector size "
                                        f"{out.config.sector_size}")
        out.sector_number, out.sector_size = sector_number, sector_size
    else:
        out = _decode_inner(doc, WHERE, registered_proof)
    if check:
        check_c1(out)
    return out


def _decode_inner(doc: bytes, where: str, expected: int | None) -> C1Output:
    r = _Reader(doc, where)
    vals: dict = {}

    def value(key):
        if key in _BYTES_FIELDS:
            vals[key] = r.bytes32(key)
        elif key == "registered_proof":
            name = r.string(key)
            if name not in _BY_NAME:
                raise r.error(key, f"unknown RegisteredSealProof {name[:60]!r}")
            vals[key] = _BY_NAME[name]
        elif key == "vanilla_proofs":
            tags = []

            def variant(tag):
                tags.append(tag)
                r.peek(f"vanilla_proofs.{tag[:40]}")
                start = r.pos
                if "registered_proof" in vals and not tags[1:]:  # serde's and Go's orders: the usual case
                    cfg = _config(vals["registered_proof"], r)
                    _check_tag(tag, cfg, vals["registered_proof"], r)
                    vals["vp"] = _decode_proofs(np.frombuffer(doc, dtype=np.uint8)[start:], cfg,
                                                f"{where}: vanilla_proofs")
                    r.pos = start + vals["vp"][1]
                else:
                    vals["vp_span"] = r.span(f"vanilla_proofs.{tag[:40]}")

            r.object_keys(key, variant)
            if len(tags) != 1:
                raise r.error(key, f"expected one VanillaSealProof variant, got {len(tags)}")
            vals["vp_tag"] = tags[0]
        else:
            raise r.error(key, "unknown field of SealCommitPhase1Output")

    order = tuple(r.object_keys("document", value))
    r.end()
    for k in SERDE_ORDER:
        if k not in order:
            raise r.error(k, "missing field")
    number = vals["registered_proof"]
    if expected is not None and int(expected) != number:
        raise r.error("registered_proof", f"{API_NAMES[number]} ({number}), but the request is for "
                                          f"{API_NAMES.get(int(expected), expected)} ({expected})")
    cfg = _config(number, r)
    _check_tag(vals["vp_tag"], cfg, number, r)
    for k in _FR_FIELDS:
        if non_canonical_rows(vals[k]).size:
            raise r.error(k, "not a field element (>= r)")
    if "vp" in vals:
        arrays = vals["vp"][0]
    else:  # vanilla_proofs came before registered_proof
        s, e = vals["vp_span"]
        arrays, used = _decode_proofs(np.frombuffer(doc, dtype=np.uint8)[s:e], cfg, f"{where}: vanilla_proofs")
        if used != e - s:
            raise r.error("vanilla_proofs", f"{e - s - used} bytes after the partitions' array")
    c1 = C1Output(number, vals["comm_r"], vals["comm_d"], vals["replica_id"], vals["seed"], vals["ticket"],
                  [], key_order=order)
    c1.partitions = _partitions(c1, cfg, arrays, f"{where}: vanilla_proofs")
    return c1


def _locate(cfg: PorepConfig, i: int) -> tuple[str, int | None]:
    """A position in the array skeleton -> (description, offset in the proof template or None)."""
    tpl = _template(cfg)
    T, C, P = len(tpl.skeleton), cfg.challenges, cfg.partitions
    if i == 0:
        return "the partitions' array", None
    Bp = 2 + C * T + (C - 1)
    q = i - 1
    p, rem = divmod(q, Bp + 1)
    if p >= P:
        return f"more than {P} partitions", None
    if rem == 0:
        return f"partition {p}", None
    if rem >= Bp - 1:
        return f"partition {p}: expected {C} challenges", None
    c, o = divmod(rem - 1, T + 1)
    if o == T:
        return f"partition {p}, challenge {c}: expected {C} challenges per partition", None
    k = bisect.bisect_right(tpl.mark_pos, o) - 1
    name = tpl.mark_names[k] if k >= 0 else "the proof"
    return f"partition {p}, challenge {c}: {name}", o


def _skeleton_error(cfg: PorepConfig, skel: np.ndarray, exp: np.ndarray, where: str) -> FormatError:
    n = min(len(skel), len(exp))
    diff = np.flatnonzero(skel[:n] != exp[:n])
    i = int(diff[0]) if diff.size else n
    what, _ = _locate(cfg, i)
    got = bytes(skel[i:i + 24]).decode("latin-1")
    want = bytes(exp[i:i + 24]).decode("latin-1")
    if i >= len(skel):
        return FormatError(f"{where}: {what}: the proofs end early (expected {want!r}...)")
    return FormatError(f"{where}: {what}: expected {want!r}..., got {got!r}... ('#' a number)")


def _slot_error(cfg: PorepConfig, flat: int, problem: str, where: str) -> FormatError:
    tpl = _template(cfg)
    n, k = divmod(int(flat), tpl.K)
    p, c = divmod(n, cfg.challenges)
    return FormatError(f"{where}: partition {p}, challenge {c}: {tpl.names[k]}: {problem}")


_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True
_WS = (9, 10, 13, 32)


def _decode_proofs(a: np.ndarray, cfg: PorepConfig, where: str) -> tuple[dict[str, np.ndarray], int]:
    """The partitions' array at the start of `a` (uint8; what follows it is ignored) ->
    ({slot array name: values [P * C, ...]}, the array's length in bytes)."""
    tpl = _template(cfg)
    exp = _array_skeleton(cfg)
    counts = np.bincount(a, minlength=256)
    digit = _DIGIT[a]
    start = digit.copy()
    start[1:] &= ~digit[:-1]
    keep = ~digit
    keep |= start
    if sum(int(counts[c]) for c in _WS):  # JSON allows whitespace between tokens; none inside strings
        in_str = (np.cumsum(a == 34, dtype=np.int32) & 1).astype(bool)
        keep &= ~(np.isin(a, _WS) & ~in_str)
    b = a.copy()
    if counts[35]:
        b[a == 35] = 1  # a literal '#' never matches a number
    b[start] = 35
    kept = np.flatnonzero(keep)
    E = len(exp)
    skel = b[kept[:E]]
    if len(skel) < E or not np.array_equal(skel, exp):
        if counts[92]:
            i = int(np.argmax(a == 92))
            raise FormatError(f"{where}: escape sequences are not supported (offset {i})")
        raise _skeleton_error(cfg, skel, exp, where)
    used = int(kept[E - 1]) + 1
    if counts[92] and (a[:used] == 92).any():  # unreachable: the skeleton holds no backslash
        raise FormatError(f"{where}: escape sequences are not supported")

    # the numbers, in bulk: runs of digits inside the array
    starts = np.flatnonzero(start[:used])
    end = digit[:used].copy()
    end[:-1] &= ~digit[1:used]
    lens = np.flatnonzero(end) - starts + 1
    n = len(a)
    d0 = a[starts].astype(np.uint16) - 48
    d1 = a[np.minimum(starts + 1, n - 1)].astype(np.uint16) - 48
    d2 = a[np.minimum(starts + 2, n - 1)].astype(np.uint16) - 48
    v16 = np.where(lens == 1, d0, np.where(lens == 2, d0 * 10 + d1, d0 * 100 + d1 * 10 + d2))
    bad = np.flatnonzero((lens > 1) & (d0 == 0))
    if bad.size:
        raise _slot_error(cfg, bad[0], "a number with a leading zero", where)
    long_ = np.flatnonzero(lens > 3)
    if long_.size and int(lens[long_].max()) > 19:
        raise _slot_error(cfg, long_[np.argmax(lens[long_] > 19)], "number out of range", where)
    vlong = np.zeros(len(long_), dtype=np.uint64)
    for k in range(int(lens[long_].max()) if long_.size else 0):
        m = np.flatnonzero(lens[long_] > k)
        vlong[m] = vlong[m] * np.uint64(10) + (a[starts[long_[m]] + k] - 48).astype(np.uint64)
    v16[long_] = 0xFFFF
    N = cfg.partitions * cfg.challenges
    K = tpl.K
    V = v16.reshape(N, K)
    byte_slots = np.flatnonzero(tpl.kinds == _BYTE)
    num_slots = np.flatnonzero(tpl.kinds == _NUM)
    big = V[:, byte_slots] > 255
    if big.any():
        i, j = np.unravel_index(int(np.argmax(big)), big.shape)
        flat = i * K + int(byte_slots[j])
        value = int(V.reshape(-1)[flat]) if V.reshape(-1)[flat] != 0xFFFF else int(vlong[np.searchsorted(long_, flat)])
        raise _slot_error(cfg, flat, f"{value} is not a byte", where)
    Vn = V[:, num_slots].astype(np.uint64)
    to_num = np.full(K, -1, dtype=np.int64)
    to_num[num_slots] = np.arange(len(num_slots))
    if long_.size:
        row, col = np.divmod(long_, K)
        Vn[row, to_num[col]] = vlong  # every long run is a number slot (bytes were refused above)
    out = {}
    for key, idx in tpl.slots.items():
        if tpl.kinds[idx.reshape(-1)[0]] == _BYTE if idx.size else False:
            out[key] = V[:, idx].astype(np.uint8)
        else:
            out[key] = Vn[:, to_num[idx]]
    # every node an Fr element (Rust converts each to Fr)
    for key, idx in tpl.slots.items():
        if out[key].dtype != np.uint8:
            continue
        rows = non_canonical_rows(out[key])
        if rows.size:
            per = int(np.prod(idx.shape[:-1])) if idx.ndim > 1 else 1
            i = int(rows[0]) // per
            slot = int(idx.reshape(-1, 32)[int(rows[0]) % per, 0])
            raise _slot_error(cfg, i * K + slot, "not a field element (>= r)", where)
    return out, used


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


def _partitions(c1: C1Output, cfg: PorepConfig, x: dict, where: str) -> list[PorepPartitionProof]:
    """Check that every value the arrays do not keep is the one the encoder derives; build them."""
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    N = P * C

    def fail(n, name, problem):
        p, c = divmod(n, C)
        return FormatError(f"{where}: partition {p}, challenge {c}: {name}: {problem}")

    col_index = x["col_index"]  # [N, 15]
    ch = col_index[:, 0]
    nodes = np.uint64(cfg.nodes)
    bad = np.flatnonzero(col_index >= nodes)
    if bad.size:
        n, j = divmod(int(bad[0]), DEGREE + 1)
        raise fail(n, _col_name(j) + ".column.index", f"{int(col_index[n, j])} is not a node (the sector has "
                                                      f"{cfg.nodes})")
    # tree D: the root is comm_d, indices the challenge's bits
    n = _first_bad(x["d_root"] == c1.comm_d)
    if n is not None:
        raise fail(n, "comm_d_proofs.root", f"{_hex(x['d_root'][n])} is not comm_d {_hex(c1.comm_d)}")
    n = _first_bad(x["d_idx"] == _digits(ch, (2,) * cfg.tree_d_depth))
    if n is not None:
        raise fail(n, "comm_d_proofs.path", f"indices {x['d_idx'][n].tolist()} do not open the challenged node "
                                            f"{int(ch[n])} (replica_column_proofs.c_x.column.index)")
    # tree R-last: one root per partition, indices the challenge's digits
    rr = x["r_root"].reshape(P, C, 32)
    n = _first_bad((rr == rr[:, :1]).reshape(N, 32))
    if n is not None:
        raise fail(n, "comm_r_last_proof.root", "differs from the partition's first challenge's (comm_r_last)")
    n = _first_bad(x["r_idx"] == _digits(ch, ar))
    if n is not None:
        raise fail(n, "comm_r_last_proof.path", f"indices {x['r_idx'][n].tolist()} do not open the challenged "
                                                f"node {int(ch[n])}")
    # tree C: one root per partition, indices the column's digits, leaves the columns' hashes
    cr = x["col_root"].reshape(P, C * (DEGREE + 1), 32)
    same = (cr == cr[:, :1]).reshape(N, DEGREE + 1, 32).all(axis=2)
    n = _first_bad(same)
    if n is not None:
        j = int(np.argmin(same[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.root", "differs from the partition's c_x root (comm_c)")
    want = _digits(col_index.reshape(-1), ar).reshape(N, DEGREE + 1, len(ar))
    ok = (x["col_idx"] == want).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.path", f"indices {x['col_idx'][n, j].tolist()} do not "
                                                              f"open column {int(col_index[n, j])}")
    try:
        leaves = _column_hashes(x["col_rows"])
    except ValueError as exc:  # a row >= r (the canonical check refuses these first)
        raise FormatError(f"{where}: column rows: {exc}") from None
    ok = (leaves == x["col_leaf"]).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j) + ".inclusion_proof.leaf", f"{_hex(x['col_leaf'][n, j])} is not the column's "
                                                              f"hash {_hex(leaves[n, j])}")
    # labeling and encoding proofs: made of the columns
    layer_no = np.arange(1, L + 1, dtype=np.uint64)
    n = _first_bad(x["lab_layer"] == layer_no)
    if n is not None:
        i = int(np.argmax(x["lab_layer"][n] != layer_no))
        raise fail(n, f"labeling_proofs[{i}].layer_index", f"{int(x['lab_layer'][n, i])}, expected {i + 1}")
    n = _first_bad(x["lab_node"] == ch[:, None])
    if n is not None:
        i = int(np.argmax(x["lab_node"][n] != ch[n]))
        raise fail(n, f"labeling_proofs[{i}].node", f"{int(x['lab_node'][n, i])} is not the challenge {int(ch[n])}")
    lab = _labeling_parents(x["col_rows"])
    ok = (lab == x["lab_parents"]).all(axis=3)  # [N, L, 37]
    n = _first_bad(ok)
    if n is not None:
        i, j = np.unravel_index(int(np.argmin(ok[n])), ok[n].shape)
        raise fail(n, f"labeling_proofs[{i}].parents[{j}]", "is not the parent's label in its column")
    n = _first_bad(x["enc_parents"] == lab[:, L - 1])
    if n is not None:
        raise fail(n, "encoding_proof.parents", "are not the last layer's labeling parents")
    n = _first_bad(x["enc_layer"] == np.uint64(L))
    if n is not None:
        raise fail(n, "encoding_proof.layer_index", f"{int(x['enc_layer'][n])}, expected {L}")
    n = _first_bad(x["enc_node"] == ch)
    if n is not None:
        raise fail(n, "encoding_proof.node", f"{int(x['enc_node'][n])} is not the challenge {int(ch[n])}")

    out = []
    for p in range(P):
        sl = slice(p * C, (p + 1) * C)
        rows = x["col_rows"][sl]
        out.append(PorepPartitionProof(
            replica_id=c1.replica_id.copy(), comm_d=c1.comm_d.copy(), comm_r=c1.comm_r.copy(),
            comm_c=x["col_root"][p * C, 0].copy(), comm_r_last=x["r_root"][p * C].copy(),
            challenges=ch[sl].astype(np.uint64), parents=col_index[sl, 1:].astype(np.uint64),
            data_leaves=x["d_leaf"][sl],
            data_paths=np.stack([x[f"d_sib{lv}"][sl, 0] for lv in range(cfg.tree_d_depth)], axis=1),
            parent_columns=rows[:, 1:], parent_paths=tuple(x[f"col_sib{lv}"][sl, 1:] for lv in range(len(ar))),
            columns=rows[:, 0], column_paths=tuple(x[f"col_sib{lv}"][sl, 0] for lv in range(len(ar))),
            replica_leaves=x["r_leaf"][sl], replica_paths=tuple(x[f"r_sib{lv}"][sl] for lv in range(len(ar))),
        ))
    return out


def _col_name(j: int) -> str:
    if j == 0:
        return "replica_column_proofs.c_x"
    if j <= BASE_DEGREE:
        return f"replica_column_proofs.drg_parents[{j - 1}]"
    return f"replica_column_proofs.exp_parents[{j - 1 - BASE_DEGREE}]"


# ---------------------------------------------------------------- encoding


def _slot_values(c1: C1Output, cfg: PorepConfig) -> np.ndarray:
    """uint64[P * C, K]: every number of every proof, derived from the partitions' arrays."""
    tpl = _template(cfg)
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    if len(c1.partitions) != P:
        raise FormatError(f"{WHERE}: {len(c1.partitions)} partitions, {c1.proof_name} has {P}")

    def cat(name, f):
        return np.concatenate([np.asarray(f(p)) for p in c1.partitions])

    ch = cat("challenges", lambda p: p.challenges).astype(np.uint64)
    if ch.shape != (P * C,):
        raise FormatError(f"{WHERE}: expected {C} challenges per partition")
    parents = cat("parents", lambda p: p.parents).astype(np.uint64).reshape(P * C, DEGREE)
    col_index = np.concatenate([ch[:, None], parents], axis=1)
    rows = np.concatenate([cat("columns", lambda p: np.asarray(p.columns)[:, None]),
                           cat("parent_columns", lambda p: p.parent_columns)], axis=1)  # [N, 15, L, 32]
    x = {"d_root": np.broadcast_to(cat("comm_d", lambda p: np.repeat(np.asarray(p.comm_d)[None], C, 0)),
                                   (P * C, 32)),
         "d_leaf": cat("data_leaves", lambda p: p.data_leaves),
         "d_idx": _digits(ch, (2,) * cfg.tree_d_depth),
         "r_root": cat("comm_r_last", lambda p: np.repeat(np.asarray(p.comm_r_last)[None], C, 0)),
         "r_leaf": cat("replica_leaves", lambda p: p.replica_leaves),
         "r_idx": _digits(ch, ar),
         "col_index": col_index, "col_rows": rows,
         "col_root": cat("comm_c", lambda p: np.repeat(np.asarray(p.comm_c)[None, None], C * (DEGREE + 1), 0)
                         ).reshape(P * C, DEGREE + 1, 32),
         "col_leaf": _column_hashes(rows),
         "col_idx": _digits(col_index.reshape(-1), ar).reshape(P * C, DEGREE + 1, len(ar))}
    dpaths = cat("data_paths", lambda p: p.data_paths)
    for lv in range(cfg.tree_d_depth):
        x[f"d_sib{lv}"] = dpaths[:, lv][:, None]
    for lv in range(len(ar)):
        x[f"r_sib{lv}"] = cat("replica_paths", lambda p: p.replica_paths[lv])
        x[f"col_sib{lv}"] = np.concatenate([cat("column_paths", lambda p: np.asarray(p.column_paths[lv])[:, None]),
                                            cat("parent_paths", lambda p: p.parent_paths[lv])], axis=1)
    lab = _labeling_parents(rows)
    x["lab_parents"] = lab
    x["lab_layer"] = np.broadcast_to(np.arange(1, L + 1, dtype=np.uint64), (P * C, L))
    x["lab_node"] = np.broadcast_to(ch[:, None], (P * C, L))
    x["enc_parents"] = lab[:, L - 1]
    x["enc_layer"] = np.full(P * C, L, dtype=np.uint64)
    x["enc_node"] = ch
    v = np.empty((P * C, tpl.K), dtype=np.uint64)
    for key, idx in tpl.slots.items():
        arr = np.asarray(x[key])
        want = (P * C,) + idx.shape
        if arr.shape != want:
            raise FormatError(f"{WHERE}: {key}: shape {arr.shape}, expected {want} for {c1.proof_name}")
        v[:, idx] = arr
    return v


def _render(pieces: np.ndarray, table: list[bytes], v: np.ndarray) -> bytes:
    """Interleave literal pieces and numbers: table[pieces[0]], v[0], table[pieces[1]], ..., table[pieces[M]].

    pieces: int[M + 1] indices into table; v: uint64[M]. Vectorized: lengths and offsets, then the
    pieces' bytes in one ragged gather and each digit position in one assignment."""
    M = len(v)
    tb = np.frombuffer(b"".join(table), dtype=np.uint8)
    tlen = np.array([len(s) for s in table], dtype=np.int64)
    toff = np.concatenate([[0], np.cumsum(tlen)[:-1]]).astype(np.int64)
    llen = tlen[pieces]
    nlen = np.ones(M, dtype=np.int64)
    p10 = 10
    vmax = int(v.max()) if M else 0
    while p10 <= vmax:
        nlen += v >= np.uint64(p10)
        p10 *= 10
    seg = np.empty(2 * M + 1, dtype=np.int64)
    seg[0::2] = llen
    seg[1::2] = nlen
    off = np.zeros(2 * M + 2, dtype=np.int64)
    np.cumsum(seg, out=off[1:])
    out = np.empty(int(off[-1]), dtype=np.uint8)
    lstart, nstart = off[0:-1:2], off[1:-1:2]
    # the pieces: a ragged copy
    total = int(llen.sum())
    first = np.repeat(np.cumsum(llen) - llen, llen)
    within = np.arange(total, dtype=np.int64) - first
    out[np.repeat(lstart, llen) + within] = tb[np.repeat(toff[pieces], llen) + within]
    # the numbers, digit position by digit position
    for k in range(int(nlen.max()) if M else 0):
        m = np.flatnonzero(nlen > k)
        power = (nlen[m] - 1 - k).astype(np.uint64)
        out[nstart[m] + k] = (v[m] // (np.uint64(10) ** power) % np.uint64(10)).astype(np.uint8) + 48
    return out.tobytes()


def _encode_proofs(c1: C1Output, cfg: PorepConfig) -> bytes:
    """The partitions' array [[P,...],...] as serde_json writes it."""
    tpl = _template(cfg)
    v = _slot_values(c1, cfg)
    N, K = v.shape
    C = cfg.challenges
    lits = [s.encode() for s in tpl.lits]
    first, last = lits[0], lits[-1]
    table = list(dict.fromkeys(lits[1:K] + [b"[[" + first, last + b"," + first, last + b"],[" + first,
                                             last + b"]]"]))
    ids = {s: i for i, s in enumerate(table)}
    grid = np.empty((N, K), dtype=np.int64)
    grid[:, :K - 1] = [ids[s] for s in lits[1:K]]  # the pieces between a proof's numbers
    nxt = np.arange(1, N + 1)  # after a proof's last number: its closing, the next one's separator
    grid[:, K - 1] = np.where(nxt % C == 0, ids[last + b"],[" + first], ids[last + b"," + first])
    grid[N - 1, K - 1] = ids[last + b"]]"]
    pieces = np.concatenate([[ids[b"[[" + first]], grid.reshape(-1)])
    return _render(pieces, table, v.reshape(-1))


def _json_bytes32(a) -> str:
    a = np.asarray(a, dtype=np.uint8).reshape(-1)
    if a.shape != (32,):
        raise FormatError(f"{WHERE}: a 32-byte field has {a.size} bytes")
    return "[" + ",".join(str(int(b)) for b in a) + "]"


def encode_c1(c1: C1Output, *, envelope: bool | None = None, key_order: tuple[str, ...] | None = None) -> bytes:
    """The JSON rust-fil-proofs (serde_json::to_vec) writes for `c1`, in Curio's envelope when
    `envelope` (default: when c1 has a sector number). key_order: top-level key order (default
    c1.key_order: serde's, or Go's for documents Curio re-encoded)."""
    cfg = c1.config
    order = tuple(key_order or c1.key_order)
    if sorted(order) != sorted(SERDE_ORDER):
        raise FormatError(f"{WHERE}: key_order must be a permutation of {', '.join(SERDE_ORDER)}")
    parts = {k: _json_bytes32(getattr(c1, k)).encode() for k in _BYTES_FIELDS}
    parts["registered_proof"] = f'"{c1.proof_name}"'.encode()
    parts["vanilla_proofs"] = b'{"' + vanilla_tag(cfg).encode() + b'":' + _encode_proofs(c1, cfg) + b"}"
    inner = b"{" + b",".join(b'"' + k.encode() + b'":' + parts[k] for k in order) + b"}"
    if envelope is None:
        envelope = c1.sector_number is not None
    if not envelope:
        return inner
    num = 0 if c1.sector_number is None else int(c1.sector_number)
    size = cfg.sector_size if c1.sector_size is None else int(c1.sector_size)
    return (b'{"SectorNum":' + str(num).encode() + b',"Phase1Out":"' + base64.b64encode(inner) +
            b'","SectorSize":' + str(size).encode() + b"}")


# ---------------------------------------------------------------- the semantic check


def check_c1(c1: C1Output) -> None:
    """Vanilla Proof::verify for every partition and challenge, batched (one hash call per tree
    level for all paths): challenges derived from replica_id and seed (interactive PoRep; synthetic
    and non-interactive PoRep draw theirs otherwise and are only range-checked), parents from the
    graph, tree D paths (sha254) to comm_d, tree C paths (Poseidon, the shape's arities) of the
    columns' hashes to comm_c, tree R-last paths to comm_r_last, Poseidon2(comm_c, comm_r_last) =
    comm_r, each layer's label of the challenged column, and replica = data + last label.
    Raises ValidationError (a ValueError) naming partition, challenge and field."""
    cfg = c1.config
    P, C, L, ar = cfg.partitions, cfg.challenges, cfg.layers, cfg.arities
    parts = c1.partitions
    if len(parts) != P:
        raise ValidationError(f"{WHERE}: {len(parts)} partitions, {c1.proof_name} has {P}")

    def fail(n, name, problem):
        p, c = divmod(int(n), C)
        return ValidationError(f"{WHERE}: partition {p}, challenge {c}: {name}: {problem}")

    for k in _FR_FIELDS:
        if non_canonical_rows(getattr(c1, k)).size:
            raise ValidationError(f"{WHERE}: {k}: not a field element (>= r)")
    for p, part in enumerate(parts):
        for k in ("replica_id", "comm_d", "comm_r"):
            if not np.array_equal(getattr(part, k), getattr(c1, k)):
                raise ValidationError(f"{WHERE}: partition {p}: {k} is not the output's")
    try:
        ch = np.concatenate([np.asarray(p.challenges, dtype=np.uint64) for p in parts])
        parents = np.concatenate([np.asarray(p.parents, dtype=np.uint64) for p in parts]).reshape(P * C, DEGREE)
    except ValueError:
        raise ValidationError(f"{WHERE}: challenges/parents: shapes do not match {c1.proof_name}") from None
    if ch.shape != (P * C,):
        raise ValidationError(f"{WHERE}: expected {C} challenges per partition")
    # challenges and parents
    bad = np.flatnonzero((ch == 0) | (ch >= np.uint64(cfg.nodes)))
    if bad.size:
        raise fail(bad[0], "challenge", f"{int(ch[bad[0]])} is not in 1..{cfg.nodes - 1}")
    if cfg.flavour == "interactive":
        want = np.concatenate([interactive_challenges(cfg, bytes(c1.replica_id), bytes(c1.seed), p)
                               for p in range(P)])
        bad = np.flatnonzero(ch != want)
        if bad.size:
            n = bad[0]
            raise fail(n, "replica_column_proofs.c_x.column.index", f"challenge {int(ch[n])}, but replica_id and "
                                                                    f"seed derive {int(want[n])}")
    graph = SdrGraph.for_proof(c1.registered_proof)
    want = graph.parents(ch.astype(np.int64)).astype(np.uint64)
    ok = parents == want
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j + 1) + ".column.index", f"{int(parents[n, j])} is not the graph's parent "
                                                          f"{int(want[n, j])}")
    # tree D (sha254, binary) to comm_d
    cur = np.concatenate([p.data_leaves for p in parts]).astype(np.uint8)
    dpaths = np.concatenate([p.data_paths for p in parts])
    for lv in range(cfg.tree_d_depth):
        bit = ((ch >> np.uint64(lv)) & np.uint64(1)).astype(bool)[:, None]
        sib = dpaths[:, lv]
        cur = sha254_many(np.concatenate([np.where(bit, sib, cur), np.where(bit, cur, sib)], axis=1))
    n = _first_bad(cur == c1.comm_d)
    if n is not None:
        raise fail(n, "comm_d_proofs", f"the data leaf and path hash to {_hex(cur[n])}, not comm_d {_hex(c1.comm_d)}")
    # tree C and tree R-last (Poseidon)
    rows = np.concatenate([np.concatenate([np.asarray(p.columns)[:, None], p.parent_columns], axis=1)
                           for p in parts])  # [N, 15, L, 32]
    leaves = _column_hashes(rows).reshape(-1, 32)
    col_index = np.concatenate([ch[:, None], parents], axis=1).reshape(-1)
    sibs = [np.concatenate([np.concatenate([np.asarray(p.column_paths[lv])[:, None], p.parent_paths[lv]], axis=1)
                            for p in parts]).reshape(-1, ar[lv] - 1, 32) for lv in range(len(ar))]
    rleaves = np.concatenate([p.replica_leaves for p in parts])
    rsibs = [np.concatenate([p.replica_paths[lv] for p in parts]) for lv in range(len(ar))]
    roots = path_roots(np.concatenate([leaves, rleaves]), [np.concatenate([s, r]) for s, r in zip(sibs, rsibs)],
                       _digits(np.concatenate([col_index, ch]), ar))
    croots = roots[:len(leaves)].reshape(P * C, DEGREE + 1, 32)
    rroots = roots[len(leaves):]
    comm_c = np.repeat(np.stack([p.comm_c for p in parts]), C * (DEGREE + 1), axis=0).reshape(P * C, DEGREE + 1, 32)
    ok = (croots == comm_c).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        j = int(np.argmin(ok[n]))
        raise fail(n, _col_name(j), f"the column's hash and tree C path hash to {_hex(croots[n, j])}, not "
                                    f"comm_c {_hex(comm_c[n, j])}")
    comm_r_last = np.repeat(np.stack([p.comm_r_last for p in parts]), C, axis=0)
    n = _first_bad(rroots == comm_r_last)
    if n is not None:
        raise fail(n, "comm_r_last_proof", f"the replica leaf and path hash to {_hex(rroots[n])}, not "
                                           f"comm_r_last {_hex(comm_r_last[n])}")
    calc = comm_r_of(np.stack([p.comm_c for p in parts]), np.stack([p.comm_r_last for p in parts]))
    for p in range(P):
        if not np.array_equal(calc[p], c1.comm_r):
            raise ValidationError(f"{WHERE}: partition {p}: comm_r: Poseidon(comm_c, comm_r_last) = "
                                  f"{_hex(calc[p])} is not comm_r {_hex(c1.comm_r)}")
    # labels (labeling_proof.rs create_label) and the encoding (encoding_proof.rs verify)
    lab = _labeling_parents(rows)  # [N, L, 37, 32]
    N = P * C
    head = np.zeros((N, L, 64), dtype=np.uint8)
    head[:, :, :32] = np.asarray(c1.replica_id, dtype=np.uint8)
    head[:, :, 32:36] = np.arange(1, L + 1, dtype=">u4").view(np.uint8).reshape(L, 4)
    head[:, :, 36:44] = ch.astype(">u8").view(np.uint8).reshape(N, 1, 8)
    msgs = np.concatenate([head, lab.reshape(N, L, TOTAL_PARENTS * 32)], axis=2).reshape(N * L, -1)
    labels = sha254_many(msgs).reshape(N, L, 32)
    ok = (labels == rows[:, 0]).all(axis=2)
    n = _first_bad(ok)
    if n is not None:
        layer = int(np.argmin(ok[n]))
        raise fail(n, f"replica_column_proofs.c_x.column.rows[{layer}]", f"is not the label its parents give "
                                                                         f"({_hex(labels[n, layer])})")
    data = np.concatenate([p.data_leaves for p in parts])
    enc = from_mont(fr().add(to_mont(rows[:, 0, L - 1]), to_mont(data)))
    n = _first_bad(enc == rleaves)
    if n is not None:
        raise fail(n, "comm_r_last_proof.leaf", f"{_hex(rleaves[n])} is not the data leaf encoded with the last "
                                                f"label ({_hex(enc[n])})")
