"""A fresh single-party Groth16 key in snarkjs's conventions (`cuzk setup --zkey`).

The same toxic waste and QAP evaluation as groth16/setup.py (tau, alpha,
beta, gamma, delta from the OS CSPRNG; u_s(tau) = sum_j A[j, s] L_j(tau) by
a transposed SpMV), laid out the way snarkjs and rapidsnark prove with it:

- row j of the circuit (its constraints, then A = {s: 1} for each public
  signal s, ONE included) is the point w^j of snarkjs's root w
  (snarkjs_domain.py), so for BLS12-381 the Lagrange values are taken at
  permuted positions of cuzk's domain;
- A, B1, B2 hold a base for every signal (infinity where it has no term);
  IC holds (beta u + alpha v + w)/gamma of the public signals, C the same
  over delta for the private ones (infinity for a signal in no constraint);
- H_i = L_{2i+1}(tau)/delta, Lagrange over the 2n-th roots of unity: p = AB - C
  has degree <= 2n - 2 and vanishes on the n even points, so p(tau) =
  sum_i p(w_2n^(2i+1)) L_{2i+1}(tau), and a prover that evaluates p on the
  odd coset (qap.py, snarkjs, rapidsnark) gets h(tau) t(tau)/delta;
- the section-4 records list each row's A terms, then its B terms, row by
  row, the public rows last, as snarkjs's zkey_new writes them.

The domain is the smallest power of two >= the rows, as snarkjs picks it. H
needs the 2n-th roots, so n is at most half the field's 2-adic order
(snarkjs's way round that limit takes H from a ptau; there is none here).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from cuzk.backend import get_backend
from cuzk.curve import get_curve
from cuzk.errors import CuzkError
from cuzk.groth16.setup import Progress, domain_size, lagrange_at, toxic_waste, transpose_product

from .snarkjs_domain import h_positions, row_positions
from .zkey import COEFF_RECORD
from .zkey_write import ZkeySections


def coefficient_records(circuit) -> np.ndarray:
    """Section 4 for `circuit`: its A and B terms interleaved row by row, values c R^2."""
    fr = get_curve(circuit.curve).fr
    parts = []
    for matrix, m in enumerate((circuit.a, circuit.b)):
        rows = np.repeat(np.arange(m.num_rows, dtype=np.uint32), np.diff(m.indptr.astype(np.int64)))
        parts.append((np.full(m.nnz, matrix, np.uint32), rows, m.cols, m.coeff_idx))
    matrix, rows, cols, idx = (np.concatenate(x) for x in zip(*parts))
    order = np.lexsort((matrix, rows))  # by row, A before B, terms kept in order
    recs = np.empty(len(order), dtype=COEFF_RECORD)
    recs["matrix"], recs["constraint"], recs["signal"] = matrix[order], rows[order], cols[order]
    # a Montgomery value c R, read as an integer and put in Montgomery form again, is c R^2
    table = fr.to_mont(circuit.coeff_table)
    recs["value"] = table[idx[order].astype(np.int64)]
    return recs


def snarkjs_domain_size(circuit) -> int:
    """snarkjs's domain for the circuit's rows; CuzkError when its 2n-th roots do not exist."""
    fr = get_curve(circuit.curve).fr
    try:
        return domain_size(max(2, circuit.num_rows), fr.params.two_adicity - 1)
    except ValueError as exc:
        raise CuzkError(f"{exc} (a .zkey's H bases need twice that domain)") from None


def generate_zkey(circuit, backend=None, progress: bool | None = None,
                  toxic: Callable[[int], int] | None = None) -> ZkeySections:
    """Random Groth16 key for `circuit` (a CompiledCircuit from a circom .r1cs), snarkjs layout."""
    backend = backend or get_backend("auto")
    curve = get_curve(circuit.curve)
    fr = curve.fr
    p = fr.p
    tau, alpha, beta, gamma, delta = toxic_waste(curve, toxic)
    n = snarkjs_domain_size(circuit)
    ni, nvars = circuit.num_inputs, circuit.num_vars

    lag = lagrange_at(curve, n, tau)[row_positions(fr, n, np.arange(circuit.num_rows, dtype=np.int64))]
    u, v, w = (transpose_product(backend, curve, m, circuit.coeff_table, lag, nvars) for m in circuit.matrices)
    del lag

    def scaled(x: np.ndarray, k: int) -> np.ndarray:
        return fr.mul(x, np.broadcast_to(fr.from_int(k % p), x.shape))

    k = fr.add(fr.add(scaled(u, beta), scaled(v, alpha)), w)
    ic_s = scaled(k[:ni], pow(gamma, -1, p))
    c_s = scaled(k[ni:], pow(delta, -1, p))
    del k, w

    odd = lagrange_at(curve, 2 * n, tau)[1::2]  # cuzk's odd-coset order
    pos = h_positions(fr, n)
    h_s = scaled(odd if pos is None else odd[pos], pow(delta, -1, p))
    del odd

    total = len(ic_s) + len(c_s) + 3 * nvars + n
    prog = Progress(total, progress if progress is not None else total >= 1 << 16)
    g1t = backend.fixed_base(curve, "g1", curve.g1.generator)
    g2t = backend.fixed_base(curve, "g2", curve.g2.generator)

    def muls(table, scalars_mont: np.ndarray, what: str) -> np.ndarray:
        out = np.empty((len(scalars_mont), 2) + table.grp.coord, dtype=np.uint64)
        for i in range(0, len(scalars_mont), table.chunk):
            out[i : i + table.chunk] = table.mul(fr.from_mont(scalars_mont[i : i + table.chunk]))
            prog.step(len(out[i : i + table.chunk]), what)
        return out

    def single(table, x: int) -> np.ndarray:
        return table.mul(fr.canonical_from_ints([x % p]))[0]

    key = ZkeySections(
        curve=curve, n_public=ni - 1, domain_size=n,
        alpha1=single(g1t, alpha), beta1=single(g1t, beta), beta2=single(g2t, beta),
        gamma2=single(g2t, gamma), delta1=single(g1t, delta), delta2=single(g2t, delta),
        ic=muls(g1t, ic_s, "ic"), coefficients=coefficient_records(circuit),
        a=muls(g1t, u, "a"), b1=muls(g1t, v, "b1"), b2=muls(g2t, v, "b2"),
        c=muls(g1t, c_s, "c"), h=muls(g1t, h_s, "h"),
    )
    prog.close()
    return key
