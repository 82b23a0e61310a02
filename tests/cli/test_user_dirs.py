"""Per-user paths follow $XDG_CACHE_HOME / $XDG_STATE_HOME, and the help texts show the effective ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuzk import user_dirs
from cuzk.cli.main import main
from cuzk.engine.config import EngineConfig


def help_text(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return "".join(capsys.readouterr().out.split())  # argparse wraps long words (and at hyphens)


def test_help_shows_the_cache_of_xdg_cache_home(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert f"{tmp_path}/cuzk/demo-params" in help_text(["demo"], capsys)
    assert f"{tmp_path}/cuzk/bench" in help_text(["bench", "batch"], capsys)


def test_fallbacks_and_relative_values(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for value in ("", "relative/dir"):  # the XDG rule: ignore what is not an absolute path
        monkeypatch.setenv("XDG_CACHE_HOME", value)
        monkeypatch.setenv("XDG_STATE_HOME", value)
        assert user_dirs.cache_dir() == tmp_path / ".cache" / "cuzk"
        assert user_dirs.state_dir() == tmp_path / ".local" / "state" / "cuzk"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert EngineConfig().listen_address() == f"unix://{tmp_path}/state/cuzk/cuzk.sock"
    assert Path(EngineConfig().listen_address()[len("unix://"):]) == user_dirs.default_socket()
