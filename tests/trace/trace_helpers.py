"""Shared by the trace tests: an engine config on the synthetic circuit, and proving jobs on it."""

from __future__ import annotations

import numpy as np
from PIL import Image
from synthetic_engine import synthetic_config

from cuzk.engine import Engine, EngineConfig, ProofRequest
from cuzk.engine.catalog import synthetic

CIRCUIT = "synthetic-tiny"


def engine_config(state_dir, **settings) -> EngineConfig:
    return synthetic_config(state_dir, **settings)


def prove_jobs(engine: Engine, n: int, priority: int = 0) -> list[str]:
    ids = [engine.submit(ProofRequest(circuit_id=CIRCUIT, vanilla_proof=synthetic.generate_vanilla("tiny"),
                                      priority=priority)).job_id for _ in range(n)]
    for i in ids:
        assert engine.await_job(i, 300).state.name == "COMPLETED"
    return ids


# ---- what a plot shows ---------------------------------------------------------------------------


def png_pixels(path) -> np.ndarray:
    """The PNG fully decoded (RGB uint8[h, w, 3]); a truncated or corrupt file fails here."""
    with Image.open(path) as im:
        assert im.format == "PNG", im.format
        im.load()
        return np.asarray(im.convert("RGB"))


def coloured(px: np.ndarray) -> np.ndarray:
    """Pixels that are neither white, black nor grey (axes, text and grid are greys)."""
    px = px.astype(np.int16)
    return (px.max(axis=2) - px.min(axis=2)) > 40


def filled_colours(px: np.ndarray, min_pixels: int = 300) -> int:
    """Distinct colours covering at least `min_pixels` each: filled bars, not legend swatches
    (about 100 pixels each) or anti-aliased lines."""
    cols = px[coloured(px)].reshape(-1, 3)
    if not len(cols):
        return 0
    _, counts = np.unique(cols, axis=0, return_counts=True)
    return int((counts >= min_pixels).sum())

