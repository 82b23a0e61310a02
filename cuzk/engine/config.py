"""Engine and daemon configuration: TOML sections with cuzk's meanings.

`DEFAULT_CONFIG` is the commented file `cuzk daemon --print-default-config`
prints; parsing it gives exactly `EngineConfig()` (a test checks). Keys a
section does not know are reported as warnings and otherwise ignored, as
cuzk does; a known key with a bad value is an error naming the file and
`section.key` ("cuzk.toml: daemon.listen: '5': expected unix:PATH or
host:port"). Each check names its key; `EngineConfig.validate` adds the
file, once for all of them.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cuzk.errors import CuzkError
from cuzk.user_dirs import state_dir as default_state_dir

from .resources.memory import GiB, parse_size, system_memory_bytes


class ConfigError(CuzkError, ValueError):
    """A configuration value that cannot be used; the message names section.key (and the file)."""

    def in_file(self, source: str) -> "ConfigError":
        """This error with `source` (the config file) in front, once."""
        text = str(self)
        return self if not source or text.startswith(f"{source}: ") else ConfigError(f"{source}: {text}")


def parse_duration(value, what: str) -> float:
    """'5m', '30s', '250ms', '1h', or a number of seconds -> seconds."""
    if isinstance(value, bool):
        raise ConfigError(f"{what}: expected a duration such as '30s' or '5m', got {value!r}")
    if isinstance(value, (int, float)):
        if not 0 <= value < MAX_DURATION_S:  # also refuses NaN and inf
            raise ConfigError(f"{what}: expected a duration from 0 to {MAX_DURATION_S:.0f} seconds, got {value!r}")
        return float(value)
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*", str(value))
    if not m:
        raise ConfigError(f"{what}: expected a duration such as '30s', '5m' or '250ms', got {value!r}")
    scale = {"ms": 1e-3, "s": 1.0, None: 1.0, "m": 60.0, "h": 3600.0}[m.group(2)]
    return parse_duration(float(m.group(1)) * scale, what)


MAX_DURATION_S = 10 * 365 * 86400.0  # ten years: beyond it, timers overflow (and nothing means it)


@dataclass
class DaemonConfig:
    listen: str = ""  # "" = unix socket <state_dir>/cuzk.sock
    state_dir: str = ""  # "" = $XDG_STATE_HOME/cuzk
    metrics_listen: str = ""
    shutdown_timeout: str = "10m"
    finish_queued_on_shutdown: bool = False
    job_retention: str = "1h"
    max_finished_jobs: int = 10000
    max_message_size: str = "128MiB"
    rpc_threads: int = 64
    journal: bool = True
    auth_token: str = ""
    auth_token_file: str = ""
    tls_cert: str = ""
    tls_key: str = ""


@dataclass
class MemoryConfig:
    total_budget: str = "auto"
    safety_margin: str = "1GiB"
    eviction_min_idle: str = "5m"


@dataclass
class GpusConfig:
    backend: str = "auto"
    devices: list = field(default_factory=list)
    gpu_workers_per_device: int = 2
    gpu_threads: int = 0
    msm_table_fraction: float = 0.6
    memory_limit: str = "auto"
    cpu_msm_tables: str = "auto"


@dataclass
class SchedulerConfig:
    max_batch_size: int = 1
    max_batch_wait_ms: int = 10000
    prove_retries: int = 1


@dataclass
class SynthesisConfig:
    threads: int = 0
    kernel_threads: int = 1
    lookahead: int = 0
    pipelined: bool = True
    check_witness: bool = False


@dataclass
class SrsConfig:
    param_cache: str = ""  # "" = <state_dir>/params
    preload: list = field(default_factory=list)
    pinned_budget: str = "auto"


@dataclass
class CircuitsConfig:
    synthetic: bool = False
    circom: list = field(default_factory=list)
    filecoin_params: str = ""  # "" = $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters


@dataclass
class TraceConfig:
    capacity: int = 200000


@dataclass
class LimitsConfig:
    max_queued_per_priority: dict = field(
        default_factory=lambda: {"low": 0, "normal": 0, "high": 0, "critical": 0})
    max_queued_per_client: int = 0


@dataclass
class LoggingConfig:
    level: str = "info"
    format: str = "text"


@dataclass
class EngineConfig:
    daemon: DaemonConfig = field(default_factory=DaemonConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    gpus: GpusConfig = field(default_factory=GpusConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    synthesis: SynthesisConfig = field(default_factory=SynthesisConfig)
    srs: SrsConfig = field(default_factory=SrsConfig)
    circuits: CircuitsConfig = field(default_factory=CircuitsConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    trace: TraceConfig = field(default_factory=TraceConfig)
    warnings: list = field(default_factory=list, compare=False, repr=False)
    source: str = field(default="", compare=False, repr=False)  # the file it was read from ("" = none)

    # ---- derived values (what the engine uses) --------------------------------
    def state_dir(self) -> Path:
        return Path(os.path.expanduser(self.daemon.state_dir)) if self.daemon.state_dir else default_state_dir()

    def listen_address(self) -> str:
        return self.daemon.listen or f"unix://{self.state_dir() / 'cuzk.sock'}"

    def param_dir(self) -> Path:
        return Path(os.path.expanduser(self.srs.param_cache)) if self.srs.param_cache else self.state_dir() / "params"

    def filecoin_params_dir(self) -> Path | None:
        """Where Filecoin's PoSt/PoRep parameters are read by their Filecoin names (None: the default)."""
        return Path(os.path.expanduser(self.circuits.filecoin_params)) if self.circuits.filecoin_params else None

    def total_budget_bytes(self) -> int:
        text = str(self.memory.total_budget)
        if text.strip().lower() == "auto":
            total = system_memory_bytes() or 16 * GiB
            # a provider's host also runs Curio and the OS: a quarter of it (at most 32 GiB) stays theirs
            margin = max(_size(self.memory.safety_margin, "memory.safety_margin"), min(total // 4, 32 * GiB))
            return max(total - margin, total // 4)
        return _size(text, "memory.total_budget")

    def pinned_budget_bytes(self) -> int | None:
        text = str(self.srs.pinned_budget)
        return None if text.strip().lower() == "auto" else _size(text, "srs.pinned_budget")

    def gpu_memory_limit_bytes(self) -> int | None:
        """gpus.memory_limit in bytes, or None for "auto" (what each card has)."""
        text = str(self.gpus.memory_limit)
        if text.strip().lower() == "auto":
            return None
        n = _size(text, "gpus.memory_limit")
        if n <= 0:
            raise ConfigError(f"gpus.memory_limit: expected a positive size such as '16GiB' or \"auto\", got {text!r}")
        return n

    def cpu_msm_table_bytes(self) -> int:
        """gpus.cpu_msm_tables in bytes: "auto" = a quarter of memory.total_budget (0: no tables)."""
        text = str(self.gpus.cpu_msm_tables)
        if text.strip().lower() == "auto":
            return self.total_budget_bytes() // 4
        return _size(text, "gpus.cpu_msm_tables")

    def eviction_min_idle_s(self) -> float:
        return parse_duration(self.memory.eviction_min_idle, "memory.eviction_min_idle")

    def shutdown_timeout_s(self) -> float:
        return parse_duration(self.daemon.shutdown_timeout, "daemon.shutdown_timeout")

    def job_retention_s(self) -> float:
        return parse_duration(self.daemon.job_retention, "daemon.job_retention")

    def max_message_bytes(self) -> int:
        return _size(self.daemon.max_message_size, "daemon.max_message_size")

    def auth_token(self) -> str:
        """The bearer token clients must send ("" = none): daemon.auth_token or daemon.auth_token_file."""
        if self.daemon.auth_token and self.daemon.auth_token_file:
            raise ConfigError("daemon.auth_token and daemon.auth_token_file: set one, not both")
        if self.daemon.auth_token_file:
            path = Path(os.path.expanduser(self.daemon.auth_token_file))
            try:
                token = path.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"daemon.auth_token_file: cannot read {path} ({exc})") from None
            if not token:
                raise ConfigError(f"daemon.auth_token_file: {path} is empty")
            return token
        return self.daemon.auth_token.strip()

    def max_queued(self, priority_name: str) -> int:
        """limits.max_queued_per_priority for one priority (0 = no limit)."""
        return int(self.limits.max_queued_per_priority.get(priority_name, 0))

    def synthesis_threads(self) -> int:
        n = self.synthesis.threads
        return n if n > 0 else max(1, min(4, (os.cpu_count() or 2) // 2))

    def validate(self, checks: dict[str, Callable] | None = None) -> "EngineConfig":
        """Check every value now, so a bad file fails at start with a clear message naming the
        file and section.key. `checks` adds checks of layers above the engine ("daemon.listen":
        the server's address syntax): "section.key" -> a function of the value that raises
        ValueError, reported as the others are."""
        try:
            self._check_values()
            for key, check in (checks or {}).items():
                section, name = key.split(".")
                try:
                    check(getattr(getattr(self, section), name))
                except ConfigError:
                    raise
                except ValueError as exc:
                    raise ConfigError(f"{key}: {exc}") from None
        except ConfigError as exc:
            raise exc.in_file(self.source) from None
        return self

    def _check_values(self) -> None:
        self.total_budget_bytes()
        self.pinned_budget_bytes()
        self.gpu_memory_limit_bytes()
        self.cpu_msm_table_bytes()
        self.eviction_min_idle_s()
        self.shutdown_timeout_s()
        self.job_retention_s()
        self.max_message_bytes()
        checks = [
            ("scheduler.max_batch_size", self.scheduler.max_batch_size >= 1),
            ("scheduler.max_batch_wait_ms", self.scheduler.max_batch_wait_ms >= 0),
            ("scheduler.prove_retries", self.scheduler.prove_retries >= 0),
            ("synthesis.threads", self.synthesis.threads >= 0),
            ("synthesis.kernel_threads", self.synthesis.kernel_threads >= 0),
            ("synthesis.lookahead", self.synthesis.lookahead >= 0),
            ("gpus.gpu_workers_per_device", self.gpus.gpu_workers_per_device >= 1),
            ("gpus.gpu_threads", self.gpus.gpu_threads >= 0),
            ("gpus.msm_table_fraction", 0 <= self.gpus.msm_table_fraction <= 0.9),
            ("daemon.rpc_threads", self.daemon.rpc_threads >= 1),
            ("daemon.max_finished_jobs", self.daemon.max_finished_jobs >= 0),
            ("limits.max_queued_per_client", self.limits.max_queued_per_client >= 0),
            ("trace.capacity", self.trace.capacity >= 0),
        ]
        for name, ok in checks:
            if not ok:
                raise ConfigError(f"{name}: value out of range")
        if self.gpus.backend not in ("auto", "cpu", "cuda"):
            raise ConfigError(f"gpus.backend: expected auto, cpu or cuda, got {self.gpus.backend!r}")
        if self.logging.level.lower() not in ("debug", "info", "warning", "error"):
            raise ConfigError(f"logging.level: expected debug, info, warning or error, got {self.logging.level!r}")
        if self.logging.format not in ("text", "json"):
            raise ConfigError(f"logging.format: expected text or json, got {self.logging.format!r}")
        for prio, n in self.limits.max_queued_per_priority.items():
            if prio not in ("low", "normal", "high", "critical"):
                raise ConfigError(f"limits.max_queued_per_priority.{prio}: unknown priority "
                                  "(expected low, normal, high or critical)")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ConfigError(f"limits.max_queued_per_priority.{prio}: expected a count >= 0, got {n!r}")
        if bool(self.daemon.tls_cert) != bool(self.daemon.tls_key):
            raise ConfigError("daemon.tls_cert and daemon.tls_key: TLS needs both the certificate and the key")
        self.auth_token()
        for name, items, ok in (
            ("srs.preload", self.srs.preload, lambda v: isinstance(v, str)),
            ("gpus.devices", self.gpus.devices, lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
        ):
            for i, v in enumerate(items):
                if not ok(v):
                    raise ConfigError(f"{name}[{i}]: {v!r} is not a valid entry")
        for i, c in enumerate(self.circuits.circom):
            if not isinstance(c, dict) or not c.get("id") or not c.get("zkey"):
                raise ConfigError(f"circuits.circom[{i}]: needs at least id and zkey")
            for key, typ in (("id", str), ("zkey", str), ("proof_kind", str), ("priority", str), ("batchable", bool)):
                if key in c and not isinstance(c[key], typ):
                    raise ConfigError(f"circuits.circom[{i}].{key}: expected a {typ.__name__}, got {c[key]!r}")


def _size(value, what: str) -> int:
    try:
        return parse_size(value, what)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    except OverflowError:  # e.g. 400 digits: float() gives inf
        raise ConfigError(f"{what}: {value!r} is too large") from None


SECTIONS = {
    "daemon": DaemonConfig, "memory": MemoryConfig, "gpus": GpusConfig, "scheduler": SchedulerConfig,
    "synthesis": SynthesisConfig, "srs": SrsConfig, "circuits": CircuitsConfig, "logging": LoggingConfig,
    "trace": TraceConfig, "limits": LimitsConfig,
}
# cuzk keys that mean nothing here, accepted with a warning
DEPRECATED = {"srs.preload_on_start", "memory.pinned_budget", "memory.working_memory_budget",
              "synthesis.partition_workers", "scheduler.sort_by_type"}


def from_dict(data: dict, where: str = "config") -> EngineConfig:
    """The parsed TOML of file `where` -> a validated EngineConfig (errors and warnings name `where`)."""
    cfg = EngineConfig(source=where)
    try:
        for section, values in data.items():
            cls = SECTIONS.get(section)
            if cls is None and not isinstance(values, dict):
                _top_level_key(cfg, section, values, where)
                continue
            if cls is None:
                cfg.warnings.append(f"{where}: unknown section [{section}] ignored")
                continue
            if not isinstance(values, dict):
                raise ConfigError(f"[{section}] must be a table (a section of keys), not a value "
                                  f"({section} = {values!r})")
            target = getattr(cfg, section)
            known = {f.name: f for f in dataclasses.fields(cls)}
            for key, value in values.items():
                name = f"{section}.{key}"
                if key not in known:
                    note = "deprecated in cuzk and" if name in DEPRECATED else "unknown key"
                    cfg.warnings.append(f"{where}: {name}: {note} ignored")
                    continue
                default = getattr(target, key)
                setattr(target, key, _coerce(value, default, name))
    except ConfigError as exc:
        raise exc.in_file(where) from None
    return cfg.validate()


def _top_level_key(cfg: EngineConfig, key: str, value, where: str) -> None:
    """`key = value` before any [section] header: an error naming the section where `key` is known
    (it would be silently ignored otherwise), a warning where no section has it."""
    homes = [s for s, cls in SECTIONS.items() if key in {f.name for f in dataclasses.fields(cls)}]
    if homes:
        where_to = " or ".join(f"[{s}] ({s}.{key})" for s in homes)
        raise ConfigError(f"{key} = {value!r} is outside any section: it belongs under {where_to}; "
                          "keys before the first [section] header are top-level, and cuzk has none")
    cfg.warnings.append(f"{where}: {key}: unknown key outside any section ignored (cuzk's keys all belong "
                        f"to a section: {', '.join(f'[{s}]' for s in SECTIONS)})")


def _coerce(value, default, name: str):
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{name}: expected true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name}: expected an integer, got {value!r}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{name}: expected a number, got {value!r}")
        return float(value)
    if isinstance(default, dict):
        if not isinstance(value, dict):
            raise ConfigError(f"{name}: expected a table such as {{ normal = 100 }}, got {value!r}")
        return {**default, **value}
    if isinstance(default, list):
        if not isinstance(value, list):
            raise ConfigError(f"{name}: expected a list, got {value!r}")
        return value
    if isinstance(default, str):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ConfigError(f"{name}: expected a string, got {value!r}")
        return str(value)
    return value


def load(path) -> EngineConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({_toml_problem(exc)})") from None
    return from_dict(data, str(path))


def _toml_problem(exc: Exception) -> str:
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def loads(text: str) -> EngineConfig:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise ConfigError(f"config: not valid TOML ({_toml_problem(exc)})") from None
    return from_dict(data)


DEFAULT_CONFIG = """\
# cuzk daemon configuration (TOML). Every key is optional; these are the defaults.

[daemon]
# gRPC address: "unix:///path/to.sock" (default: <state_dir>/cuzk.sock) or "host:port" for TCP.
listen = ""
# Where the daemon keeps its socket and generated parameters ($XDG_STATE_HOME/cuzk when empty).
state_dir = ""
# Serve Prometheus metrics over HTTP at "host:port", or ":port" on localhost only (off when empty;
# GetMetrics always works). With a bearer token set (auth_token), scrapes must send it too.
metrics_listen = ""
# On SIGTERM: stop intake, finish running jobs, then exit; give up after this long.
shutdown_timeout = "10m"
# Also prove the jobs still queued at SIGTERM (otherwise they end CANCELLED with a message).
finish_queued_on_shutdown = false
# How long finished jobs stay available to AwaitProof, and at most how many.
job_retention = "1h"
max_finished_jobs = 10000
# Largest gRPC message, both directions (PoRep vanilla proofs are ~51 MB).
max_message_size = "128MiB"
# Threads serving RPCs (each waiting AwaitProof holds one).
rpc_threads = 64
# Keep accepted jobs and their outcomes in <state_dir>/jobs.sqlite3 (SQLite, WAL, fsync on accept):
# after a crash the daemon resumes unfinished jobs and AwaitProof still answers for finished ones
# (for job_retention / max_finished_jobs).
journal = true
# Bearer token clients must send ("authorization: Bearer <token>"); required for a TCP listener.
# Prefer auth_token_file (a file holding only the token) over putting the token here.
auth_token = ""
auth_token_file = ""
# TLS for the listener: PEM server certificate and private key (both or neither).
tls_cert = ""
tls_key = ""

[memory]
# Bytes for hot parameters plus the working sets of jobs in flight: "auto" = RAM less a quarter of
# it (at most 32 GiB: the OS and the services beside the daemon, Curio's) or safety_margin if more.
total_budget = "auto"
safety_margin = "1GiB"
# Parameters unused this long may be evicted when memory is needed.
eviction_min_idle = "5m"

[gpus]
# "auto" (CUDA when usable, else CPU), "cpu" or "cuda".
backend = "auto"
# GPU ordinals to use; empty = all.
devices = []
# Prover workers per GPU; the per-GPU lock covers device work only, so two overlap.
gpu_workers_per_device = 2
# Kernel threads of the CPU prover (0 = all cores).
gpu_threads = 0
# Share of each GPU's memory that MSM window tables may hold (2^(c w) multiples of
# the bases, built once per parameter set; 12x the bases at 2^24, fewer rows where
# those do not fit here or in the memory a proof leaves free). 0 turns them off.
msm_table_fraction = 0.6
# Device memory each GPU's prover may use ("16GiB"; "auto" = what the card has). CuPy's pool is
# capped there; bases that do not fit stream from pinned host memory in chunks, H is computed one
# vector at a time (docs/operator-guide.md). A proof that cannot fit even so fails with a message.
memory_limit = "auto"
# Host memory the CPU prover may fill with MSM window tables of the keys it proves (2^(c w) multiples
# of a key's bases, 15-19x their bytes: 353 MiB for a 2^16-constraint BN254 key), built after a key's
# first proof in the prover's idle time (12 s for that key on 2 cores); later MSMs over a vector with
# a table take ~0.85x the time.
# Vectors whose tables do not fit prove as before. Counted in memory.total_budget.
# "auto" = a quarter of memory.total_budget; "0" turns them off.
cpu_msm_tables = "auto"

[scheduler]
# Jobs of a batchable circuit proven together (1 = no batching).
max_batch_size = 1
# How long a batch waits to fill, from its first job's arrival.
max_batch_wait_ms = 10000
# A failed proving pass is retried this many times before its jobs fail.
prove_retries = 1

[synthesis]
# Synthesis worker threads (0 = half the cores, 1 to 4).
threads = 0
# Kernel threads each synthesis worker uses (0 = all cores).
kernel_threads = 1
# Synthesized partitions that may wait for a prover (0 = one per prover worker, plus one).
lookahead = 0
# false: synthesize a partition only once the previous one is proven (no overlap; for comparisons).
pipelined = true
# On GPUs a partition's witness crosses the bus alone and a, b, c are computed on the device
# (no satisfaction check). true: compute them on the host and check every constraint first,
# failing the job on an unsatisfied one (debugging; `cuzk circuit info --check` does it for users).
# CPU provers always compute and check them on the host.
check_witness = false

[srs]
# Directory of parameter files; parameters of the built-in circuits are generated here once
# per circuit (default <state_dir>/params).
param_cache = ""
# Circuit ids to load at start.
preload = []
# Most bytes of hot (decoded, pinned) parameters: "auto" = limited by memory.total_budget only.
pinned_budget = "auto"

[circuits]
# Also register the synthetic test/benchmark circuit (synthetic-tiny/-small/-medium; by id only).
synthetic = false
# Directory of Filecoin's Groth16 parameters (v28-*.params, .vk), read by their Filecoin names: ""
# = $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters. Filecoin's circuits are served
# at every size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB): window-post-<size>, winning-post-<size>,
# porep-<size>, snap-<size>; a request's registered_proof (else its sector_size) picks the size.
filecoin_params = ""
# circom circuits: [[circuits.circom]] id = "...", zkey = "path.zkey", proof_kind = "winning-post",
# priority = "normal", batchable = false; their vanilla_proof is a .wtns file's bytes. One that
# names a proof kind serves that kind at every sector size, in place of the built-in circuit.
circom = []

[logging]
# debug, info, warning or error.
level = "info"
# "text" or "json" (one object per line).
format = "text"

[limits]
# Jobs that may wait in the queue (accepted, not started) per priority; more get RESOURCE_EXHAUSTED
# (0 = no limit). Request size is limited by daemon.max_message_size, working memory by
# memory.total_budget (a job that can never fit is refused at submit).
max_queued_per_priority = { low = 0, normal = 0, high = 0, critical = 0 }
# Queued jobs per client: the "x-cuzk-client-id" request metadata when sent, else the peer's address
# without its port (every caller on the unix socket is one client, "unix").
max_queued_per_client = 0

[trace]
# Stage intervals kept in memory for GetTrace, `cuzk bench --trace` and `cuzk top` (a ring buffer:
# the oldest go first; under 200 bytes each). 0 turns the trace off.
capacity = 200000
"""
