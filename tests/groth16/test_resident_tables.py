"""MSM window tables of a resident key on the CPU backend (cuzk/backend/cpu/tables.py).

A key the daemon keeps gets tables built in the background; proofs made with them must be the very
proofs made without (same witness, r and s: the prover is deterministic given those), and proofs of a
satisfying witness verify. Also: a one-shot backend keeps none, the byte budget keeps whole tables in
its order (B_g2 first), the engine's memory budget is charged and given back, a forgotten key's
tables go. The key is examples/bits_mix (BN254: 4096 H bases, 1161 to 2727 in the others).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.backend.cpu import CpuBackend
from cuzk.backend.cpu import msm as cpu_msm
from cuzk.backend.cpu.tables import VECTORS
from cuzk.engine.resources.memory import MemoryBudget
from cuzk.formats.circom_r1cs import read_r1cs
from cuzk.formats.wtns import read_wtns
from cuzk.groth16 import prover, setup
from cuzk.groth16.verifier import PreparedVerifyingKey, verify
from cuzk.r1cs.evaluation import evaluate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bits_mix"
BITS = 254  # BN254's scalars


@pytest.fixture(scope="module")
def keyed():
    cc = read_r1cs(EXAMPLE / "bits_mix.r1cs").circuit
    return cc, setup.generate(cc, backend=CpuBackend())


def table_bytes(pk, name: str) -> int:
    b = pk.bases(name)
    return cpu_msm.table_bytes(b.shape[0], BITS, cpu_msm.table_window(b.shape[0], BITS, b[0].nbytes), b[0].nbytes)


def same(p, q) -> bool:
    return all(np.array_equal(getattr(p, k), getattr(q, k)) for k in ("a", "b", "c"))


def test_one_shot_backends_keep_no_tables(keyed):
    backend = get_backend("cpu")
    assert backend.resident_tables is None
    backend.keep_resident(keyed[1])  # a no-op, as on a backend that keeps nothing


def test_proofs_with_tables_are_the_proofs_without(keyed):
    """A random witness (every scalar full width: every MSM takes the table path), fixed r and s."""
    cc, pk = keyed
    budget = MemoryBudget(1 << 33)
    backend = CpuBackend(table_budget=1 << 30, reserve=budget.try_acquire)
    fr = pk.curve.fr
    w = fr.random(pk.num_vars, np.random.default_rng(5))
    abc = evaluate(cc, w)
    before = prover.prove(pk, w, abc, backend, r=11, s=13)
    held = backend.resident_tables
    assert held.status() == {"kept": 0, "kept_bytes": 0, "pending": 0}
    backend.keep_resident(pk)
    backend.keep_resident(pk)  # once per key
    assert held.wait_built(600)
    st = held.status()
    assert st["kept"] == len(VECTORS) and st["pending"] == 0
    assert st["kept_bytes"] == sum(table_bytes(pk, v) for v in VECTORS) == budget.used == held.used
    for v in VECTORS:
        table = held.find(pk.bases(v))
        assert table is not None and table.rows.shape[1:] == pk.bases(v).shape
        assert cpu_msm.table_pays(table, pk.bases(v).shape[0], BITS, pk.bases(v)[0].nbytes), v
        assert held.find(pk.bases(v).copy()) is None  # the key's own array, not an equal one
    after = prover.prove(pk, w, abc, backend, r=11, s=13)
    assert same(before, after)
    backend.forget_resident(pk)
    assert held.wait_built(60)
    assert held.status() == {"kept": 0, "kept_bytes": 0, "pending": 0}
    assert budget.used == 0 and held.used == 0
    assert all(held.find(pk.bases(v)) is None for v in VECTORS)


def test_a_resident_key_proves_proofs_that_verify(keyed):
    cc, pk = keyed
    backend = CpuBackend(table_budget=1 << 30)
    w = read_wtns(EXAMPLE / "witness.wtns").values
    abc = evaluate(cc, w)
    backend.keep_resident(pk)
    assert backend.resident_tables.wait_built(600) and backend.resident_tables.status()["kept"] == len(VECTORS)
    proof = prover.prove(pk, w, abc, backend)
    publics = pk.curve.fr.to_ints(w[1:pk.num_inputs])
    pvk = PreparedVerifyingKey(pk.vk)
    assert verify(pvk, proof, publics)
    assert not verify(pvk, proof, [publics[0] + 1] + publics[1:])
    backend.forget_resident(pk)


def test_the_budget_keeps_whole_tables_b_g2_first(keyed):
    _, pk = keyed
    g2 = table_bytes(pk, "b_g2")
    backend = CpuBackend(table_budget=g2 + table_bytes(pk, "b_g1") - 1)  # room for B_g2 and less than B_g1
    held = backend.resident_tables
    backend.keep_resident(pk)
    assert held.wait_built(600)
    assert held.find(pk.bases("b_g2")) is not None
    assert [v for v in VECTORS if held.find(pk.bases(v)) is not None] == ["b_g2"]
    assert held.status()["kept_bytes"] == g2 <= held.budget
    backend.forget_resident(pk)


def test_tables_wait_for_the_memory_budget(keyed):
    """Bytes the engine's memory budget does not have now: the vector proves without a table."""
    _, pk = keyed
    budget = MemoryBudget(table_bytes(pk, "b_g2") + 1)
    backend = CpuBackend(table_budget=1 << 30, reserve=budget.try_acquire)
    held = backend.resident_tables
    backend.keep_resident(pk)
    assert held.wait_built(600)
    assert [v for v in VECTORS if held.find(pk.bases(v)) is not None] == ["b_g2"]
    backend.forget_resident(pk)
    assert held.wait_built(60) and budget.used == 0


def test_no_build_task_starts_while_the_prover_is_busy(keyed):
    """Tables are built in the prover's idle time: while `busy()` holds, nothing is built (and a
    forgotten key's pending builds end without one)."""
    _, pk = keyed
    proving = [True]
    backend = CpuBackend(table_budget=1 << 30)
    held = backend.resident_tables
    held.busy = lambda: proving[0]
    backend.keep_resident(pk)
    assert not held.wait_built(0.5)  # still waiting: the prover is busy
    assert held.status()["kept"] == 0 and held.status()["pending"] == len(VECTORS)
    proving[0] = False
    assert held.wait_built(600) and held.status()["kept"] == len(VECTORS)
    backend.forget_resident(pk)
    proving[0] = True
    other = CpuBackend(table_budget=1 << 30)
    other.resident_tables.busy = lambda: proving[0]
    other.keep_resident(pk)
    other.forget_resident(pk)  # while its first table waits for the prover
    assert other.resident_tables.wait_built(60)
    assert other.resident_tables.status() == {"kept": 0, "kept_bytes": 0, "pending": 0}
    assert other.resident_tables.used == 0
