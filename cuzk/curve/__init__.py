"""G1/G2 point arrays of BLS12-381 and BN254: group law, checks, encodings."""

from .curves import BLS12_381, BN254, CURVES, Curve, Group, curve_kernels, get_curve

__all__ = ["BLS12_381", "BN254", "CURVES", "Curve", "Group", "curve_kernels", "get_curve"]
