"""The real WindowPoSt fixture (../shared/fixtures/filecoin/curio-window-post), skipped where absent."""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURE_DIR = Path(os.environ.get("CUZK_FILECOIN_FIXTURES",
                                  Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "filecoin")
                   ) / "curio-window-post"


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
