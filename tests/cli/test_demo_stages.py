"""`cuzk demo` says what each stage does before it starts (issue 42: no silent wait over 2 s), with the
daemon, the jobs and the parameters replaced by fakes (the real demo takes ~40 s on 2 cores: `make run`)."""

from __future__ import annotations

import contextlib
import re
import types

from cuzk.cli import demo


class FakeSpec:
    def sample_request(self):
        return {}


class FakeClient:
    def preload(self, cid):
        return types.SimpleNamespace(load_time_ms=1500)

    def pause(self, on):
        pass

    def status(self):
        return None


class FakeDaemon:
    def __init__(self, work, cfg, progress=False):
        self.address = f"unix:{work}/cuzk.sock"

    def start(self):
        return self

    @contextlib.contextmanager
    def client(self):
        yield FakeClient()

    def terminate(self):
        return 0


class FakeWarmup:
    def __init__(self, client, cids):
        pass

    def start(self):
        return self

    def wait(self):
        print("warmup joined")


def test_every_stage_is_announced_in_order(monkeypatch, capsys, tmp_path):
    recs = [types.SimpleNamespace(as_json=lambda: {}) for _ in range(4)]
    monkeypatch.setattr(demo, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(demo, "resolve", lambda kind, size: (f"{kind}-{size}", FakeSpec()))
    monkeypatch.setattr(demo.filecoin_params, "ensure", lambda d, specs: d)
    monkeypatch.setattr(demo, "LocalDaemon", FakeDaemon)
    monkeypatch.setattr(demo, "VerifierWarmup", FakeWarmup)
    monkeypatch.setattr(demo, "run_jobs", lambda c, jobs, label, lookup, on_submitted: (recs, 2.0))
    monkeypatch.setattr(demo, "verify_records", lambda c, r: print("verified"))
    monkeypatch.setattr(demo, "summarize", lambda r, wall, st: {"failed": 0, "verified": len(r)})
    monkeypatch.setattr(demo, "print_records", lambda r: None)
    monkeypatch.setattr(demo, "print_summary", lambda s: None)
    assert demo.run("2KiB", 2, None, None) == 0
    out = capsys.readouterr().out.splitlines()
    stages = [x for x in out if re.match(r"\[\d/\d\] ", x)]
    assert [s[:5] for s in stages] == [f"[{k}/6]" for k in range(1, 7)], out
    assert "proving 4 jobs" in stages[4] and "checking the 4 proofs" in stages[5] and "SIGTERM" in stages[5]
    # the check after the last proof waits for the background compile, then verifies, then says how long
    i = out.index(stages[5])
    assert out[i + 1: i + 3] == ["warmup joined", "verified"] and out[i + 3].startswith("  checked in ")
    assert any(x.startswith("  daemon stopped in ") for x in out) and out[-1] == "demo: OK"
