"""The CUDA backend: kernels compiled at run time through CuPy (NVRTC).

Importing this module requires CuPy; `cuzk.backend.get_backend("cuda")`
reports a clear error instead when CuPy or a device is missing. Host arrays
in the project layout copy to the device unchanged (uint64 Montgomery limbs
read as uint32 limbs); device (CuPy) arrays are accepted as well and stay
on the device, which is how benchmarks time kernels without transfers.
"""

from __future__ import annotations

import threading

import cupy as cp
import numpy as np

from cuzk import file_pages

from .. import memory_plan as _mp
from ..base import Backend, as_curve
from . import msm as _msm
from . import ntt as _ntt
from .events import EventTimer
from . import module
from .module import fn
from .. import window_tables as wt
from ..staging import copy_into
from .host_pin import PinnedHost
from .split_ops import DeferredRows, DeviceSplitOps, pinned_empty
from .transfer import Prefetched, Uploader

TABLE_RESERVE = 0.05  # of the device's memory, left free by a window table for the rest of the proof


def to_device(a) -> cp.ndarray:
    return a if isinstance(a, cp.ndarray) else cp.asarray(np.ascontiguousarray(a))


class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, device: int = 0, transfer: str = "pageable", table_fraction: float = 0.6,
                 memory_limit: int | None = None):
        """`table_fraction`: the share of the device's memory that MSM window
        tables may hold (0 turns them off). `memory_limit`: the bytes of device memory
        proofs may use (None: what the card has). CuPy's pool on this device is capped
        there, and every proof is planned within it (memory_plan.py): where everything
        fits, as without a limit; else bases streamed from pinned host memory, MSMs in
        chunks, H one vector at a time."""
        self.device_id = device
        self.device = cp.cuda.Device(device)
        total = self.device.mem_info[1]
        if memory_limit is not None and memory_limit > total:
            raise _mp.MemoryBudgetError(f"device memory {memory_limit / 2**30:.2f} GiB exceeds what "
                                        f"cuda:{device} has ({total / 2**30:.2f} GiB)")
        self.memory_limit = int(memory_limit if memory_limit is not None else total)
        self.pool_limit = self.memory_limit  # memory_limit less what the card holds outside the pool (prepare)
        self._budgeted = memory_limit is None  # a whole card needs no accounting of the context
        with self.device:
            cp.get_default_memory_pool().set_limit(size=self.pool_limit)
        self.tables = wt.TableCache(int(table_fraction * min(total, self.memory_limit)))
        self.pinned_host = PinnedHost()
        self._streamed: set[int] = set()  # host addresses of the bases a plan streams (page-locked)
        self.resident = _msm.ResidentBases(on_evict=lambda d: self.tables.drop(d.data.ptr))
        self._local = threading.local()  # each prover worker thread times its own proof
        self.uploader = Uploader(transfer)
        self._circuits: dict[int, tuple] = {}
        self._proofs = 0  # proofs begun since the memory pool was last emptied (window_table)
        self._proofs_lock = threading.Lock()

    def pin_host(self, a: np.ndarray) -> np.ndarray:
        """A page-locked copy of `a` (the SRS hot tier): bases upload from it at
        the pinned DMA rate (51 vs 7 GB/s measured) to every GPU that needs them.
        Its memory returns to CuPy's pinned pool when the array is dropped."""
        a = np.ascontiguousarray(a)
        mem = cp.cuda.alloc_pinned_memory(max(1, a.nbytes))
        out = np.frombuffer(mem, dtype=a.dtype, count=a.size).reshape(a.shape)
        out[...] = a
        return out

    def host_array(self, shape, dtype=np.uint64) -> np.ndarray:
        """A pinned array from the uploader's pool: its upload skips the staging copy."""
        return self.uploader.host_array(shape, dtype)

    def release_host(self, a: np.ndarray) -> None:
        if self.uploader.pool.owns(a):
            self.uploader.release(a)

    def witness(self, w):
        if self.plan is not None and self.plan.park_witness and not isinstance(w, (Prefetched, cp.ndarray)):
            return self._parked(w)
        if isinstance(w, Prefetched):  # the current stream waits for the copy; the host does not
            with self.device:
                with self._phase("wait_witness"):
                    cp.cuda.get_current_stream().wait_event(w.ready)
                if self.timer is not None:
                    self.timer.moved += int(w.array.nbytes)
                self.uploader.pool.reclaim()
            return w.array
        with self.device, self._phase("h2d_witness"):
            self._moved(w)
            return self.uploader.upload(w)

    def _parked(self, w: np.ndarray) -> np.ndarray:
        """The witness in page-locked host memory (the plan's park_witness): its uploads for H's SpMVs
        and the MSMs' scalars run at the DMA rate. A witness the engine's synthesis wrote into the
        uploader's pool is there already; another is copied once."""
        w = np.ascontiguousarray(w)
        if self.uploader.pool.owns(w):
            return w
        with self._phase("park_witness"):
            host = pinned_empty(w.shape, w.dtype)
            copy_into(host, w)
        return host

    def prefetch(self, w):
        """Starts w's upload on this backend's copy stream through the pinned pool
        (Uploader.prefetch); `witness` of the handle waits on the GPU only."""
        with self.device:
            return self.uploader.prefetch(w)

    def plan_limits(self) -> dict:
        return {"min_chunk_bytes": 1 << 16, "min_elementwise": 1 << 10, "buckets": True}

    def prepare(self, pk, circuit=None):
        """The plan (Backend.prepare), and the host bases it streams, page-locked where they are. A
        new plan starts from a pool without the NTT module's kept tables (ntt.forget_tables): it
        counts only those its proofs build."""
        before = self.plan
        self._budget_the_card(pk.curve)
        plan = super().prepare(pk, circuit)
        if plan is not None and plan is not before:
            with self.device:
                _ntt.forget_tables()
                self.device.synchronize()
                cp.get_default_memory_pool().free_all_blocks()
        if plan is not None and plan.resident != frozenset(("h", "l", "a", "b_g1", "b_g2")):
            for name in ("h", "l", "a", "b_g1", "b_g2"):
                if plan.streams(name):
                    self._streamed.add(self.pinned_host.get(pk.bases(name)).ctypes.data)
        if plan is not None:
            self.tables.budget = min(self.tables.budget, self.tables.used + plan.table_room)
        return plan

    def _budget_the_card(self, curve) -> None:
        """Make memory_limit mean the card, as the driver counts it: the CUDA context, the loaded
        kernels and whatever else the card holds outside CuPy's pool (another process's memory
        too) are measured once the curve's kernels are loaded, and the pool and every plan get the
        rest. A budget the card's fixed costs already fill is refused with both figures."""
        if self._budgeted:
            return
        with self.device:
            module.kernels(as_curve(curve).name, quiet=True)
            self.device.synchronize()
            free, total = cp.cuda.runtime.memGetInfo()
            pool = cp.get_default_memory_pool()
            outside = int(total - free - pool.total_bytes())
            room = self.memory_limit - outside
            if room <= 0:
                raise _mp.MemoryBudgetError(
                    f"a device-memory budget of {self.memory_limit / 2**30:.2f} GiB is already filled by what "
                    f"cuda:{self.device_id} holds outside cuzk's pool ({outside / 2**30:.2f} GiB: the CUDA "
                    f"context, kernels, other processes)")
            self.pool_limit = room
            pool.set_limit(size=room)
            self._budgeted = True

    def check_budget(self, pk, circuit=None) -> None:
        self._budget_the_card(pk.curve)
        super().check_budget(pk, circuit)

    def plan_budget(self) -> int:
        return self.pool_limit

    def split_ops(self, curve):
        return DeviceSplitOps(self, as_curve(curve), self.plan.elementwise, keep_twiddles=not self.plan.park_witness)

    def quotient(self, curve, a, b, c, n, shift, scale, to_coefficients, count):
        if self.plan is not None and self.plan.split_h:
            with self.device:
                h = Backend.quotient(self, curve, a, b, c, n, shift, scale, to_coefficients, count)
                # H's chunk tables and transform scratch are dropped: their cached blocks go back to the
                # device so that the MSMs' larger blocks are not cut from them (the pool splits a cached
                # block for a smaller request and cannot join the pieces again)
                self.device.synchronize()
                cp.get_default_memory_pool().free_all_blocks()
                return h
        return self._quotient_whole(curve, a, b, c, n, shift, scale, to_coefficients, count)

    def spmv_into(self, circuit, index: int, w, out) -> None:
        """out = circuit.matrices[index] . w on the device (split H's DeferredRows): from the kept
        device copies where the plan keeps the matrices resident, else uploaded for this product
        from page-locked host memory and dropped after it."""
        from . import spmv as _spmv

        name = as_curve(circuit.curve).name
        with self.device:
            if self.plan is None or self.plan.matrices_resident:
                dev = self._device_circuit(circuit)
                ip, cols, ci, lr = dev[1][index]
                table = dev[2]
            else:
                m = circuit.matrices[index]
                with self._phase("h2d_circuit"):
                    self._moved(m.indptr, m.cols, m.coeff_idx, circuit.coeff_table)
                    ip, cols, ci = (cp.asarray(self.pinned_host.get(x)) for x in (m.indptr, m.cols, m.coeff_idx))
                    lr = _spmv.long_rows(ip)
                    table = cp.asarray(circuit.coeff_table)
            with self._phase("spmv"):
                _spmv.spmv(name, ip, cols, ci, table, w, long=lr, out=out)

    def _device_circuit(self, circuit):
        """The circuit's matrices on the device (uploaded once and kept, 8 circuits at most)."""
        from . import spmv as _spmv

        dev = self._circuits.get(id(circuit))
        if dev is None or dev[0] is not circuit:
            with self._phase("h2d_circuit"):
                self._moved(circuit.coeff_table, *(x for m in circuit.matrices for x in (m.indptr, m.cols, m.coeff_idx)))
                mats = tuple((cp.asarray(m.indptr), cp.asarray(m.cols), cp.asarray(m.coeff_idx))
                             for m in circuit.matrices)
                mats = tuple(m + (_spmv.long_rows(m[0]),) for m in mats)
                dev = (circuit, mats, cp.asarray(circuit.coeff_table))
            for m in circuit.matrices:  # kept on the device: a compiled circuit's file pages may leave the process
                for a in (m.indptr, m.cols, m.coeff_idx):
                    file_pages.drop(a)
            if len(self._circuits) >= 8:
                self._circuits.pop(next(iter(self._circuits)))
            self._circuits[id(circuit)] = dev
        return dev

    def evaluate(self, circuit, w):
        """a, b, c on the device; the circuit's matrices are uploaded once and kept. Under a plan
        that splits H, three DeferredRows instead: each is evaluated when H needs it."""
        from . import spmv as _spmv

        name = as_curve(circuit.curve).name
        if self.plan is not None and self.plan.split_h:
            if not self.plan.park_witness:  # parked: each DeferredRows uploads it for its SpMV
                with self.device:
                    self._moved(w)
                    w = to_device(w)
            if w.shape[0] != circuit.num_vars:
                raise ValueError(f"witness has {w.shape[0]} variables, the circuit {circuit.num_vars}")
            return tuple(DeferredRows(self, circuit, i, w) for i in range(len(circuit.matrices)))
        with self.device:
            dev = self._device_circuit(circuit)
            self._moved(w)
            w = to_device(w)
            with self._phase("spmv"):
                return tuple(_spmv.spmv(name, ip, cols, ci, dev[2], w, long=lr) for ip, cols, ci, lr in dev[1])

    def witness_scalars(self, curve, w):
        name = as_curve(curve).name
        with self.device:
            if isinstance(w, cp.ndarray):
                out = cp.empty_like(w)
            else:  # a host witness (parked during H): uploaded here and converted in place
                with self._phase("h2d_witness"):
                    self._moved(w)
                    w = out = cp.asarray(np.ascontiguousarray(w))
            n = int(w.shape[0])
            if n:
                fn(name, "fr_from_mont")(((n + 255) // 256,), (256,), (w, out, np.uint64(n)))
            return out

    def take(self, values, idx):
        if not isinstance(values, cp.ndarray):
            return values[idx]
        with self.device:
            return values[self._resident(idx)]

    @property
    def timer(self) -> EventTimer | None:
        return getattr(self._local, "timer", None)

    def phase_timer(self) -> EventTimer:
        """A proof begins (prove_batch asks each proof's timer here): counted for window_table."""
        with self._proofs_lock:
            self._proofs += 1
        with self.device:
            self._local.timer = EventTimer()
        return self._local.timer

    def _empty_pool(self) -> None:
        """The pool's cached blocks go back to the device, and with them its high-water mark of the
        proofs' memory: the next proof measures it again before a table is sized (table_room)."""
        cp.get_default_memory_pool().free_all_blocks()
        with self._proofs_lock:
            self._proofs = 0

    def _phase(self, label: str):
        return self.timer.phase(label) if self.timer is not None else _msm._no_phase(label)

    def _moved(self, *arrays) -> None:
        """Count host arrays about to be copied to the device against this proof (bench prove's bytes moved)."""
        if self.timer is not None:
            self.timer.count(*arrays)

    def synchronize(self):
        self.device.synchronize()

    def release_memory(self) -> None:
        """Window tables and the memory pool's cached blocks go back to the device (resident
        bases stay: the next proof needs them); tables are rebuilt when next used and fit."""
        with self.device:
            self.tables.clear()
            self.device.synchronize()  # blocks still in use by queued kernels must not be handed out
            self._empty_pool()

    def device_memory_in_use(self) -> int:
        """The device's used bytes as the driver sees them (every context on it, CuPy's
        pool and cached blocks included): what another process on this GPU cannot have."""
        with self.device:
            free, total = cp.cuda.runtime.memGetInfo()
        return int(total - free)

    def compile_kernels(self, curve) -> None:
        with self.device:
            module.kernels(as_curve(curve).name, quiet=True)

    def describe(self) -> str:
        props = cp.cuda.runtime.getDeviceProperties(self.device_id)
        return f"cuda:{self.device_id} ({props['name'].decode()}, {props['multiProcessorCount']} SMs)"

    def ntt(self, curve, values, *, inverse=False, coset=None):
        with self.device:
            on_device = isinstance(values, cp.ndarray)
            with self._phase("h2d"):
                self._moved(values)
                values = to_device(values)
            with self._phase("ntt"):
                out = _ntt.ntt(as_curve(curve).name, values, inverse=inverse, coset=coset)
            return out if on_device else cp.asnumpy(out)

    def fr_mul(self, curve, a, b):
        """Elementwise Fr product on the device (the kernel benchmark's per-element figure)."""
        name = as_curve(curve).name
        with self.device:
            a, b = to_device(a), to_device(b)
            out = cp.empty_like(a)
            n = a.shape[0]
            fn(name, "fr_vmul")(((n + 255) // 256,), (256,), (a, b, out, np.uint64(n)))
            return out

    def _quotient_whole(self, curve, a, b, c, n, shift, scale, to_coefficients, count):
        """Groth16 H on the device: per vector an iNTT and a coset NTT, (a*b - c)*s, optional iNTT.

        The constants ride on the NTTs' first and last passes: the iNTTs leave out 1/n, the
        coset NTTs' shift table carries it (g^i / n), and b's coset NTT multiplies by a's
        evaluations as it stores. Back to coefficients (bellperson), C is never evaluated on
        the coset: the final coset iNTT subtracts C s, C's coefficients (base.py says why), from
        g^-k s / n times its output; both tables are plain integers, so the Montgomery products
        also leave the Montgomery form. One vector at a time: at 2^27 the three transformed
        together took 39 GB of scratch beside the inputs, and a batch of 2^27 proofs ran out of memory."""
        name = as_curve(curve).name
        p = as_curve(curve).fr.p
        with self.device:
            shifted = _ntt.scaled_power_table(name, shift % p, n, pow(n, -1, p))

            def upload(v):  # a vector of fewer than n rows is read as it is, the rest counting as zero
                with self._phase("h2d_abc"):
                    self._moved(v)
                    return to_device(v)

            def evaluate(v, post=None):
                v = upload(v)
                with self._phase("intt_abc"):
                    x = _ntt.transform(name, v, inverse=True, size=n)
                del v
                with self._phase("coset_ntt_abc"):
                    return _ntt.transform(name, x, pre=shifted, post=post)

            if to_coefficients:  # canonical coefficients straight from the last pass
                s = (1 if scale is None else scale) * pow(n, -1, p) % p
                c = upload(c)
                with self._phase("intt_abc"):
                    cs = _ntt.transform(name, c, inverse=True, scale=_ntt.raw(name, s), size=n)
                del c
                t = evaluate(b, post=evaluate(a))
                final = _ntt.scaled_power_table(name, pow(shift, -1, p), n, s, canonical=True)
                with self._phase("icoset_ntt_h"):
                    t = _ntt.transform(name, t, inverse=True, post=final, sub=cs)
                return cp.ascontiguousarray(t[:count])
            ev = [evaluate(v) for v in (a, b, c)]
            threads = 256
            grid = ((n + threads - 1) // threads,)
            with self._phase("ab_minus_c"):
                t = cp.empty((n, 4), dtype=cp.uint64)
                sc = _ntt.const(name, scale) if scale is not None else np.uint64(0)
                fn(name, "fr_ab_minus_c")(grid, (threads,), (ev[0], ev[1], ev[2], t, sc, np.uint64(n)))
            del ev
            out = cp.empty((count, 4), dtype=cp.uint64)
            fn(name, "fr_from_mont")(grid, (threads,), (cp.ascontiguousarray(t[:count]), out, np.uint64(count)))
            return out

    def miller_products(self, curve, g1, g2, q_ptr, p_idx, prod, nprod):
        from .pairing import miller_products

        return miller_products(as_curve(curve).name, g1, g2, q_ptr, p_idx, prod, nprod, self.device)

    def msm(self, curve, group, bases, scalars):
        """Under a plan whose chunks are shorter than these bases, or that streams them, in chunks
        (streamed_msm.py); else one MSM with a window table where one fits."""
        plan = self.plan
        if plan is not None and not isinstance(bases, cp.ndarray):
            curve = as_curve(curve)
            chunk = plan.chunk_points(_msm.point_bytes(curve, group))
            host = np.ascontiguousarray(bases)
            streamed = host.ctypes.data in self._streamed
            if streamed or int(host.shape[0]) > chunk:
                from .streamed_msm import chunked_msm

                with self.device:
                    with self._phase("h2d_scalars"):
                        self._moved(scalars)
                        d_scalars = to_device(scalars)
                    d_bases = None
                    if not streamed:
                        with self._phase("h2d_bases"):
                            d_bases = self._resident(host)
                    return chunked_msm(curve, group, host if streamed else None, d_bases, d_scalars, chunk,
                                       self.uploader.copy_stream(), timer=self.timer)
        with self.device:
            with self._phase("h2d_bases"):
                d_bases = self._resident(bases)
            with self._phase("h2d_scalars"):
                self._moved(scalars)
                d_scalars = to_device(scalars)
            return _msm.msm(as_curve(curve), group, d_bases, d_scalars, timer=self.timer,
                            table=lambda: self.window_table(curve, group, d_bases))

    def _resident(self, bases) -> cp.ndarray:
        """The bases' kept device copy, uploaded (and counted) where there is none yet."""
        if not isinstance(bases, cp.ndarray) and not self.resident.holds(bases):
            self._moved(bases)
        return self.resident.get(bases)

    def window_table(self, curve, group, bases):
        """The MSM window table over `bases` (built on first use when it fits, then kept), or None.
        Its rows must fit in what the table budget has left and in the memory the proofs do not
        need, less a reserve (TABLE_RESERVE of the device; window_tables.table_room says how, and
        why not during the first proof): the fewest bucket sets whose rows fit
        (window_tables.table_sets), one row for every window where that fits."""
        curve = as_curve(curve)
        with self.device:
            d_bases = self.resident.get(bases)
            flat = _msm._bases_view(curve, group, d_bases)
            n = int(flat.shape[0])
            key = d_bases.data.ptr
            hit = self.tables.find(key)
            if hit is not None or n < wt.TABLE_MIN_N:
                return hit
            c = wt.table_window(n)
            free, total = cp.cuda.runtime.memGetInfo()
            free = min(free, self.pool_limit - cp.get_default_memory_pool().total_bytes())  # the cap's room
            total = min(total, self.pool_limit)
            sort = 8 * wt.table_windows(c) * n  # the sort's keys and entries, 4 bytes each
            room = wt.table_room(self.tables.room(), free, cp.get_default_memory_pool().free_bytes(), sort,
                                 int(TABLE_RESERVE * total), self._proofs)
            if room is None:
                return None
            pb = _msm.point_bytes(curve, group)
            sets = wt.table_sets(n, c, pb, room, _msm.plain_buckets(n))
            if sets is None:
                return None
            nbytes, scratch = wt.table_bytes(n, c, sets, pb)

            def build():
                try:
                    return _msm.build_table(curve, group, flat, c, sets)
                except cp.cuda.memory.OutOfMemoryError:  # less free than it seemed: this MSM goes without
                    self._empty_pool()
                    return None

            return self.tables.get(key, nbytes, build, holder=d_bases, scratch=scratch)

    def fixed_base(self, curve, group, base):
        from .fixed_base import DeviceFixedBase

        return DeviceFixedBase(as_curve(curve), group, base, self.device)

    def batch_add(self, curve, group, bases, mask):
        with self.device:
            idx = cp.flatnonzero(to_device(mask)).astype(cp.uint32)
            return _msm.batch_add(as_curve(curve), group, self.resident.get(bases), idx)

    def spmv(self, curve, indptr, cols, coeff_idx, coeff_table, w):
        from . import spmv as _spmv

        with self.device:
            out = _spmv.spmv(as_curve(curve).name, to_device(indptr), to_device(cols), to_device(coeff_idx),
                             to_device(coeff_table), to_device(w))
            return out if isinstance(w, cp.ndarray) else cp.asnumpy(out)
