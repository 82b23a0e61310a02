"""The compute interface every backend implements (DESIGN.md section 3).

Arrays crossing this interface are host numpy arrays in the project layout
(Montgomery Fr `uint64[..., n, 4]`, canonical MSM scalars `uint64[n, 4]`,
affine points). A device backend may keep its own copies resident (bases
especially) but accepts and returns these.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from cuzk.curve import Curve, get_curve


def as_curve(curve: Curve | str) -> Curve:
    return curve if isinstance(curve, Curve) else get_curve(curve)


class Backend(ABC):
    name: str = "abstract"

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

    def describe(self) -> str:
        return self.name
