"""Constants of the prime fields, derived from the modulus at import.

Only the modulus, a multiplicative generator and (for base fields) the
quadratic non-residue are given; everything Montgomery- and NTT-related is
computed here so no magic numbers are copied from elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _two_adicity(n: int) -> int:
    s = 0
    while n % 2 == 0:
        n //= 2
        s += 1
    return s


@dataclass(frozen=True)
class FieldParams:
    name: str  # short identifier used in generated code, e.g. "bls12_381_fr"
    p: int
    limbs: int
    generator: int  # multiplicative generator of the whole group F_p^*
    bits: int = field(init=False)
    R: int = field(init=False)  # 2^(64 L) mod p
    R2: int = field(init=False)
    inv: int = field(init=False)  # -p^-1 mod 2^64
    two_adicity: int = field(init=False)
    root_of_unity: int = field(init=False)  # primitive 2^two_adicity-th root

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "bits", self.p.bit_length())
        R = pow(2, 64 * self.limbs, self.p)
        set_(self, "R", R)
        set_(self, "R2", R * R % self.p)
        set_(self, "inv", (-pow(self.p, -1, 1 << 64)) % (1 << 64))
        s = _two_adicity(self.p - 1)
        set_(self, "two_adicity", s)
        set_(self, "root_of_unity", pow(self.generator, (self.p - 1) >> s, self.p))
        assert self.p >> (64 * self.limbs - 1) == 0, "modulus must leave the top bit free"

    @property
    def nbytes(self) -> int:
        return (self.bits + 7) // 8

    def to_limbs(self, x: int) -> tuple[int, ...]:
        return tuple((x >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(self.limbs))

    def root_of_unity_of_order(self, log_n: int) -> int:
        if log_n > self.two_adicity:
            raise ValueError(f"{self.name}: no 2^{log_n}-th root of unity (two-adicity {self.two_adicity})")
        return pow(self.root_of_unity, 1 << (self.two_adicity - log_n), self.p)


BLS12_381_FR = FieldParams(
    "bls12_381_fr", 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001, 4, 7
)
BLS12_381_FQ = FieldParams(
    "bls12_381_fq",
    0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
    6,
    2,
)
BN254_FR = FieldParams(
    "bn254_fr", 21888242871839275222246405745257275088548364400416034343698204186575808495617, 4, 5
)
BN254_FQ = FieldParams(
    "bn254_fq", 21888242871839275222246405745257275088696311157297823662689037894645226208583, 4, 3
)
