"""What a PoSt verifier computes, written from rust-fil-proofs' definitions with no cuzk code on the path
(the tests' outside oracle for public inputs and parameter names).

- Challenges (storage-proofs-post fallback/utils.rs `generate_leaf_challenge_inner`, api 1.2.0
  `get_challenge_index` = n; 1.0.0 = sector index * challenge count + n): the first 8 bytes of
  sha256(randomness || sector_id u64 LE || challenge_index u64 LE), little-endian, mod the leaf count.
- Public inputs (fallback/compound.rs `generate_public_inputs`): per sector slot, comm_r then each
  challenged leaf index; a partial partition repeats the last sector's inputs.
- Parameter file names (storage-proofs-core parameter_cache.rs): v28-<cache prefix>-<sha256 of the
  public parameters' identifier>, the identifier `FallbackPoSt::PublicParams{sector_size: S,
  challenge_count: C, sector_count: N}` (fallback/vanilla.rs).
"""

from __future__ import annotations

import hashlib

# parameters.json of rust-fil-proofs (published file names of the v28 PoSt parameters, by sector size)
PUBLISHED_POST_PARAMS = {
    2048: ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
           "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
           "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
           "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"),
    8 << 20: ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
              "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331",
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
              "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9"),
    512 << 20: ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
                "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"),
    32 << 30: ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
               "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
               "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
               "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"),
    64 << 30: ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
               "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
               "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
               "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"),
}


def leaf_challenge(randomness: bytes, sector_id: int, challenge_index: int, leaves: int) -> int:
    digest = hashlib.sha256(randomness + sector_id.to_bytes(8, "little") + challenge_index.to_bytes(8, "little"))
    return int.from_bytes(digest.digest()[:8], "little") % leaves


def post_public_inputs(randomness: bytes, sectors: list[tuple[int, bytes]], slots: int, challenges: int,
                       leaves: int, api: str = "1.2.0", unroll: int = 0) -> list[int]:
    """A partition's public inputs. sectors: (id, comm_r bytes) in request order; slots: the circuit's
    sector slots; unroll: WinningPoSt's one sector seen as `unroll` slots of one challenge each."""
    rows = []
    if unroll:
        (sid, comm), = sectors
        for n in range(unroll):
            rows.append([int.from_bytes(comm, "little"), leaf_challenge(randomness, sid, n, leaves)])
    else:
        for i, (sid, comm) in enumerate(sectors):
            idx = [n if api == "1.2.0" else i * challenges + n for n in range(challenges)]
            rows.append([int.from_bytes(comm, "little")] + [leaf_challenge(randomness, sid, j, leaves) for j in idx])
    while len(rows) < slots:
        rows.append(rows[-1])
    return [v for r in rows for v in r]
