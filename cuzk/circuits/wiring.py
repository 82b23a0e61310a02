"""Composition of stamped templates, the same code in every constraint-system mode.

A circuit here is a sequence of `Synth` calls, each stamping one template
for N instances at once. Wires travel as arrays: `Bits` (variable codes
int64[..., k] and, in witness mode, their bits uint8[..., k]) and `Nums`
(codes int64[...] and Montgomery values uint64[..., 4]). When the
constraint system records only, values are None and no witness work runs;
when it needs values, each call computes its template's aux assignment for
all N instances (bit tape or numba kernel) before stamping. So recording and
witness generation allocate in the same order by construction.

Witness kernels parallelize over instances; with little work per thread
a parallel region costs more than it gains (and stalls for a whole time
slice when a worker is descheduled on a busy machine), so `kernels(n, ops)`
gives a call only as many threads as have enough work, down to the calling
thread alone. Parallelism across partitions is the engine's (synthesis
workers, each with `kernel_threads`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from cuzk.r1cs import ONE
from cuzk.r1cs.witness_phases import phase

from . import bit_templates as bt
from . import field_templates as ft
from .fr_bytes import KEPT, fr

MIN_INSTANCES_PER_THREAD = 8
MIN_OPS_PER_THREAD = 1 << 16  # bit-tape instructions (~0.5 ms) that make a parallel region pay
SLICED_OPS = 4  # a bit-sliced tape instruction for 64 instances costs about 4 scalar ones (sums ripple)


@contextlib.contextmanager
def kernels(instances: int, ops_per_instance: int = 0):
    """Run the witness kernels of `instances` instances on as many kernel
    threads as get MIN_INSTANCES_PER_THREAD instances each, or, given the
    work per instance (bit-tape instructions), MIN_OPS_PER_THREAD of work
    each (bit-sliced SHA-256 runs 64 instances per word, so a few words of
    26k instructions each are worth a thread each);
    below that, on the calling thread."""
    import numba

    threads = numba.get_num_threads()
    want = instances // MIN_INSTANCES_PER_THREAD
    if ops_per_instance:
        want = max(want, min(instances, instances * ops_per_instance // MIN_OPS_PER_THREAD))
    use = max(1, min(threads, want))
    if use == threads:
        yield
        return
    numba.set_num_threads(use)
    try:
        yield
    finally:
        numba.set_num_threads(threads)


@dataclass
class Bits:
    vars: np.ndarray  # int64[..., k]
    vals: np.ndarray | None  # uint8[..., k]

    def __getitem__(self, idx) -> "Bits":
        return Bits(self.vars[idx], None if self.vals is None else self.vals[idx])

    def reshape(self, *shape) -> "Bits":
        return Bits(self.vars.reshape(*shape), None if self.vals is None else self.vals.reshape(*shape))


@dataclass
class Nums:
    vars: np.ndarray  # int64[...]
    vals: np.ndarray | None  # uint64[..., 4]

    def __getitem__(self, idx) -> "Nums":
        return Nums(self.vars[idx], None if self.vals is None else self.vals[idx])

    def reshape(self, *shape) -> "Nums":
        return Nums(self.vars.reshape(*shape), None if self.vals is None else self.vals.reshape(*shape + (4,)))


def cat_bits(parts: list[Bits], axis: int = -1) -> Bits:
    vals = None if parts[0].vals is None else np.concatenate([p.vals for p in parts], axis=axis)
    return Bits(np.concatenate([p.vars for p in parts], axis=axis), vals)


def cat_nums(parts: list[Nums]) -> Nums:
    vals = None if parts[0].vals is None else np.concatenate([p.vals for p in parts], axis=0)
    return Nums(np.concatenate([p.vars for p in parts]), vals)


class Synth:
    def __init__(self, cs):
        self.cs = cs
        self.curve = cs.curve
        self.values = cs.needs_values
        self._fr = fr()
        self.zero = None

    # ---- allocation --------------------------------------------------------
    def inputs(self, values) -> Nums:
        """Public inputs; `values` Montgomery uint64[n, 4] (witness mode) or a count."""
        if self.values:
            values = np.ascontiguousarray(values, dtype=np.uint64).reshape(-1, 4)
            return Nums(self.cs.alloc_input_many(len(values), values), values)
        return Nums(self.cs.alloc_input_many(int(values)), None)

    def alloc(self, values) -> Nums:
        """Private field elements; `values` Montgomery uint64[n, 4] or a count."""
        if self.values:
            values = np.ascontiguousarray(values, dtype=np.uint64).reshape(-1, 4)
            return Nums(self.cs.alloc_many(len(values), values), values)
        return Nums(self.cs.alloc_many(int(values)), None)

    def alloc_zero(self) -> Bits:
        """A variable constrained to 0, for constant-zero bits on template interfaces."""
        from cuzk.r1cs import LC

        (z,) = self.cs.alloc_many(1, np.zeros(1, np.uint8) if self.values else None).tolist()
        self.cs.enforce(LC.of(z), ONE, LC())
        self.zero = Bits(np.array([z], np.int64), np.zeros(1, np.uint8) if self.values else None)
        return self.zero

    def constant_bits(self, bits: np.ndarray) -> Bits:
        """Constant bits as wires: ONE for 1, the zero variable for 0."""
        bits = np.asarray(bits, dtype=np.uint8)
        vars_ = np.where(bits == 1, ONE, self.zero.vars[0]).astype(np.int64)
        return Bits(vars_, bits.copy() if self.values else None)

    # ---- stamping ----------------------------------------------------------
    def stamp(self, gadget, in_vars: np.ndarray, aux, columns=()) -> np.ndarray:
        """Stamp gadget for len(in_vars) instances; returns the codes of its aux
        `columns` [N, len(columns)] (only those: the others are never wired)."""
        in_vars = np.ascontiguousarray(in_vars, dtype=np.int64)
        with phase("stamp"):
            return self.cs.stamp_columns(gadget.template, in_vars.shape[0], in_vars, aux if self.values else None,
                                         columns)

    def stamp_bits(self, gadget, inputs: Bits | None, external: np.ndarray | None, n: int | None = None) -> Bits:
        """A bit template: the witness is its tape run bit-sliced over N instances.
        inputs: the interface (bit values; non-bit interface inputs carry 0);
        external: the tape's external bits uint8[N, num_external]. Returns the outputs."""
        if inputs is None:
            in_vars = np.zeros((n, 0), dtype=np.int64)
            in_bits = np.zeros((n, 0), dtype=np.uint8)
        else:
            in_vars, in_bits = inputs.vars, inputs.vals
        sliced = out_bits = None
        out = gadget.outputs
        if self.values:
            groups = (in_vars.shape[0] + 63) >> 6  # 64 instances per word
            with phase("bit tapes"), kernels(groups, SLICED_OPS * gadget.program.num_aux):
                sliced = gadget.program.run_sliced(in_bits, external)
                out_bits = sliced.columns(out)
        codes = self.stamp(gadget, in_vars, sliced, out)  # bits stay sliced until cs.witness()
        return Bits(codes, out_bits)

    # ---- bit-level blocks --------------------------------------------------------
    def decompose_nodes(self, targets: Nums) -> Bits:
        """254 SHA-order bits of each target (a node or label below 2^254)."""
        from .fr_bytes import from_mont, node_bits

        g = bt.decompose_node(self.curve)
        n = len(targets.vars)
        ext = node_bits(from_mont(targets.vals)) if self.values else None
        return self.stamp_bits(g, Bits(targets.vars.reshape(n, 1), _zeros(self, n, 1)), ext)

    def decompose_indices(self, targets: Nums, nbits: int, indices: np.ndarray | None) -> Bits:
        """Little-endian bits of each target index (indices: their uint64 values)."""
        from .fr_bytes import index_bits

        g = bt.decompose_index(self.curve, nbits)
        n = len(targets.vars)
        ext = index_bits(indices, nbits) if self.values else None
        return self.stamp_bits(g, Bits(targets.vars.reshape(n, 1), _zeros(self, n, 1)), ext)

    def free_node_bits(self, n: int, bits: np.ndarray | None) -> Bits:
        return self.stamp_bits(bt.free_bits(self.curve, bt.NODE_BITS), None, bits, n=n)

    def pack_equal(self, nodes: Bits, targets: Nums) -> None:
        n = nodes.vars.shape[0]
        iface = cat_bits([nodes, Bits(targets.vars.reshape(n, 1), _zeros(self, n, 1))])
        self.stamp_bits(bt.pack_equal(self.curve), iface, _ext0(self, n))

    def full_node(self, nodes: Bits) -> Bits:
        """Kept bits [..., 254] -> 256 SHA-order bits with the zero variable at the dropped positions."""
        shape = nodes.vars.shape[:-1] + (256,)
        vars_ = np.full(shape, self.zero.vars[0], dtype=np.int64)
        vars_[..., KEPT] = nodes.vars
        vals = None
        if self.values:
            vals = np.zeros(shape, dtype=np.uint8)
            vals[..., KEPT] = nodes.vals
        return Bits(vars_, vals)

    def sha_path(self, leaf: Bits, positions: Bits, siblings: np.ndarray | None) -> Bits:
        """Binary SHA-256 path: leaf [N, 254], positions [N, depth] bits,
        siblings bits uint8[N, depth, 254] -> root bits [N, 254]."""
        g = bt.sha_level(self.curve)
        cur = leaf
        for t in range(positions.vars.shape[1]):
            cur = self.stamp_bits(g, cat_bits([cur, positions[:, t : t + 1]]),
                                  None if siblings is None else np.ascontiguousarray(siblings[:, t]))
        return cur

    def sha_pairs(self, left: Bits, right: Bits) -> Bits:
        return self.stamp_bits(bt.sha_pair(self.curve), cat_bits([left, right]), _ext0(self, left.vars.shape[0]))

    # ---- field-level blocks ------------------------------------------------------
    def poseidon_paths(self, leaves: Nums, positions: Bits, siblings: np.ndarray | None, arity: int = 8) -> Nums:
        """Poseidon Merkle paths: leaves [N], positions [N, depth * log2(arity)] bits,
        siblings Montgomery uint64[N, depth, arity-1, 4] -> roots [N]."""
        t = ft.poseidon_level(self.curve, arity)
        nb = (arity - 1).bit_length()
        depth = positions.vars.shape[1] // nb
        cur = leaves
        for lv in range(depth):
            pos = positions[:, lv * nb : (lv + 1) * nb]
            in_vars = np.concatenate([cur.vars[:, None], pos.vars], axis=1)
            aux = parent = None
            if self.values:
                with phase("poseidon"), kernels(len(in_vars)):
                    aux, parent = ft.poseidon_level_witness(t, self.curve, cur.vals, pos.vals,
                                                            np.ascontiguousarray(siblings[:, lv]))
            codes = self.stamp(t.gadget, in_vars, aux, t.gadget.outputs[:1])
            cur = Nums(codes[:, 0], parent)
        return cur

    def columns(self, labels: np.ndarray | None, n: int, width: int) -> tuple[Nums, Nums]:
        """n columns of `width` labels (Montgomery uint64[n, width, 4]) ->
        (label wires [n, width], column hashes [n])."""
        g = ft.column(self.curve, width)
        aux = h = None
        if self.values:
            with phase("poseidon"), kernels(n):
                aux, h = ft.column_witness(self.curve, np.ascontiguousarray(labels))
        codes = self.stamp(g, np.zeros((n, 0), np.int64), aux, np.append(np.arange(width), g.outputs[0]))
        return Nums(codes[:, :width], labels), Nums(codes[:, width], h)

    def poseidon2(self, x: Nums, y: Nums) -> Nums:
        g = ft.poseidon2(self.curve)
        aux = h = None
        if self.values:
            with phase("poseidon"), kernels(len(x.vars)):
                aux, h = ft.poseidon2_witness(self.curve, x.vals, y.vals)
        codes = self.stamp(g, np.stack([x.vars, y.vars], axis=1), aux, g.outputs[:1])
        return Nums(codes[:, 0], h)

    def equal(self, x: Nums, y: Nums) -> None:
        self.stamp(ft.equal(self.curve), np.stack([x.vars, y.vars], axis=1), None)


def _zeros(s: Synth, n: int, k: int):
    return np.zeros((n, k), dtype=np.uint8) if s.values else None


def _ext0(s: Synth, n: int):
    return np.zeros((n, 0), dtype=np.uint8) if s.values else None
