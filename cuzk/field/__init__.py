"""Prime fields Fr, Fq and the extension Fq2 of BLS12-381 and BN254."""

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
