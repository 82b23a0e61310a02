"""Generated parameters in a directory shared by several daemons or cluster nodes."""

from __future__ import annotations

import logging
import threading

from cuzk.engine.params.generated import GeneratedParams
from cuzk.formats import bellperson
from cuzk.r1cs import LC, ONE, RecordingCS


def _compiled():
    cs = RecordingCS("bls12_381")
    x = cs.alloc(3)
    y = cs.alloc_input(lambda: 9)
    cs.enforce(x, x, y)
    cs.enforce(LC.of(x, 1), ONE, LC.of(x, 1))
    return cs.compile()


def test_concurrent_first_opens_generate_once_and_agree(tmp_path, caplog):
    cc = _compiled()
    caplog.set_level(logging.INFO, logger="cuzk.engine")
    keys, errors = [], []

    def open_one():
        try:
            keys.append(GeneratedParams("pair", lambda: cc, tmp_path).open())
        except Exception as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert sum("generating parameters of pair" in r.getMessage() for r in caplog.records) == 1
    stem = GeneratedParams("pair", lambda: cc, tmp_path).stem()
    vk = bellperson.read_vk(stem.with_suffix(".vk"))
    delta = [k.vk.delta_g2.tobytes() for k in keys]
    assert len(keys) == 3 and len(set(delta)) == 1
    assert vk.delta_g2.tobytes() == delta[0]  # the .vk and .params come from the same setup
    assert not list(tmp_path.glob("*.tmp"))
