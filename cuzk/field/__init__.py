"""Prime fields Fr, Fq, the extension Fq2 and the pairing tower Fq6/Fq12 of
BLS12-381 and BN254, as Montgomery limb arrays.

The array APIs: `fields` (Fr, Fq, Fq2), `tower` (Fq6, Fq12); their constants:
`params`. Every numba kernel module of the project is generated and compiled
with `codegen`; the field's own sources are `arithmetic_source` (Fp, Fq2) and
`tower_formulas` + `tower_source` (Fq6, Fq12), over the 128-bit products of
`intrinsics`. `fq2_ints`, `frobenius` and `signed_digits` are the integer math
that derives constants at generation time; `threads` keeps small calls serial.
"""

from .fields import PrimeField, QuadraticField, field_kernels, fields_of
from .params import BLS12_381_FQ, BLS12_381_FR, BN254_FQ, BN254_FR, FieldParams

__all__ = [
    "PrimeField",
    "QuadraticField",
    "FieldParams",
    "field_kernels",
    "fields_of",
    "BLS12_381_FR",
    "BLS12_381_FQ",
    "BN254_FR",
    "BN254_FQ",
]
