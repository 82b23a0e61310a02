"""Groth16 parameter generation for a compiled circuit (bellperson layout).

Toxic waste tau, alpha, beta, gamma, delta comes from the OS CSPRNG and is
dropped when this returns. QAP polynomials are evaluated at tau through the
Lagrange basis of the domain (u_i(tau) = sum_j A[j, i] L_j(tau): a transposed
SpMV), and every base is a multiple of a generator, computed with a
fixed-base window table: on the backend's device (`backend.fixed_base`), so
a CUDA backend makes the parameters of a 2^27 circuit in minutes. The host
steps before it (Lagrange values, the CSC transpose, the combinations) are
fused parallel kernels (`setup_kernels`), and each scalar vector is dropped
once its bases are made: the point vectors dominate memory.
"""

from __future__ import annotations

import secrets
from typing import Callable

import numpy as np

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.progress import Status

from . import setup_kernels
from .keys import H_BELLPERSON, ProvingKey, VerifyingKey, density_vars


def domain_size(num_rows: int, two_adicity: int) -> int:
    n = 1
    while n < num_rows:
        n *= 2
    if n.bit_length() - 1 > two_adicity:
        raise ValueError(f"{num_rows} constraint rows need a domain of 2^{n.bit_length() - 1}, beyond the field's 2^{two_adicity}")
    return n


def lagrange_at(curve, n: int, tau: int, count: int | None = None) -> np.ndarray:
    """L_j(tau) = (tau^n - 1)/n * w^j / (tau - w^j) for j < count (default n), Montgomery."""
    return setup_kernels.lagrange(curve.fr, n, tau, n if count is None else count)


# Most entries one row of the transposed product sums: the CUDA SpMV runs one thread per row, and
# the column of ONE alone holds ~14% of B's entries (4.3M of 30M at porep "large").
SEGMENT = 1 << 12


def transpose_product(backend, curve, mat, coeff_table, values: np.ndarray, num_cols: int) -> np.ndarray:
    """out[col] = sum over rows j of M[j, col] * values[j] (M^T . values).

    The transpose is built on the host in parallel; the product runs on the backend, a long
    column as several rows of <= SEGMENT entries whose partial sums are added here."""
    t = setup_kernels.transpose(mat, num_cols, head=SEGMENT)
    if not len(t.long_cols):
        return backend.spmv(curve, t.indptr, t.rows, t.coeff, coeff_table, values)
    indptr, col = t.segments(SEGMENT)
    part = backend.spmv(curve, indptr, t.rows, t.coeff, coeff_table, values)
    del t
    out = part[:num_cols]
    setup_kernels.add_rows(curve.fr, out, col, part[num_cols:])
    return out


def toxic_waste(curve, toxic: Callable[[int], int] | None = None) -> tuple[int, int, int, int, int]:
    """tau, alpha, beta, gamma, delta: uniform in [1, r), unless `toxic` (index -> value) fixes them (tests)."""
    r = curve.fr.p
    draw = toxic or (lambda _i: secrets.randbelow(r - 1) + 1)
    return tuple(draw(i) for i in range(5))


class Progress:
    """The point counter of a long setup on stderr (a cuzk.progress.Status: in place at a terminal,
    else a line per 10 % and every 10 s); silent for small setups."""

    def __init__(self, total: int, enabled: bool):
        self.done = 0
        self.status = Status("setup", total, unit="points") if enabled else None

    def step(self, k: int, what: str):
        self.done += k
        if self.status is not None:
            self.status.update(self.done, what)

    def close(self):
        if self.status is not None:
            self.status.close()


def generate(circuit, backend=None, progress: bool | None = None,
             toxic: Callable[[int], int] | None = None) -> ProvingKey:
    """Random parameters for `circuit` (a CompiledCircuit) as an in-memory ProvingKey."""
    backend = backend or get_backend("auto")
    curve = get_curve(circuit.curve)
    fr, p = curve.fr, curve.fr.p
    tau, alpha, beta, gamma, delta = toxic_waste(curve, toxic)
    n = domain_size(circuit.num_rows, fr.params.two_adicity)
    nvars = circuit.num_vars
    ni = circuit.num_inputs

    lag = lagrange_at(curve, n, tau, circuit.num_rows)
    u, v, w = (transpose_product(backend, curve, m, circuit.coeff_table, lag, nvars) for m in circuit.matrices)
    del lag

    # (beta u + alpha v + w) / gamma for inputs, / delta for aux
    ic_s, l_s, zero_l = setup_kernels.combine(fr, u, v, w, ni, alpha, beta, gamma, delta)
    del w
    if zero_l:
        first = int(np.argmax(~l_s.any(axis=1)))
        raise ValueError(f"aux variable {first} is unconstrained (its L base would be the identity)")

    a_vars, b_vars = density_vars(circuit)

    total = len(ic_s) + len(l_s) + len(a_vars) + 2 * len(b_vars) + (n - 1)
    prog = Progress(total, progress if progress is not None else total >= 1 << 16)
    g1t = backend.fixed_base(curve, "g1", curve.g1.generator)
    g2t = backend.fixed_base(curve, "g2", curve.g2.generator)

    def muls(table, scalars_mont, what, idx=None):
        """[s] G for s = scalars_mont[idx] (all rows when idx is None), converted one chunk at a time."""
        count = len(scalars_mont) if idx is None else len(idx)
        out = np.empty((count, 2) + table.grp.coord, dtype=np.uint64)
        for i in range(0, count, table.chunk):
            hi = min(count, i + table.chunk)
            canon = (fr.from_mont(scalars_mont[i:hi]) if idx is None
                     else setup_kernels.canonical_rows(fr, scalars_mont, idx, i, hi))
            part = table.mul(canon)
            out[i : i + len(part)] = part
            prog.step(len(part), what)
        return out

    ic = muls(g1t, ic_s, "ic")
    l_pts = muls(g1t, l_s, "l")
    del ic_s, l_s
    a_pts = muls(g1t, u, "a", a_vars)
    del u
    b1_pts = muls(g1t, v, "b_g1", b_vars)
    b2_pts = muls(g2t, v, "b_g2", b_vars)
    del v

    # h_i = tau^i t(tau) / delta, i < n - 1
    h_s = setup_kernels.scaled_powers(fr, tau, (pow(tau, n, p) - 1) * pow(delta, -1, p) % p, n - 1)
    h_pts = muls(g1t, h_s, "h")
    del h_s
    prog.close()

    def single(table, x):
        return table.mul(fr.canonical_from_ints([x % p]))[0]

    vk = VerifyingKey(
        curve=curve,
        alpha_g1=single(g1t, alpha),
        beta_g1=single(g1t, beta),
        beta_g2=single(g2t, beta),
        gamma_g2=single(g2t, gamma),
        delta_g1=single(g1t, delta),
        delta_g2=single(g2t, delta),
        ic=ic,
    )
    return ProvingKey(
        vk=vk,
        num_inputs=ni,
        num_aux=circuit.num_aux,
        domain_size=n,
        h_convention=H_BELLPERSON,
        beta_g1=vk.beta_g1,
        delta_g1=vk.delta_g1,
        a_vars=a_vars,
        b_vars=b_vars,
        vectors={"h": h_pts, "l": l_pts, "a": a_pts, "b_g1": b1_pts, "b_g2": b2_pts},
    )
