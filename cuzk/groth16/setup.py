"""Groth16 parameter generation for a compiled circuit (bellperson layout).

Toxic waste tau, alpha, beta, gamma, delta comes from the OS CSPRNG and is
dropped when this returns. QAP polynomials are evaluated at tau through the
Lagrange basis of the domain (u_i(tau) = sum_j A[j, i] L_j(tau): a transposed
SpMV), and every base is a multiple of a generator, computed with a
fixed-base window table: on the backend's device (`backend.fixed_base`), so
a CUDA backend makes the parameters of a 2^27 circuit in minutes.
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Callable

import numpy as np

from cuzk.backend import get_backend
from cuzk.backend.cpu.ntt import ntt_kernels
from cuzk.curve import get_curve

from .keys import H_BELLPERSON, ProvingKey, VerifyingKey, density_vars


def domain_size(num_rows: int, two_adicity: int) -> int:
    n = 1
    while n < num_rows:
        n *= 2
    if n.bit_length() - 1 > two_adicity:
        raise ValueError(f"{num_rows} constraint rows need a domain of 2^{n.bit_length() - 1}, beyond the field's 2^{two_adicity}")
    return n


def lagrange_at(curve, n: int, tau: int) -> np.ndarray:
    """L_j(tau) = (tau^n - 1)/n * w^j / (tau - w^j) for j < n (Montgomery)."""
    fr = curve.fr
    p = fr.p
    w = fr.params.root_of_unity_of_order(n.bit_length() - 1)
    powers = np.empty((n, 4), dtype=np.uint64)
    ntt_kernels(curve.name).powers(fr.from_ints([w]), powers, 64)
    t_n = (pow(tau, n, p) - 1) % p
    if t_n == 0:
        raise ValueError("tau lies in the evaluation domain; draw again")
    denom = fr.inv(fr.sub(np.broadcast_to(fr.from_int(tau), powers.shape), powers))
    scale = fr.from_int(t_n * pow(n, -1, p) % p)
    return fr.mul(fr.mul(powers, denom), np.broadcast_to(scale, powers.shape))


def transpose_product(backend, curve, mat, coeff_table, values: np.ndarray, num_cols: int) -> np.ndarray:
    """out[col] = sum over rows j of M[j, col] * values[j] (M^T . values)."""
    rows = np.repeat(np.arange(mat.num_rows, dtype=np.uint32), np.diff(mat.indptr.astype(np.int64)))
    order = np.argsort(mat.cols, kind="stable")
    counts = np.bincount(mat.cols, minlength=num_cols)
    indptr = np.zeros(num_cols + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return backend.spmv(curve, indptr, rows[order], mat.coeff_idx[order], coeff_table, values)


def _rand(p: int) -> int:
    return secrets.randbelow(p - 1) + 1


class Progress:
    """One status line on stderr for long setups (silent for small ones)."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled = total, 0, enabled
        self.t0 = time.perf_counter()

    def step(self, k: int, what: str):
        self.done += k
        if self.enabled:
            pct = 100.0 * self.done / max(1, self.total)
            sys.stderr.write(f"\r  setup: {what:<6} {self.done:>12,}/{self.total:,} points ({pct:5.1f}%) "
                             f"{time.perf_counter() - self.t0:6.1f} s")
            sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\n")


def generate(circuit, backend=None, progress: bool | None = None,
             toxic: Callable[[int], int] | None = None) -> ProvingKey:
    """Random parameters for `circuit` (a CompiledCircuit) as an in-memory ProvingKey."""
    backend = backend or get_backend("auto")
    curve = get_curve(circuit.curve)
    fr = curve.fr
    p = fr.p
    rand = toxic or (lambda _i: _rand(p))
    tau, alpha, beta, gamma, delta = (rand(i) for i in range(5))
    n = domain_size(circuit.num_rows, fr.params.two_adicity)
    nvars = circuit.num_vars
    ni = circuit.num_inputs

    lag = lagrange_at(curve, n, tau)[: circuit.num_rows]
    u, v, w = (transpose_product(backend, curve, m, circuit.coeff_table, lag, nvars) for m in circuit.matrices)

    def const(x):
        return np.broadcast_to(fr.from_int(x % p), u.shape)

    # (beta u + alpha v + w) / gamma for inputs, / delta for aux
    k = fr.add(fr.add(fr.mul(u, const(beta)), fr.mul(v, const(alpha))), w)
    ic_s = fr.mul(k[:ni], const(pow(gamma, -1, p))[:ni])
    l_s = fr.mul(k[ni:], const(pow(delta, -1, p))[ni:])
    zero_l = ~l_s.any(axis=1)
    if zero_l.any():
        raise ValueError(f"aux variable {int(np.argmax(zero_l))} is unconstrained (its L base would be the identity)")

    a_vars, b_vars = density_vars(circuit)

    # h_i = tau^i t(tau) / delta, i < n - 1
    h_s = np.empty((n - 1, 4), dtype=np.uint64)
    if n > 1:
        ntt_kernels(curve.name).powers(fr.from_ints([tau]), h_s, 64)
    t_over_delta = (pow(tau, n, p) - 1) * pow(delta, -1, p) % p
    h_s = fr.mul(h_s, np.broadcast_to(fr.from_int(t_over_delta), h_s.shape))

    total = len(ic_s) + len(l_s) + len(a_vars) + 2 * len(b_vars) + len(h_s)
    prog = Progress(total, progress if progress is not None else total >= 1 << 16)
    g1t = backend.fixed_base(curve, "g1", curve.g1.generator)
    g2t = backend.fixed_base(curve, "g2", curve.g2.generator)

    def muls(table, scalars_mont, what):
        canon = fr.from_mont(scalars_mont)
        out = np.empty((len(canon), 2) + table.grp.coord, dtype=np.uint64)
        for i in range(0, len(canon), table.chunk):
            part = table.mul(canon[i : i + table.chunk])
            out[i : i + len(part)] = part
            prog.step(len(part), what)
        return out

    ic = muls(g1t, ic_s, "ic")
    l_pts = muls(g1t, l_s, "l")
    a_pts = muls(g1t, u[a_vars], "a")
    b1_pts = muls(g1t, v[b_vars], "b_g1")
    b2_pts = muls(g2t, v[b_vars], "b_g2")
    h_pts = muls(g1t, h_s, "h")
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
