"""rust-fil-proofs v28's FallbackPoSt circuit (WindowPoSt and WinningPoSt), constraint for constraint.

A partition is `sectors_per_partition` slots; each slot (storage-proofs-post
fallback/circuit.rs `Sector::synthesize`) allocates comm_r_last, comm_c and
comm_r, makes comm_r public (`inputize`: input * 1 = comm_r), checks
Poseidon(comm_c, comm_r_last) = comm_r, then opens `challenges_per_sector`
leaves of tree_r_last (storage-proofs-core gadgets/por.rs, private root):
the leaf; per path level its index bits (`AllocatedBit`), the siblings, the
preimage (`insertion`), the Poseidon hash of the level's arity; the index
bits packed into one public input (`multipack`); the computed root equal to
comm_r_last. Filecoin's parameters fix the R1CS, so every slot allocates and
constrains in exactly this order (neptune's Poseidon gadget, bellpepper's
bits).

Public inputs are only ever allocated in the order bellperson allocates them
(per slot: comm_r, then each challenge's packed index), so they are made
first and handed to the slots; the slots are one recorded template
(`slot_template`) stamped for every slot, its witness computed for all slots
at once (`slot_witness`) in the template's allocation order (`SlotWitness`
follows `slot` step for step), so recording and witness agree by construction.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cuzk.gadgets.boolean import Boolean
from cuzk.gadgets.insertion import enforce_equal, insert, insert_values, pack_bits_into_input
from cuzk.gadgets.insertion import num_aux as insert_aux
from cuzk.gadgets.num import Num
from cuzk.gadgets.poseidon.neptune_gadget import num_constraints as hash_size
from cuzk.gadgets.poseidon.neptune_gadget import poseidon_hash
from cuzk.gadgets.poseidon.neptune_stamped import hash_witness
from cuzk.field.threads import run_spans
from cuzk.r1cs import LC, ONE, RecordingCS
from cuzk.r1cs.witness_phases import phase

from cuzk.circuits.filecoin.common.fr_bytes import CURVE, ints, small_to_mont, to_mont
from cuzk.circuits.filecoin.common.registered_proofs import PostConfig

FR_CAPACITY = 254  # bits per packed public input (blstrs Scalar::CAPACITY)


def _bits_per_level(cfg: PostConfig) -> list[int]:
    return [a.bit_length() - 1 for a in cfg.arities]


@dataclass(frozen=True)
class PostCounts:
    constraints: int  # per partition, as rust-fil-proofs' circuitinfo counts them (the circuit's own)
    inputs: int  # public inputs with ONE, as circuitinfo counts them
    aux: int


def counts(cfg: PostConfig) -> PostCounts:
    """Sizes of one partition from the gadgets' sizes, without building anything."""
    levels = list(zip(cfg.arities, _bits_per_level(cfg)))
    challenge_rows = sum(nb + insert_aux(a) + hash_size(a) for a, nb in levels) + 2  # + packing + root
    challenge_aux = 1 + sum(nb + (a - 1) + insert_aux(a) + hash_size(a) for a, nb in levels)
    k, P = cfg.challenges_per_sector, cfg.sectors_per_partition
    slot_rows = 1 + hash_size(2) + 1 + k * challenge_rows  # inputize, H(comm_c, comm_r_last), equality
    slot_aux = 3 + hash_size(2) + k * challenge_aux
    return PostCounts(P * slot_rows, 1 + P * (1 + k), P * slot_aux)


# ---- one slot, gadget by gadget (any constraint-system mode) ----------------------------------


@dataclass
class SlotValues:
    """One slot's private values as canonical ints (TestCS / WitnessCS runs)."""

    comm_r: int
    comm_c: int
    comm_r_last: int
    leaves: list[int]  # [k]
    siblings: list[list[list[int]]]  # [k][level][arity - 1]
    indices: list[list[int]]  # [k][level]: the node's position in its group


