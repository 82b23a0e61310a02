"""`cuzk daemon`: the proving daemon; `cuzk demo`: a short end-to-end run of it.

    cuzk daemon [--config F] [--listen ADDR] [--state-dir DIR] [--log-level L]
    cuzk daemon --print-default-config

The daemon serves cuzk.v1.ProvingEngine on a unix socket (default
<state_dir>/cuzk.sock, mode 0600) or TCP (only with daemon.auth_token[_file];
TLS with daemon.tls_cert/tls_key). daemon.metrics_listen serves Prometheus
metrics over HTTP (on localhost unless it names a host; with the daemon's
bearer token when one is set). Accepted jobs are journaled in
<state_dir>/jobs.sqlite3: after a crash the daemon resumes them. SIGTERM or SIGINT: stop accepting jobs,
finish the running ones, exit 0 (1 if the drain timed out); a second signal
exits at once. SIGUSR1: every thread's stack is written to the log (stderr), for
a daemon that seems stuck; it keeps running.
"""

from __future__ import annotations

import faulthandler
import json
import logging
import os
import signal
import sys
import threading

from cuzk.user_dirs import cache_dir

from .files import input_of, output_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

log = logging.getLogger("cuzk.daemon")


def register(sub) -> None:
    d = sub.add_parser("daemon", help="run the proving daemon (gRPC)",
                       description="Run the proving daemon: gRPC service cuzk.v1.ProvingEngine on a unix socket "
                       "or TCP. SIGTERM drains: intake stops, running jobs finish, then it exits 0.")
    d.add_argument("-c", "--config", type=input_of("config file"), metavar="FILE",
                   help="TOML config (see --print-default-config)")
    d.add_argument("-l", "--listen", metavar="ADDR", help="override daemon.listen (unix:PATH or host:port)")
    d.add_argument("--state-dir", metavar="DIR", help="override daemon.state_dir")
    d.add_argument("--log-level", choices=["debug", "info", "warning", "error"], help="override logging.level")
    d.add_argument("--print-default-config", action="store_true", help="print the default config file and exit")
    d.add_argument("--ray-address", metavar="ADDR", help="cluster mode: join the Ray cluster at ADDR (host:port of "
                   "its head) and serve the same API as the front of its proving nodes (the Ray nodes that offer "
                   "the resource cuzk_prover); the config is used by every node's engine (needs cuzk[cluster])")
    d.set_defaults(func=cmd_daemon)

    m = sub.add_parser("demo", help="start a daemon on Filecoin's 2 KiB PoSt circuits, prove, verify, shut down",
                       description="Start a daemon, prove window-post (HIGH) and winning-post (CRITICAL) jobs of "
                       "Filecoin's PoSt circuits (2 KiB sectors unless --sector-size; requests shaped as Curio sends them, "
                       "over random sectors) through the bench client, verify every proof, print the timing "
                       "table, and shut the daemon down cleanly (SIGTERM). The circuits' parameters are TEST ones "
                       "(a single-party setup made once, as `cuzk setup --kind` makes them, and cached), not "
                       "Filecoin's.")
    m.add_argument("--sector-size", default="2KiB", choices=["2KiB", "8MiB", "512MiB"],
                   help="the circuits' sector size (default 2KiB)")
    m.add_argument("--count", type=int, default=3, help="jobs per kind (default 3)")
    m.add_argument("--state-dir", metavar="DIR", help="daemon state dir (default: a temporary one, params cached "
                   f"under {cache_dir() / 'demo-params'}, from $XDG_CACHE_HOME)")
    m.add_argument("--json", type=output_file, metavar="FILE", help="also write the results as JSON")
    m.add_argument("--trace", type=output_file, metavar="FILE",
                   help="also write the daemon's pipeline trace (JSON lines; plot it "
                   "with `cuzk bench report FILE`)")
    m.set_defaults(func=cmd_demo)


# ---- daemon ------------------------------------------------------------------------------


