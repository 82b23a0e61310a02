"""Circuit gadgets and their outside-circuit (native, vectorized) twins.

    boolean    Boolean (bellpepper's layout): alloc, not, xor, and_, or_, sha256_ch,
               sha256_maj; packing to inputs
    uint32     UInt32 (bellperson's layout): rotr, shr, xor, sha256_ch/maj, addmany
    multieq    MultiEq: addmany's equalities packed into few constraints
    sha256     native (numpy, N messages) / gadget (bellperson's compression, full
               hash) / stamped (template + vectorized witness) / filecoin (sha254:
               the digest truncated to 254 bits, native and in circuits)
    poseidon   params (round numbers, Grain constants, MDS) / native (numba
               hash over N inputs) / gadget / stamped
    merkle     inclusion proofs, binary and arity-8, Poseidon or SHA-256
    bit_tape   witness programs that make bit-level templates stampable
"""

from .boolean import FALSE, TRUE, Boolean, and_, or_, sha256_ch, sha256_maj, xor
from .multieq import MultiEq
from .num import Num
from .stamped import StampedGadget
from .uint32 import UInt32

__all__ = ["Boolean", "TRUE", "FALSE", "xor", "and_", "or_", "sha256_ch", "sha256_maj", "UInt32", "MultiEq", "Num",
           "StampedGadget"]
