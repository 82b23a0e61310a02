"""TOML configuration: defaults, warnings for unknown keys, clear errors."""

import pytest

from cuzk.engine import config as cfgmod
from cuzk.engine.config import ConfigError, EngineConfig


def test_default_text_is_the_default_config():
    assert cfgmod.loads(cfgmod.DEFAULT_CONFIG) == EngineConfig()
    assert cfgmod.loads(cfgmod.DEFAULT_CONFIG).warnings == []


def test_values_and_derived_settings(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("""
[daemon]
listen = "127.0.0.1:9820"
state_dir = "%s"
[memory]
total_budget = "2GiB"
eviction_min_idle = "30s"
[scheduler]
max_batch_size = 4
max_batch_wait_ms = 250
[gpus]
msm_table_fraction = 0
cpu_msm_tables = "256MiB"
[srs]
pinned_budget = "512MiB"
""" % tmp_path)
    c = cfgmod.load(path)
    assert c.listen_address() == "127.0.0.1:9820"
    assert c.total_budget_bytes() == 2 << 30 and c.pinned_budget_bytes() == 512 << 20
    assert c.eviction_min_idle_s() == 30.0 and c.scheduler.max_batch_size == 4
    assert c.param_dir() == tmp_path / "params"
    assert c.gpus.msm_table_fraction == 0.0 and isinstance(c.gpus.msm_table_fraction, float)
    assert c.cpu_msm_table_bytes() == 256 << 20


def test_cpu_msm_tables_default_to_a_quarter_of_the_memory_budget():
    c = cfgmod.loads('[memory]\ntotal_budget = "8GiB"\n')
    assert c.gpus.cpu_msm_tables == "auto" and c.cpu_msm_table_bytes() == 2 << 30
    assert cfgmod.loads('[gpus]\ncpu_msm_tables = "0"\n').cpu_msm_table_bytes() == 0
    assert cfgmod.loads('[gpus]\ncpu_msm_tables = 0\n').cpu_msm_table_bytes() == 0


def test_default_listen_is_a_unix_socket_in_the_state_dir(tmp_path):
    c = cfgmod.loads(f'[daemon]\nstate_dir = "{tmp_path}"\n')
    assert c.listen_address() == f"unix://{tmp_path}/cuzk.sock"


def test_unknown_and_deprecated_keys_warn():
    c = cfgmod.loads("[scheduler]\nsort_by_type = true\nfoo = 1\n[pipeline]\nenabled = true\n")
    text = "\n".join(c.warnings)
    assert "scheduler.sort_by_type: deprecated" in text and "scheduler.foo: unknown key" in text
    assert "unknown section [pipeline]" in text


def test_unknown_key_outside_any_section_warns_as_a_key_not_a_section():
    c = cfgmod.loads("colour = \"blue\"\n[logging]\nlevel = \"info\"\n")
    text = "\n".join(c.warnings)
    assert "colour: unknown key outside any section ignored" in text and "section [colour]" not in text


@pytest.mark.parametrize("text,needle", [
    ("[memory]\ntotal_budget = \"lots\"\n", "memory.total_budget"),
    ("[scheduler]\nmax_batch_size = 0\n", "scheduler.max_batch_size"),
    ("[scheduler]\nmax_batch_size = \"4\"\n", "scheduler.max_batch_size: expected an integer"),
    ("[synthesis]\npipelined = 1\n", "synthesis.pipelined: expected true or false"),
    ("[daemon]\nshutdown_timeout = \"soon\"\n", "daemon.shutdown_timeout"),
    ("[gpus]\nbackend = \"opencl\"\n", "gpus.backend"),
    ("[gpus]\nmsm_table_fraction = 1.5\n", "gpus.msm_table_fraction: value out of range"),
    ("[gpus]\nmsm_table_fraction = \"half\"\n", "gpus.msm_table_fraction: expected a number"),
    ("[gpus]\ncpu_msm_tables = \"most\"\n", "gpus.cpu_msm_tables"),
    ("[circuits]\ncircom = [{zkey = \"x\"}]\n", "circuits.circom[0]"),
    ("[daemon\n", "not valid TOML"),
])
def test_bad_values_name_the_key(text, needle):
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        cfgmod.loads(text)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        cfgmod.load(tmp_path / "nope.toml")


@pytest.mark.parametrize("text,seconds", [("5m", 300), ("30s", 30), ("250ms", 0.25), ("1h", 3600), (12, 12)])
def test_durations(text, seconds):
    assert cfgmod.parse_duration(text, "x") == seconds


# ---- errors name the file and section.key (issue 19) ------------------------------------------

BAD_FILES = [
    ("[daemon]\nlisten = 5\n", "daemon.listen: '5': expected unix:PATH or host:port"),
    ("[daemon]\nmetrics_listen = \"localhost\"\n", "daemon.metrics_listen: 'localhost': expected host:port"),
    ("[memory]\ntotal_budget = \"lots\"\n", "memory.total_budget"),
    ("[scheduler]\nmax_batch_size = \"4\"\n", "scheduler.max_batch_size: expected an integer"),
    ("[scheduler]\nmax_batch_size = 0\n", "scheduler.max_batch_size: value out of range"),
    ("[gpus]\nbackend = \"opencl\"\n", "gpus.backend"),
    ("[daemon]\ntls_cert = \"c.pem\"\n", "daemon.tls_cert and daemon.tls_key"),
    ("[circuits]\ncircom = [{zkey = \"x\"}]\n", "circuits.circom[0]"),
    ("daemon = 3\n", "[daemon] must be a table"),
    # a key before any [section] header: the section it belongs to, not "unknown section [listen]" (issue 42)
    ("listen = 5\n[scheduler]\nmax_batch_size = 0\n",  # (the bad batch size: no daemon starts without the fix)
     "listen = 5 is outside any section: it belongs under [daemon] (daemon.listen)"),
    ("threads = 2\n", "threads = 2 is outside any section: it belongs under [synthesis] (synthesis.threads)"),
]


@pytest.mark.parametrize("text,message", BAD_FILES)
def test_daemon_config_errors_name_the_file_and_key(tmp_path, text, message, capsys):
    from cuzk.cli.main import main

    path = tmp_path / "cuzk.toml"
    path.write_text(text)
    assert main(["daemon", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cuzk: error: {path}: {message}"), err
    assert err.count("\n") == 1 and err.count(str(path)) == 1, err


def test_flag_errors_name_the_flag(tmp_path, capsys):
    from cuzk.cli.main import main

    path = tmp_path / "cuzk.toml"
    path.write_text("[logging]\nlevel = \"info\"\n")
    assert main(["daemon", "--config", str(path), "--listen", "5"]) == 2
    assert capsys.readouterr().err == "cuzk: error: --listen: '5': expected unix:PATH or host:port\n"


def test_loaded_config_errors_name_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[synthesis]\npipelined = 1\n")
    with pytest.raises(ConfigError) as exc:
        cfgmod.load(path)
    assert str(exc.value) == f"{path}: synthesis.pipelined: expected true or false, got 1"
    cfg = EngineConfig()
    cfg.scheduler.prove_retries = -1  # built in code: no file to name
    with pytest.raises(ConfigError, match=r"^scheduler\.prove_retries: value out of range$"):
        cfg.validate()
