"""The real Filecoin fixtures under ../shared/fixtures/filecoin, skipped where absent: Curio's WindowPoSt
(curio-window-post) and rust-fil-proofs' 2 KiB PoRep and WindowPoSt proofs (rust-fil-proofs-2KiB)."""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(os.environ.get("CUZK_FILECOIN_FIXTURES",
                               Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "filecoin"))
FIXTURE_DIR = FIXTURES / "curio-window-post"
RUST_FIL_PROOFS_DIR = FIXTURES / "rust-fil-proofs-2KiB"


@dataclass
class CurioPost:
    vproof: bytes
    randomness: bytes
    post_proof: int
    seal_proof: int
    sector_number: int
    sealed_cid: str
    prover: int


@pytest.fixture(scope="session")
def curio_post() -> CurioPost:
    if not (FIXTURE_DIR / "post.vproof").is_file():
        pytest.skip(f"real WindowPoSt fixture not present at {FIXTURE_DIR} "
                    "(set CUZK_FILECOIN_FIXTURES to the folder holding curio-window-post/)")
    pub = json.loads((FIXTURE_DIR / "postpub.json").read_text())
    sector = pub["ChallengedSectors"][0]
    return CurioPost(vproof=(FIXTURE_DIR / "post.vproof").read_bytes(), randomness=base64.b64decode(pub["Randomness"]),
                     post_proof=pub["Proofs"][0]["PoStProof"], seal_proof=sector["SealProof"],
                     sector_number=sector["SectorNumber"], sealed_cid=sector["SealedCID"]["/"], prover=pub["Prover"])


@pytest.fixture(scope="session")
def rust_fil_proofs() -> Path:
    """The folder of rust-fil-proofs' 2 KiB proofs (porep-2KiB/, window-post-2KiB/: proof.bin, vk.scale,
    public.json)."""
    if not all((RUST_FIL_PROOFS_DIR / case / "public.json").is_file() for case in ("porep-2KiB", "window-post-2KiB")):
        pytest.skip(f"rust-fil-proofs' 2 KiB proofs not present at {RUST_FIL_PROOFS_DIR} "
                    "(set CUZK_FILECOIN_FIXTURES to the folder holding rust-fil-proofs-2KiB/)")
    return RUST_FIL_PROOFS_DIR
