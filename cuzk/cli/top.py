"""`cuzk top`: a live terminal view of a running daemon (GetStatus + GetMetrics, rich).

    cuzk top [--addr unix:PATH] [--interval 1] [--once]

Shows queues by priority, jobs in flight with their stage and age, what each
synthesis and prover worker is doing, devices and their memory, parameter
tiers, and throughput over the last minutes. --once prints one frame and
exits (for scripts and logs).

The frame fits the terminal: two tables stand side by side only where both
fit, else one above the other, and ids (circuits, jobs, workers, devices)
are never cut, so at 80 columns every circuit row is told apart.
"""

from __future__ import annotations

import os
import time
from collections import deque

from cuzk.errors import CuzkError
from cuzk.user_dirs import default_socket

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

PRIORITIES = ("critical", "high", "normal", "low")
SPARK = "▁▂▃▄▅▆▇█"


class TopError(CuzkError):
    pass


def register(sub) -> None:
    t = sub.add_parser("top", help="live dashboard of a running daemon",
                       description="A terminal dashboard refreshed from the daemon's GetStatus and GetMetrics: "
                       "queues by priority, jobs in flight (stage, elapsed), workers, devices and memory, "
                       "parameter tiers, throughput of the last minutes. Ctrl-C quits.")
    t.add_argument("--addr", default=os.environ.get("CUZK_ADDR", ""),
                   help="daemon address: unix:PATH or host:port (default $CUZK_ADDR, else the socket of a "
                   f"daemon with the default config, unix:{default_socket()})")
    t.add_argument("--interval", type=float, default=1.0, help="seconds between refreshes (default 1)")
    t.add_argument("--once", action="store_true", help="print a single frame and exit")
    t.set_defaults(func=cmd_top)


def _mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB" if n < 2**30 else f"{n / 2**30:,.2f} GiB"


def _mib_pair(used: int, total: int) -> str:
    """'1.5 / 80.0 GiB': the unit once, for narrow columns."""
    unit, scale = ("GiB", 2**30) if total >= 2**30 else ("MiB", 2**20)
    return f"{used / scale:,.1f} / {total / scale:,.1f} {unit}"


def _dur(s: float) -> str:
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min"


