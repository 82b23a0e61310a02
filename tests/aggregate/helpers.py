"""Proofs made by cuzk's own setup and prover on a tiny circuit, for the aggregation tests."""

from __future__ import annotations

import functools

import numpy as np

from cuzk.backend import get_backend
from cuzk.circuits.textbook_cubic import cube_circuit
from cuzk.curve import get_curve
from cuzk.groth16 import prover, setup
from cuzk.groth16.verifier import PreparedVerifyingKey, verify
from cuzk.r1cs import RecordingCS, WitnessCS
from cuzk.r1cs.evaluation import evaluate

CPU = get_backend("cpu")


def public(curve: str, x: int) -> list[int]:
    p = get_curve(curve).fr.p
    return [(x**3 + x + 5) % p, 2 * x % p]


@functools.cache
def keyed(curve: str):
    """(proving key, prepared vk, proofs for x = 2..10, their public inputs); each proof checked."""
    rec = RecordingCS(curve)
    cube_circuit(rec, 0, double=True)
    cc = rec.compile()
    pk = setup.generate(cc, backend=CPU, progress=False)
    pvk = PreparedVerifyingKey(pk.vk)
    proofs, pubs = [], []
    for x in range(2, 11):
        ws = WitnessCS(curve)
        cube_circuit(ws, x, double=True)
        w = ws.witness()
        pr = prover.prove(pk, w, evaluate(cc, w), backend=CPU)
        assert verify(pvk, pr, public(curve, x))
        proofs.append(pr)
        pubs.append(public(curve, x))
    return pk, pvk, proofs, pubs


def arrays(proofs):
    return tuple(np.stack([getattr(p, f) for p in proofs]) for f in "abc")


def canon_inputs(curve, pubs) -> np.ndarray:
    c = get_curve(curve)
    return np.stack([c.fr.canonical_from_ints(p) for p in pubs]).reshape(len(pubs), -1, 4)


def mont_inputs(curve, canon) -> np.ndarray:
    return get_curve(curve).fr.to_mont(canon.reshape(-1, 4)).reshape(canon.shape)