def slot(cs, cfg: PostConfig, comm_r_input: int, challenge_inputs: list[int], v: SlotValues | None = None) -> None:
    """`Sector::synthesize` for one slot, the public inputs already allocated."""
    with cs.namespace("comm_r_last"):
        comm_r_last = Num.alloc(cs, None if v is None else v.comm_r_last)
    with cs.namespace("comm_c"):
        comm_c = Num.alloc(cs, None if v is None else v.comm_c)
    with cs.namespace("comm_r"):
        comm_r = Num.alloc(cs, None if v is None else v.comm_r)
    with cs.namespace("comm_r_input"):
        cs.enforce(LC.of(comm_r_input), ONE, comm_r.lc(), name="enforce input is correct")
    with cs.namespace("H_comm_c_comm_r_last"):
        h = poseidon_hash(cs, [comm_c, comm_r_last])
    enforce_equal(cs, comm_r, h, name="enforce_comm_c_comm_r_last_hash_comm_r")
    for k, pub in enumerate(challenge_inputs):
        with cs.namespace(f"challenge_inclusion_{k}"):
            _inclusion(cs, cfg, comm_r_last, pub, k, v)


def _inclusion(cs, cfg: PostConfig, root: Num, pub: int, k: int, v: SlotValues | None) -> None:
    """`PoRCircuit::synthesize` with a private root (comm_r_last, already allocated)."""
    with cs.namespace("value"):
        cur = Num.alloc(cs, None if v is None else v.leaves[k])
    bits: list[Boolean] = []
    for level, (arity, nb) in enumerate(zip(cfg.arities, _bits_per_level(cfg))):
        with cs.namespace(f"level {level}"):
            index = None if v is None else v.indices[k][level]
            level_bits = []
            for i in range(nb):
                with cs.namespace(f"index bit {i}"):
                    level_bits.append(Boolean.alloc(cs, None if index is None else (index >> i) & 1))
            sibs = []
            for i in range(arity - 1):
                with cs.namespace(f"path element {i}"):
                    sibs.append(Num.alloc(cs, None if v is None else v.siblings[k][level][i]))
            preimage = insert(cs, cur, level_bits, sibs)
            with cs.namespace("computation of commitment hash"):
                cur = poseidon_hash(cs, preimage)
            bits += level_bits
    if len(bits) > FR_CAPACITY:
        raise ValueError("a PoSt challenge spans one packed input")
    with cs.namespace("path"):
        pack_bits_into_input(cs, bits, pub, name="packing constraint 0")
    enforce_equal(cs, cur, root, name="enforce root is correct")


# ---- the partition: inputs first, then every slot stamped ---------------------------------------


@functools.cache
def slot_template(cfg: PostConfig):
    """The slot recorded once: template inputs 1 (comm_r) and 2..k+1 (packed challenges)."""
    cs = RecordingCS(CURVE)
    iface = cs.alloc_input_many(1 + cfg.challenges_per_sector).tolist()
    slot(cs, cfg, iface[0], iface[1:])
    return cs.template()


@dataclass
class PostInputs:
    """What one partition's witness needs, per slot (P slots, k challenges, L levels):
    Montgomery uint64[..., 4] field elements and small ints."""

    comm_r: np.ndarray  # [P, 4]
    comm_c: np.ndarray  # [P, 4]
    comm_r_last: np.ndarray  # [P, 4]
    leaves: np.ndarray  # [P, k, 4]
    siblings: tuple[np.ndarray, ...]  # per level: [P, k, arity - 1, 4]
    indices: np.ndarray  # uint64[P, k, L]
    challenges: np.ndarray  # uint64[P, k]

    @classmethod
    def from_slots(cls, slots) -> "PostInputs":
        """From `post_partition.PartitionSlots` (32-byte nodes); ValueError on a node >= r."""
        return cls(to_mont(slots.comm_r), to_mont(slots.comm_c), to_mont(slots.comm_r_last),
                   to_mont(slots.leaves), tuple(to_mont(s) for s in slots.siblings),
                   np.asarray(slots.indices, dtype=np.uint64), np.asarray(slots.challenges, dtype=np.uint64))

    def public_values(self) -> np.ndarray:
        """Montgomery uint64[P * (1 + k), 4]: per slot comm_r, then its challenges."""
        P, k = self.challenges.shape
        out = np.empty((P, 1 + k, 4), dtype=np.uint64)
        out[:, 0] = self.comm_r
        out[:, 1:] = small_to_mont(self.challenges.ravel()).reshape(P, k, 4)
        return out.reshape(-1, 4)