def parse_metrics(text: str) -> dict[str, list[tuple[dict, float]]]:
    """Prometheus text -> metric name -> [(labels, value)]."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, list[tuple[dict, float]]] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append((dict(s.labels), float(s.value)))
    return out


class History:
    """Completed-proof counts seen at each refresh, for the sparkline."""

    def __init__(self, size: int = 60):
        self.samples: deque = deque(maxlen=size)

    def add(self, t: float, completed: int) -> None:
        self.samples.append((t, completed))

    def rates(self) -> list[float]:
        s = list(self.samples)
        return [(b[1] - a[1]) / (b[0] - a[0]) * 60 for a, b in zip(s, s[1:]) if b[0] > a[0]]


def sparkline(values: list[float]) -> str:
    if not values:
        return ""
    top = max(values) or 1.0
    return "".join(SPARK[min(len(SPARK) - 1, int(v / top * (len(SPARK) - 1)))] for v in values)


class SideBySide:
    """Two renderables side by side where both fit at their natural width, else one above the other."""

    def __init__(self, left, right, gap: int = 2):
        self.left, self.right, self.gap = left, right, gap

    def __rich_console__(self, console, options):
        from rich.measure import Measurement  # rich: loaded when a frame is drawn, not for `cuzk --help`
        from rich.table import Table

        widths = [Measurement.get(console, options, r).maximum for r in (self.left, self.right)]
        if sum(widths) + self.gap <= options.max_width:
            grid = Table.grid(padding=(0, self.gap))
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield self.left
            yield self.right


def _table(title: str, *columns: str | tuple):
    """A titled table; a column given as (name, options) gets those (no_wrap: never shortened)."""
    from rich import box  # rich: loaded when a frame is drawn, not for `cuzk --help`
    from rich.table import Table

    t = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    for col in columns:
        name, opts = (col, {}) if isinstance(col, str) else col
        t.add_column(name, **opts)
    return t


WHOLE = {"no_wrap": True, "overflow": "fold"}  # ids: never cut with an ellipsis
RIGHT = {"justify": "right", "no_wrap": True}


def render(status, metrics: dict, address: str = "", history: History | None = None):
    """One frame (a rich renderable) from a GetStatusResponse and parsed metrics."""
    from rich.console import Group
    from rich.text import Text

    from cuzk.proto import proving_pb2 as pb

    s = status
    flags = (" [bold red]PAUSED[/]" if s.paused else "") + (" [bold yellow]DRAINING[/]" if s.draining else "")
    running = {lab.get("state"): int(v) for lab, v in metrics.get("cuzk_running_jobs", [])}
    pq = int(next((v for _, v in metrics.get("cuzk_prover_queue_depth", [])), 0))
    head = Text.from_markup(
        f"[bold]cuzk top[/] {address}  up {_dur(s.uptime_seconds)}{flags}\n"
        f"proofs completed [green]{s.total_proofs_completed}[/], failed [red]{s.total_proofs_failed}[/], "
        f"cancelled {s.total_proofs_cancelled}\n"
        f"memory {_mib(s.memory_used_bytes)} / {_mib(s.memory_limit_bytes)} (peak {_mib(s.memory_peak_bytes)}), "
        f"hot params {_mib(s.pinned_memory_bytes)}, RSS {_mib(s.rss_bytes)}\n"
        f"running: synthesizing {running.get('synthesizing', 0)}, proving {running.get('proving', 0)}; "
        f"waiting for a prover {pq}")

    queues = _table("queues by priority", "priority", ("scheduled", RIGHT), ("batching", RIGHT))
    depth = {(lab.get("priority"), lab.get("place")): int(v) for lab, v in metrics.get("cuzk_queue_depth", [])}
    for prio in PRIORITIES:
        queues.add_row(prio, str(depth.get((prio, "scheduled"), 0)), str(depth.get((prio, "batching"), 0)))

    jobs = _table("jobs in flight", ("job", WHOLE), ("circuit", WHOLE), "priority", "stage", "elapsed",
                  ("parts", RIGHT))
    for j in s.jobs_in_flight[:20]:
        jobs.add_row(j.job_id[:12], j.circuit_id, pb.Priority.Name(j.priority).lower(), j.stage,
                     _dur(j.elapsed_seconds), f"{j.partitions_done}/{j.num_partitions}")
    if len(s.jobs_in_flight) > 20:
        jobs.caption = f"... and {len(s.jobs_in_flight) - 20} more"

    workers = _table("workers", ("worker", WHOLE), "stage", "jobs", ("part", RIGHT), "busy")
    for w in s.workers:
        if w.stage:
            workers.add_row(w.lane, f"[cyan]{w.stage}[/]", ",".join(x[:8] for x in w.job_ids), str(w.partition),
                            _dur(w.busy_seconds))
        else:
            workers.add_row(w.lane, "[dim]idle[/]", "", "", "")

    devices = _table("devices", ("device", WHOLE), "backend", ("busy", RIGHT), "memory", "job")
    for g in s.gpus:
        if g.vram_total_bytes:
            mem = (_mib_pair(g.vram_total_bytes - g.vram_free_bytes, g.vram_total_bytes)
                   if g.vram_free_bytes else f"{_mib(g.vram_total_bytes)} total")
        else:
            mem = "host RAM"
        current = f"{g.current_job_id[:8]} ({g.current_proof_kind})" if g.current_job_id else "[dim]idle[/]"
        devices.add_row(f"[{g.ordinal}] {g.name}", g.backend, f"{g.busy_workers}/{g.workers}", mem, current)

    params = _table("parameters", ("circuit", WHOLE), "tier", ("size", RIGHT), ("users", RIGHT))
    for x in s.loaded_srs:
        tier = pb.SRSStatus.Tier.Name(x.tier)
        colour = {"HOT": "green", "WARM": "yellow"}.get(tier, "dim")
        params.add_row(x.circuit_id, f"[{colour}]{tier}[/]", _mib(x.size_bytes), str(x.ref_count))

    up = max(1.0, float(s.uptime_seconds))
    rates = "\n           ".join(  # one window a line: no line break inside one
        f"last {t.window_seconds // 60} min: {t.completed / min(t.window_seconds, up) * 60:.1f}/min"
        f" ({t.completed} done, {t.failed} failed)" for t in s.throughput)
    spark = sparkline(history.rates()) if history is not None else ""
    tput = Text.from_markup(f"[bold]throughput[/] {rates or 'no jobs yet'}" + (f"\nper refresh {spark}" if spark else ""))
    return Group(head, SideBySide(queues, workers), SideBySide(devices, params), jobs, tput)


def frame(client, address: str = "", history: History | None = None):
    status = client.status()
    metrics = parse_metrics(client.metrics())
    if history is not None:
        history.add(time.monotonic(), status.total_proofs_completed)
    return render(status, metrics, address, history)


def cmd_top(args) -> int:
    import grpc
    from rich.console import Console
    from rich.live import Live

    from cuzk.bench.daemon_connection import address

    if args.interval <= 0:
        raise TopError("--interval must be positive")
    addr = address(args)
    from cuzk.server.client import ProvingClient

    console = Console()
    history = History()
    with ProvingClient(addr) as c:
        try:
            c.wait_ready(3)
            first = frame(c, addr, history)
        except (grpc.FutureTimeoutError, grpc.RpcError):
            raise TopError(f"no daemon answers at {addr} (start one with `cuzk daemon`)") from None
        if args.once:
            console.print(first)
            return 0
        try:
            with Live(first, console=console, refresh_per_second=4, screen=False) as live:
                while True:
                    time.sleep(args.interval)
                    try:
                        live.update(frame(c, addr, history))
                    except grpc.RpcError as exc:
                        raise TopError(f"lost the daemon at {addr}: {exc.code().name}") from None
        except KeyboardInterrupt:
            return 0
