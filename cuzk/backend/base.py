"""The compute interface every backend implements (docs/design.md section 3).

Arrays crossing this interface are host numpy arrays in the project layout
(Montgomery Fr `uint64[..., n, 4]`, canonical MSM scalars `uint64[n, 4]`,
affine points). A device backend may keep its own copies resident (bases
especially) but accepts and returns these.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

import numpy as np

from cuzk.curve import Curve, get_curve

from . import memory_plan
from .timing import NullTimer


def as_curve(curve: Curve | str) -> Curve:
    return curve if isinstance(curve, Curve) else get_curve(curve)


class Backend(ABC):
    name: str = "abstract"
    memory_limit: int | None = None  # device bytes proofs may use (None: the card's; memory_plan.py)
    _plans: dict | None = None

    @property
    def plan(self) -> memory_plan.MemoryPlan | None:
        """The plan of the proofs this thread runs (`prepare`): per thread, since a device's
        prover workers may prove different circuits at once."""
        return getattr(self._thread_state(), "plan", None)

    @plan.setter
    def plan(self, value: memory_plan.MemoryPlan | None) -> None:
        self._thread_state().plan = value

    def _thread_state(self):
        state = self.__dict__.get("_plan_state")
        if state is None:
            state = self.__dict__.setdefault("_plan_state", threading.local())
        return state

    def prepare(self, pk, circuit=None) -> memory_plan.MemoryPlan | None:
        """Plan `pk`'s proofs within memory_limit before they run (prove_batch calls it once per
        batch; `circuit` when the backend evaluates it). Raises MemoryBudgetError (one line) when
        even one chunk at a time does not fit. Without a limit: None, everything resident."""
        self.plan = None if self.memory_limit is None else self._plan_of(pk, circuit)
        return self.plan

    def check_budget(self, pk, circuit=None) -> None:
        """Raise MemoryBudgetError, naming the smallest budget that would do, where `pk`'s proofs
        cannot be planned within this device's memory (the engine's check at submit: the plan is
        kept for the proofs)."""
        if self.memory_limit is not None:
            self._plan_of(pk, circuit)

    def _plan_of(self, pk, circuit) -> memory_plan.MemoryPlan:
        """`pk`'s plan within plan_budget(), made once per key (the last 8 kept)."""
        if self._plans is None:
            self._plans = {}
        key = (id(pk), id(circuit))
        hit = self._plans.get(key)
        if hit is None or hit[0] is not pk:
            if len(self._plans) >= 8:
                self._plans.pop(next(iter(self._plans)))
            hit = self._plans[key] = (pk, memory_plan.plan(memory_plan.shape_of(pk, circuit), self.plan_budget(),
                                                           **self.plan_limits()))
        return hit[1]

    def plan_budget(self) -> int | None:
        """The device bytes a plan may fill: memory_limit, less what a device holds outside the
        proofs' memory (the CUDA backend counts its context and kernels there)."""
        return self.memory_limit

    def plan_limits(self) -> dict:
        """The smallest chunks worth running on this backend (memory_plan.plan's keywords)."""
        return {"min_chunk_bytes": 1 << 10, "min_elementwise": 16, "buckets": False}

    def split_ops(self, curve):
        """The primitives split_h.quotient runs on (host numpy arrays by default)."""
        from .cpu.split_ops import HostSplitOps  # here, not above: cpu/ imports this module

        return HostSplitOps(self, as_curve(curve))

    def msm_chunks(self, curve, group: str, bases, scalars, msm) -> np.ndarray:
        """sum over the plan's chunks of msm(bases[lo:hi], scalars[lo:hi]) (one affine point): an
        MSM's scratch grows with its length, so under a budget no MSM is longer than a chunk."""
        curve = as_curve(curve)
        grp = getattr(curve, group)
        n = int(scalars.shape[0])
        if self.plan is None or n == 0:
            return msm(bases, scalars)
        pb = int(np.prod(bases.shape[1:])) * 8
        acc = None
        for lo, hi in memory_plan.chunks(n, self.plan.chunk_points(pb)):
            part = msm(bases[lo:hi], scalars[lo:hi])
            acc = part if acc is None else grp.add(acc[None], part[None])[0]
        return acc

    # ---- NTT over Fr ----------------------------------------------------
    @abstractmethod
    def ntt(self, curve: Curve | str, values: np.ndarray, *, inverse: bool = False, coset: int | None = None) -> np.ndarray:
        """(Inverse) NTT, natural order in and out, batched over leading axes.

        `coset=g` evaluates on g*<w> (forward: scale x_i by g^i first; inverse:
        unscale after), so inverse(coset=g) undoes forward(coset=g)."""

    # ---- MSM ---------------------------------------------------------------
    @abstractmethod
    def msm(self, curve: Curve | str, group: str, bases: np.ndarray, scalars: np.ndarray) -> np.ndarray:
        """sum_i scalars[i] * bases[i]; scalars canonical uint64[n, 4]; returns one affine point."""

    @abstractmethod
    def batch_add(self, curve: Curve | str, group: str, bases: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """sum of bases[i] where mask[i] (the 0/1-scalar path); one affine point."""

    # ---- sparse matrix-vector product over Fr -----------------------------
    @abstractmethod
    def spmv(self, curve: Curve | str, indptr, cols, coeff_idx, coeff_table, w: np.ndarray) -> np.ndarray:
        """out[row] = sum_k coeff_table[coeff_idx[k]] * w[cols[k]] over the row's CSR range."""

    # ---- pairing products (SnarkPack aggregation) ---------------------------
    @abstractmethod
    def miller_products(self, curve: Curve | str, g1: np.ndarray, g2: np.ndarray, q_ptr: np.ndarray,
                        p_idx: np.ndarray, prod: np.ndarray, nprod: int) -> np.ndarray:
        """Fq12[nprod]: for each product k, the Miller-loop value of its pairs, before the
        final exponentiation (two backends' values agree after it). The pairs of G2 point
        g2[q] are j in q_ptr[q]..q_ptr[q+1]-1, meeting G1 point g1[p_idx[j]] in product
        prod[j]; no point is at infinity, and the points lie in G1 and G2."""

    # ---- Groth16 H -----------------------------------------------------------
    def quotient(self, curve: Curve | str, a, b, c, n: int, shift: int, scale: int | None, to_coefficients: bool,
                 count: int):
        """Canonical scalars for the H MSM (see groth16/qap.py for the conventions).

        a, b, c (Montgomery, <= n rows) are interpolated (inverse NTT), evaluated
        on shift*<w_n>, combined as (a*b - c) * scale, optionally brought back to
        coefficients (inverse coset NTT), and the first `count` values returned
        in canonical form. Device backends keep every step on the device.

        Back to coefficients, C needs no coset evaluation: the inverse coset NTT is
        linear and undoes the coset NTT, so icoset((A'B' - C') s) = icoset(A'B') s - C s,
        with C the coefficients of c (6 NTTs instead of 7). Under a plan's split_h, one vector
        at a time (split_h.py)."""
        curve = as_curve(curve)
        fr = curve.fr
        if self.plan is not None and self.plan.split_h:
            from . import split_h

            return split_h.quotient(self.split_ops(curve), fr, a, b, c, n, shift, scale, to_coefficients, count,
                                    self.plan.elementwise)
        abc = np.zeros((3, n, 4), dtype=np.uint64)
        for i, v in enumerate((a, b, c)):
            abc[i, : v.shape[0]] = v
        s = np.broadcast_to(fr.from_int(1 if scale is None else scale), (n, 4))
        if to_coefficients:
            coeffs = self.ntt(curve, abc, inverse=True)
            ev = self.ntt(curve, coeffs[:2], coset=shift)
            t = self.ntt(curve, fr.mul(ev[0], ev[1]), inverse=True, coset=shift)
            t = fr.mul(fr.sub(t, coeffs[2]), s)
        else:
            ev = self.ntt(curve, self.ntt(curve, abc, inverse=True), coset=shift)
            t = fr.sub(fr.mul(ev[0], ev[1]), ev[2])
            if scale is not None:
                t = fr.mul(t, s)
        return fr.from_mont(t[:count])

    # ---- fixed-base multiplication (parameter generation) --------------------
    def fixed_base(self, curve: Curve | str, group: str, base: np.ndarray):
        """An object whose `mul(scalars)` gives affine [k_i] base (host array) for
        canonical scalars uint64[n, 4]: every Groth16 parameter vector is such a
        list of multiples of a generator. `chunk` is the number of scalars the
        caller should hand over at a time (progress lines, bounded scratch)."""
        from .cpu.fixed_base import FixedBaseTable  # here, not above: cpu/ imports this module

        return FixedBaseTable(as_curve(curve).name, group, base)

    def keep_resident(self, pk) -> None:
        """`pk` has been proven here and stays in memory for more proofs (the daemon's resident keys):
        a backend may keep derived data for it (the CPU backend: MSM window tables). Nothing here."""

    def forget_resident(self, pk) -> None:
        """`pk` leaves memory: whatever keep_resident kept for it goes."""

    def release_memory(self) -> None:
        """Give cached working memory back (after an out-of-memory error, before a retry).
        Host arrays are freed when dropped, so the CPU backend has nothing to do."""

    def device_memory_in_use(self) -> int:
        """Bytes this process holds on the device now (0 on the host: RSS covers it)."""
        return 0

    def describe(self) -> str:
        return self.name

    def compile_kernels(self, curve: Curve | str) -> None:
        """Compile (or load from a cache) the device code this backend runs for `curve`, quietly, ahead
        of its first use: a command's first run does it beside numba's compiles (cuzk/cli/first_run.py).
        The CPU backend's kernels are numba's, compiled by cuzk.field.precompile: nothing to do here."""

    # ---- the prover's witness path --------------------------------------------
    def host_array(self, shape, dtype=np.uint64) -> np.ndarray:
        """An uninitialised host array this backend uploads from fastest (page-locked on CUDA,
        from a pool reused by size), so a producer writes where the upload reads; give it back
        with `release_host`."""
        return np.empty(shape, dtype=dtype)

    def release_host(self, a: np.ndarray) -> None:
        """Give back an array from `host_array`; any other array is left to the garbage collector."""

    def pin_host(self, a: np.ndarray) -> np.ndarray:
        """`a` where this backend uploads it fastest, for long-lived data (the SRS hot tier):
        a page-locked copy on CUDA, `a` itself here."""
        return a

    def prefetch(self, w: np.ndarray):
        """Start moving a validated witness to where this backend computes, without
        waiting; `witness` of the returned handle gives the usable array. Lets a
        batch upload the next proof's witness while the current one's kernels run."""
        return w

    def witness(self, w):
        """The witness where this backend computes (a device copy on CUDA), from a
        host array or a handle from `prefetch`."""
        return w

    def evaluate(self, circuit, w):
        """(a, b, c) = (A w, B w, C w), where `w` came from `witness`: the SpMV of
        a compiled circuit's three CSR matrices (`circuit.matrices`, each with
        indptr, cols, coeff_idx, over `circuit.coeff_table`, `circuit.curve` and
        `circuit.num_vars` columns, as cuzk.r1cs.CompiledCircuit has them)."""
        if w.shape[0] != circuit.num_vars:  # the kernel does not bounds-check columns
            raise ValueError(f"witness has {w.shape[0]} variables, the circuit {circuit.num_vars}")
        return tuple(self.spmv(circuit.curve, m.indptr, m.cols, m.coeff_idx, circuit.coeff_table, w)
                     for m in circuit.matrices)

    def witness_scalars(self, curve: Curve | str, w):
        """Canonical MSM scalars of a Montgomery witness, in this backend's memory."""
        return as_curve(curve).fr.from_mont(w)

    def take(self, values, idx: np.ndarray):
        """values[idx] for a fixed index array (kept resident on a device)."""
        return values[idx]

    def phase_timer(self):
        """A timer for one proof's phases; the backend's own operations record
        their sub-phases into it until the next call. See timing.py."""
        return NullTimer()
