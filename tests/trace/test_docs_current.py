"""docs/api.md and the operator guide's config reference are generated; they must match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_docs_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_every_rpc_and_config_section_is_documented():
    api = (ROOT / "docs" / "api.md").read_text()
    proto = (ROOT / "proto" / "cuzk" / "v1" / "proving.proto").read_text()
    for line in proto.splitlines():
        if line.strip().startswith("rpc "):
            assert f"| `{line.split()[1].split('(')[0]}` |" in api
    guide = (ROOT / "docs" / "operator-guide.md").read_text()
    from cuzk.engine.config import SECTIONS

    for section in SECTIONS:
        assert f"#### `[{section}]`" in guide
