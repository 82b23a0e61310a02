"""How one proof fits a device-memory budget: which bases stay resident, chunk sizes, the H mode.

A 2^27 partition needs 111-123 GiB on the device when everything is resident (47.5 GB of
bases, the H computation's ~38 GiB of vectors and tables, the MSM's sort scratch); storage
providers own 16-32 GB cards. Under a budget (`[gpus] memory_limit`, `--device-memory`) the
prover instead:

- keeps a base vector resident only where it fits beside every phase's working set, and
  streams the others from pinned host memory in chunks (double-buffered on a device);
- runs every MSM in chunks of at most `chunk_bytes` of bases (its sort scratch scales with
  the chunk), summing the chunks' points;
- computes H one vector at a time (`split_h`: the others parked in host memory, every
  pointwise step in chunks of `elementwise`), instead of all of a, b, c and the coset tables
  at once;
- where even that does not fit (a 2^27 partition under 16 GiB), keeps the witness in pinned
  host memory during H (`park_witness`): it is uploaded for each of the three SpMVs and once
  more for the MSMs' scalars, 3 more uploads of ~4 GiB, instead of sitting beside the
  transforms' vector and scratch; the NTT's twiddles are then H's own, dropped while each
  vector is evaluated (rebuilt by the transform after it: three builds a proof) and after H,
  so that neither the SpMVs nor the MSMs hold them;
- uploads the next witness during a proof only where it fits (`prefetch`), and then leaves its room
  free of window tables.

The plan is arithmetic on the proof's shape, the same for every backend: the CUDA backend
obeys it with CuPy's pool capped at the budget, and the CPU backend follows the same plan
when given a budget, so CPU tests at small sizes walk every streaming path. The byte model
mirrors the CUDA implementation (what each phase keeps on the device); where it is wrong the
capped pool raises out-of-memory rather than silently exceeding the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.errors import CuzkError

FR = 32  # bytes of an Fr element (4 64-bit limbs)
SORT_BYTES = 176  # device scratch per MSM scalar of a chunk: digit keys and sorted entries (17 windows
                  # of 4 B each, twice), classification 8, a gathered scalar 32
STREAM_TARGET = 1 << 30  # bytes of bases per streamed chunk when the budget allows (~2^23 G1 points):
                         # long enough that a chunk's MSM hides the next chunk's upload
ELEMENTWISE_TARGET = 1 << 22  # Fr elements per pointwise step of the split H (128 MiB chunks)
LONG_ROW_SCAN = 9  # device bytes per row while spmv.long_rows scans an uploaded matrix: the row
                   # lengths (indptr's type, at most 8 B) and a flag
ACC_THREADS_MAX = 6144 * 144  # the accumulation's threads at most (cuda/msm.py: ACC_WAVES * ACC_BLOCKS *
                              # ACC_THREADS per SM, 144 SMs bounding the H100/H200's 132); each keeps a
                              # first and a last XYZZ point
RESERVE = 16  # 1/RESERVE of the budget is left out of the plan: fragmentation and what the model misses
              # (measured on an H100, 2026-12-06: a plan at the full budget ran out at 2^20 and 2^27)
ORDER = ("b_g2", "b_g1", "a", "l", "h")  # residency preference: the sparse MSMs first (their upload
                                         # would not hide behind their short kernels), H's last


class MemoryBudgetError(CuzkError, ValueError):
    """A device-memory budget too small for the proof, or unreadable: one line for the user."""


@dataclass(frozen=True)
class ProofShape:
    """What a proof holds on a device: domain size, rows, witness length, base vectors
    (name -> (points, bytes per point)), the circuit's CSR matrices (per matrix, bytes) and the
    A and B density indices (kept on the device to gather those MSMs' scalars)."""

    n: int
    rows: int
    num_vars: int
    bases: dict
    matrices: tuple = ()
    indices: int = 0

    @property
    def base_bytes(self) -> int:
        return sum(count * pb for count, pb in self.bases.values())


@dataclass(frozen=True)
class MemoryPlan:
    budget: int
    resident: frozenset  # base vectors kept on the device
    chunk_bytes: int  # bases per MSM chunk, in bytes (points: chunk_points)
    split_h: bool  # H one vector at a time, the others in host memory
    elementwise: int  # Fr elements per pointwise step of the split H
    matrices_resident: bool  # the SpMV's matrices stay on the device (else uploaded one at a time)
    prefetch: bool  # the next witness may upload during a proof
    table_room: int  # bytes MSM window tables may take
    park_witness: bool = False  # the witness stays in host memory during H, uploaded where used

    def chunk_points(self, point_bytes: int) -> int:
        return max(1, self.chunk_bytes // point_bytes)

    def streams(self, name: str) -> bool:
        return name not in self.resident

    def describe(self) -> str:
        streamed = [k for k in ORDER if k not in self.resident]
        return (f"device budget {_gib(self.budget)}: resident {', '.join(sorted(self.resident)) or 'none'}; "
                f"streamed {', '.join(streamed) or 'none'} in chunks of {_gib(self.chunk_bytes)}; "
                f"H {'split, one vector at a time' if self.split_h else 'whole'}"
                f"{', witness parked in host memory' if self.park_witness else ''}; "
                f"tables {_gib(self.table_room)}")


def _gib(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def shape_of(pk, circuit=None) -> ProofShape:
    """The shape of `pk`'s proofs (and of `circuit`'s SpMV when the backend evaluates it)."""
    curve = pk.curve
    pb = {"g1": 2 * curve.fq.limbs * 8, "g2": 4 * curve.fq.limbs * 8}
    bases = {name: (int(pk.bases(name).shape[0]), pb["g2" if name == "b_g2" else "g1"])
             for name in ("h", "l", "a", "b_g1", "b_g2")}
    mats = ()
    rows = pk.domain_size
    if circuit is not None and getattr(circuit, "matrices", None):
        mats = tuple(int(m.indptr.nbytes + m.cols.nbytes + m.coeff_idx.nbytes) for m in circuit.matrices)
        rows = int(circuit.num_rows)
    indices = int(np.asarray(pk.a_vars).nbytes + np.asarray(pk.b_vars).nbytes)
    return ProofShape(int(pk.domain_size), rows, int(pk.num_vars), bases, mats, indices)


def whole_h_bytes(s: ProofShape) -> int:
    """Today's H on the device: a, b, c, the two coset tables, twiddles (n/2), C's coefficients,
    A's evaluations and a transform's two buffers; the witness and the matrices beside them."""
    return FR * (s.num_vars + 3 * s.rows) + int(FR * 6.5 * s.n) + sum(s.matrices)


def split_h_bytes(s: ProofShape, elementwise: int, matrices_resident: bool, park_witness: bool = False) -> int:
    """H one vector at a time: while a row vector is evaluated, the witness, the matrix (one at a
    time unless all are resident) and the zero-padded vector; while it is transformed, the vector,
    the transform's scratch (its last pass cannot write in place), and per pointwise chunk three
    cached power tables, a scaled one and a parked vector's chunk; throughout, the twiddles of
    both directions (n/2 each), which ntt.py keeps once built, and the witness.

    With the witness parked, the SpMV phase holds neither: the witness is uploaded for it and the
    twiddles are dropped before the vector loads (cuda/split_ops.py), so what is small beside them
    counts too: the cached chunk power tables (two at most while a vector loads: the third is the
    last step's) and the scratch of the long-row scan that follows a matrix's upload
    (spmv.long_rows: a row-pointer difference, at most 8 B, and a flag per row)."""
    mats = sum(s.matrices) if matrices_resident else max(s.matrices, default=0)
    witness = FR * s.num_vars
    twiddles = FR * s.n
    tables = 5 * FR * elementwise
    if park_witness:
        evaluate = witness + FR * s.n + mats + LONG_ROW_SCAN * s.rows + 2 * FR * elementwise
        return max(evaluate, twiddles + FR * 2 * s.n + tables)
    evaluate, transform = witness + FR * s.n + mats, FR * 2 * s.n + tables + witness
    return twiddles + max(evaluate, transform)


def bucket_bytes(points: int, point_bytes: int) -> int:
    """A plain device MSM's buckets over `points` scalars: its windows of 2^(c-1) XYZZ points
    (twice an affine point's bytes), c as cuda/msm.py's choose_window picks it."""
    if points <= 0:
        return 0
    c = 8 if points < 1 << 12 else 16 if points <= 1 << 24 else 20
    return ((256 + c) // c) * (1 << (c - 1)) * 2 * point_bytes


def msm_bytes(s: ProofShape, chunk_bytes: int, streamed: bool, buckets: bool = True, split: bool = True,
              park_witness: bool = False) -> int:
    """The MSM phase: the witness's scalars and H's (or, after MSM H, the gathered scalars of A or
    B, at most one per variable), the density indices, the NTT tables the device keeps cached (the
    twiddles, n/2; whole, also the two coset tables; none with the witness parked, where the
    twiddles go with H), and for the worse group a chunk's sort scratch, its buckets and, with
    streaming, two chunk buffers of bases."""
    worst = 0
    for pb in {pb for _, pb in s.bases.values()}:
        most = max(c for c, b in s.bases.values() if b == pb)
        points = min(chunk_bytes // pb, most)
        acc = 2 * min(-(-points * 17 // 16), ACC_THREADS_MAX) * 2 * pb if buckets else 0  # first, last
        worst = max(worst, SORT_BYTES * points + (bucket_bytes(points, pb) if buckets else 0) + acc)
    cached = FR * s.n if split else FR * s.n * 3  # twiddles both ways; whole: the two coset tables too
    if split and park_witness:
        cached = 0
    return (FR * (s.num_vars + max(s.n, s.num_vars)) + s.indices + cached + worst
            + (2 * chunk_bytes if streamed else 0))


def plan(s: ProofShape, budget: int | None, min_chunk_bytes: int = 1 << 16,
         min_elementwise: int = 1 << 10, buckets: bool = True) -> MemoryPlan | None:
    """The plan for proofs of shape `s` within `budget` bytes of device memory, or None (no
    budget: everything resident, no chunks, as without this module). Raises MemoryBudgetError
    when even one chunk at a time does not fit. `buckets`: count the device MSM's buckets (the
    CPU backend's MSM keeps its own on the host)."""
    if budget is None:
        return None
    cap = int(budget)
    budget = cap - cap // RESERVE
    total = s.base_bytes
    largest = max((c * pb for c, pb in s.bases.values()), default=0)
    # everything resident, H whole, every MSM in one piece: today's path, tables in what is left
    whole_chunk = largest
    need = total + max(whole_h_bytes(s), msm_bytes(s, whole_chunk, False, buckets, False))
    witness = FR * s.num_vars  # the next proof's, uploading during this one where `prefetch`
    if need <= budget:
        prefetch = need + witness <= budget
        return MemoryPlan(cap, frozenset(s.bases), whole_chunk, False, s.n, True, prefetch,
                          budget - need - (witness if prefetch else 0))
    elementwise = min(s.n, max(min_elementwise, ELEMENTWISE_TARGET))
    mats_resident = split_h_bytes(s, elementwise, True) <= budget // 2
    h_need = whole_h_bytes(s) if whole_h_bytes(s) <= budget // 2 else split_h_bytes(s, elementwise, mats_resident)
    split = h_need != whole_h_bytes(s)
    # over the budget: the witness waits in host memory while H transforms (3 uploads of it more),
    # before pointwise chunks shrink (at 2^27, chunks of 2^10 would cost ~10^5 kernel launches more)
    park = split and h_need > budget
    if park:
        h_need = split_h_bytes(s, elementwise, mats_resident, park)
    while split and h_need > budget and elementwise > min_elementwise:
        elementwise //= 2
        h_need = split_h_bytes(s, elementwise, mats_resident, park)
    chunk = min(STREAM_TARGET, largest)
    while chunk >= min_chunk_bytes and msm_bytes(s, chunk, True, buckets, split, park) > budget:
        chunk //= 2
    if h_need > budget or chunk < min_chunk_bytes:
        smallest = min(STREAM_TARGET, largest)  # the least chunk the halving above can reach
        while smallest // 2 >= min_chunk_bytes:
            smallest //= 2
        floor = max(h_need, msm_bytes(s, smallest, True, buckets, split, park))
        raise MemoryBudgetError(
            f"a device-memory budget of {_gib(cap)} is too small for this proof (domain 2^{s.n.bit_length() - 1}, "
            f"{s.num_vars} variables): it needs at least {_gib(floor * RESERVE // (RESERVE - 1))}, every base streamed in chunks")
    resident: set[str] = set()
    used = 0
    for name in ORDER:  # the rest of the budget, greedily, beside the larger of the phases
        count, pb = s.bases[name]
        extra = count * pb
        if used + extra + max(h_need, msm_bytes(s, chunk, True, buckets, split, park)) <= budget:
            resident.add(name)
            used += extra
    streaming = len(resident) < len(s.bases)
    peak = used + max(h_need, msm_bytes(s, chunk, streaming, buckets, split, park))
    prefetch = not park and peak + witness <= budget
    # window tables take what the peak and the prefetched witness leave: another prover worker's
    # upload into a card the tables had filled ran out of memory, emptied the pool, and the tables
    # were rebuilt, partition after partition
    room = budget - peak - (witness if prefetch else 0)
    return MemoryPlan(cap, frozenset(resident), chunk, split, elementwise, mats_resident, prefetch,
                      max(0, room) if not streaming else 0, park)


def chunks(count: int, size: int):
    """(lo, hi) ranges of at most `size` covering range(count)."""
    size = max(1, int(size))
    for lo in range(0, count, size):
        yield lo, min(count, lo + size)