def slot_witness(cfg: PostConfig, x: PostInputs) -> np.ndarray:
    """aux uint64[P, template aux, 4] (Montgomery) of every slot, in `slot`'s allocation order."""
    P, k = x.challenges.shape
    template = slot_template(cfg)
    aux = np.empty((P, template.num_aux, 4), dtype=np.uint64)
    w = _Cursor(aux)
    one = small_to_mont([1])[0]
    w.put(x.comm_r_last)
    w.put(x.comm_c)
    w.put(x.comm_r)
    w.put_hash(np.stack([x.comm_c, x.comm_r_last], axis=1))
    nbs = _bits_per_level(cfg)
    for c in range(k):
        cur = w.put(x.leaves[:, c])
        for level, nb in enumerate(nbs):
            index = x.indices[:, c, level]
            bits = ((index[:, None] >> np.arange(nb, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
            with phase("index bits, siblings, insertion"):
                w.put_block(np.where(bits[:, :, None].astype(bool), one, np.uint64(0)))
                sibs = x.siblings[level][:, c]
                w.put_block(sibs)
                ins_aux, preimage = insert_values(cur, bits, sibs, one)
                w.put_block(ins_aux)
            cur = w.put_hash(preimage)
    if w.pos != template.num_aux:
        raise AssertionError(f"slot witness wrote {w.pos} of {template.num_aux} aux values")
    return aux


# A full 32 GiB WindowPoSt partition copies 4 GB of aux columns into its 2349 slots: 1.3 s on one thread
# of the 16-core device host, a quarter of the witness.
PARALLEL_COPY_BYTES = 8 << 20


def _copy_rows(lo: int, hi: int, dst: np.ndarray, src: np.ndarray) -> None:
    dst[lo:hi] = src[lo:hi]


class _Cursor:
    """Writes consecutive aux columns of all slots."""

    def __init__(self, aux: np.ndarray):
        self.aux = aux
        self.pos = 0

    def put(self, col: np.ndarray) -> np.ndarray:
        self.aux[:, self.pos] = col
        self.pos += 1
        return col

    def put_block(self, block: np.ndarray) -> None:
        n = block.shape[1]
        dst = self.aux[:, self.pos : self.pos + n]
        if block.nbytes >= PARALLEL_COPY_BYTES:  # numpy's copy loop drops the GIL: slot ranges on every thread
            run_spans(_copy_rows, block.shape[0], dst, block)
        else:
            dst[...] = block
        self.pos += n

    def put_hash(self, inputs: np.ndarray) -> np.ndarray:
        with phase("poseidon"):
            h_aux, out = hash_witness(np.ascontiguousarray(inputs))
        with phase("poseidon aux copied into the slots"):
            self.put_block(h_aux)
        return out


def synthesize(cs, cfg: PostConfig, x: PostInputs | None = None) -> None:
    """One partition into `cs` (recording: x None; witness modes: x the partition's inputs)."""
    P, k = cfg.sectors_per_partition, cfg.challenges_per_sector
    if cs.needs_values:
        if x is None:
            raise ValueError("witness mode needs the partition's inputs")
        if x.challenges.shape != (P, k):
            raise ValueError(f"{cfg.name}: {x.challenges.shape[0]} slots of {x.challenges.shape[1]} challenges, "
                             f"the circuit has {P} of {k}")
        pub = cs.alloc_input_many(P * (1 + k), x.public_values())
        with phase("slot template"):
            template = slot_template(cfg)
        with phase("slot witness"):
            aux = slot_witness(cfg, x)
    else:
        pub = cs.alloc_input_many(P * (1 + k))
        template, aux = slot_template(cfg), None
    with phase("stamp"):  # no slot variable is wired further: stamp_columns returns none of their codes
        cs.stamp_columns(template, P, pub.reshape(P, 1 + k), aux, ())


def slot_values(x: PostInputs, s: int) -> SlotValues:
    """Slot s of `x` as ints, for the gadget-level run (TestCS)."""
    P, k = x.challenges.shape
    return SlotValues(
        comm_r=ints(x.comm_r[s])[0], comm_c=ints(x.comm_c[s])[0], comm_r_last=ints(x.comm_r_last[s])[0],
        leaves=ints(x.leaves[s]),
        siblings=[[ints(sib[s, c]) for sib in x.siblings] for c in range(k)],
        indices=[[int(i) for i in x.indices[s, c]] for c in range(k)],
    )
