"""SHA-256: `native` (vectorized, outside circuits), `gadget` (bellperson's layout),
`stamped`, `filecoin` (sha254, the 254-bit truncated digest)."""

from .filecoin import sha254, sha254_many
from .gadget import sha256, sha256_compression
from .native import compress
from .native import sha256 as sha256_native
from .stamped import compression_template, compression_witness, hash_template, hash_witness

__all__ = [
    "sha256", "sha256_compression", "sha256_native", "compress", "sha254", "sha254_many",
    "compression_template", "compression_witness", "hash_template", "hash_witness",
]
