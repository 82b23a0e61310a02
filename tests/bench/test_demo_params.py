"""The TEST parameters `cuzk demo` keeps for Filecoin's PoSt circuits (cuzk.bench.filecoin_params): made
once with the code `cuzk setup --kind` runs, reused while the circuit is the same, made again when the
stamp says they were made for another wiring."""

from __future__ import annotations

import shutil

from cuzk.bench import filecoin_params as demo_params
from cuzk.bench.circuit_inputs import resolve


def test_made_once_reused_and_remade_when_stale(tmp_path, filecoin_params):
    _, spec = resolve("window-post")  # the family's smallest preset: 2KiB
    assert spec.circuit_id == "window-post-2KiB" and demo_params.is_filecoin(spec)
    d = tmp_path / "demo-params"
    shutil.copytree(filecoin_params, d)  # as `cuzk setup --kind` wrote them, without the demo's stamp
    said = []
    demo_params.ensure(d, [spec], log=lambda *a, **k: said.append(a[0]))
    assert len(said) == 2 and "TEST parameters of window-post-2KiB" in said[0]  # no stamp: made again
    params = next(d.glob("*.cuzk-topology")).with_suffix(".params")
    made = params.stat().st_mtime_ns
    said.clear()
    demo_params.ensure(d, [spec], log=lambda *a, **k: said.append(a[0]))
    assert said == [] and params.stat().st_mtime_ns == made  # current: reused
    next(d.glob("*.cuzk-topology")).write_text("another wiring")
    demo_params.ensure(d, [spec], log=lambda *a, **k: said.append(a[0]))
    assert len(said) == 2 and params.stat().st_mtime_ns != made
