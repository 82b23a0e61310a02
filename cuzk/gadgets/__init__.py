"""Circuit gadgets and their outside-circuit (native, vectorized) twins.

    boolean    Boolean: alloc, not, xor, and_, or_, ch, maj; packing to inputs
    uint32     UInt32: rotr, shr, xor, and, addmany (mod 2^32)
    sha256     native (numpy, N messages) / gadget (compression, full hash) /
               stamped (template + vectorized witness)
    poseidon   params (round numbers, Grain constants, MDS) / native (numba
               hash over N inputs) / gadget / stamped
    merkle     inclusion proofs, binary and arity-8, Poseidon or SHA-256
    bit_tape   witness programs that make bit-level templates stampable
"""

from .boolean import FALSE, TRUE, Boolean, and_, ch, maj, or_, xor, xor3
from .num import Num
from .stamped import StampedGadget
from .uint32 import UInt32

__all__ = ["Boolean", "TRUE", "FALSE", "xor", "and_", "or_", "ch", "maj", "xor3", "UInt32", "Num", "StampedGadget"]