def load_config(args):
    """The config file with the flags applied, validated; errors name the file and section.key
    (or the flag)."""
    # engine config and prometheus_client: loaded when the daemon starts, not for `cuzk --help`
    from cuzk.engine import config as cfgmod
    from cuzk.engine.observe.metrics import metrics_address
    from cuzk.server.address import AddressError, parse as parse_address

    cfg = cfgmod.load(args.config) if args.config else cfgmod.EngineConfig()
    if args.listen:
        try:
            parse_address(args.listen)
        except AddressError as exc:
            raise cfgmod.ConfigError(f"--listen: {exc}") from None
        cfg.daemon.listen = args.listen
    if args.state_dir:
        cfg.daemon.state_dir = args.state_dir
    if args.log_level:
        cfg.logging.level = args.log_level
    return cfg.validate({
        "daemon.listen": lambda v: v and parse_address(v),
        "daemon.metrics_listen": lambda v: v and metrics_address(v),
    })


class JsonFormatter(logging.Formatter):
    def format(self, record):
        out = {"ts": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name,
               "msg": record.getMessage()}
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out)


def setup_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def cmd_daemon(args) -> int:
    if args.print_default_config:
        from cuzk.engine.config import DEFAULT_CONFIG

        sys.stdout.write(DEFAULT_CONFIG)
        return 0
    cfg = load_config(args)
    setup_logging(cfg.logging.level, cfg.logging.format)
    for w in cfg.warnings:
        log.warning("%s", w)
    return serve(cfg, args.ray_address)


def serve(cfg, ray_address: str | None = None) -> int:
    from cuzk.engine import Engine
    from cuzk.server.server import DaemonServer

    stop = threading.Event()
    signals = []

    def on_signal(signum, _frame):
        signals.append(signum)
        if len(signals) > 1:
            log.error("second signal: exiting without draining")
            os._exit(1)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # stacks of a daemon that seems stuck
    cfg.state_dir().mkdir(parents=True, exist_ok=True)
    store = None
    if cfg.daemon.journal and not ray_address:
        from cuzk.engine.jobs.store import JournalingJobStore
        from cuzk.engine.jobs.journal import Journal

        store = JournalingJobStore(Journal(cfg.state_dir(), cfg.job_retention_s(), cfg.daemon.max_finished_jobs),
                                   cfg.job_retention_s(), cfg.daemon.max_finished_jobs)
    engine = Engine(cfg, store=store) if not ray_address else _cluster_front(cfg, ray_address)
    if os.environ.get("CUZK_FAULTS") and not ray_address:
        from cuzk.engine.pipeline import faults

        engine.fault_injector = faults.parse(os.environ["CUZK_FAULTS"])
        log.warning("fault injection active (CUZK_FAULTS=%s): for tests only", os.environ["CUZK_FAULTS"])
    server = DaemonServer(engine, cfg.listen_address(), cfg.max_message_bytes(), cfg.daemon.rpc_threads,
                          token=cfg.auth_token(), tls_cert=cfg.daemon.tls_cert, tls_key=cfg.daemon.tls_key)
    engine.start()
    try:
        server.start()
    except Exception:
        engine.store.close()  # first: resumed jobs stay unfinished in the journal for the next start
        engine.shutdown(drain=False)
        raise
    http = None
    if cfg.daemon.metrics_listen:
        token = cfg.auth_token()
        http = engine.metrics.serve(cfg.daemon.metrics_listen, token)
        host, port = http.server_address[:2]
        log.info("metrics over HTTP at http://%s:%d/metrics (%s)", host, port,
                 "bearer token required" if token else "no token: anyone who reaches the port reads them")
    log.info("cuzk daemon ready (pid %d)", os.getpid())
    while not stop.wait(1.0):
        pass
    log.info("%s: draining (intake stopped; running jobs finish)", signal.Signals(signals[0]).name)
    drained = engine.shutdown(drain=True, timeout=cfg.shutdown_timeout_s())
    server.stop(grace=5.0)
    if http is not None:
        http.shutdown()
    engine.store.close()
    log.info("stopped (%s)", "drained" if drained else "drain timed out")
    return 0 if drained else 1


def _cluster_front(cfg, ray_address: str):
    """The front of a Ray cluster of proving nodes; CUZK_FAULTS then applies on the nodes."""
    from cuzk.cluster import ClusterEngine, ClusterOptions

    if cfg.daemon.journal:
        log.info("cluster mode: the front keeps its jobs in memory (daemon.journal is for a single daemon)")
    return ClusterEngine(cfg, ray_address, ClusterOptions(node_faults=os.environ.get("CUZK_FAULTS", "")))


# ---- demo ---------------------------------------------------------------------------------


def cmd_demo(args) -> int:
    from . import demo

    return demo.run(args.sector_size, args.count, args.state_dir, args.json, args.trace)
