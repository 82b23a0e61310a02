"""PNG plots of a pipeline trace (matplotlib, Agg backend: no display needed).

    write_report(runs, out_dir) -> paths of timeline.png, phases.png, throughput.png, memory.png, summary.txt

timeline:   one lane per synthesis and prover worker; the upper bar of a lane is coloured by job, the strip
            under it by stage (prover phases inside prove); white space is idle time. Several runs (the
            modes of `bench batch --compare`) are drawn side by side on the same time scale.
phases:     mean seconds per partition in each stage, per circuit (prover phases as reported by the prover).
throughput: completed proofs per minute and the busy fraction of the prover and synthesis workers over time.
memory:     working memory reserved, hot parameters, the process's resident bytes and the budget over time.
"""

from __future__ import annotations

from pathlib import Path

from .trace_file import Run
from .trace_summary import busy_intervals, summarize, union_length

STAGE_COLOURS = {
    "param_load": "#8c564b", "memory_wait": "#d62728", "witness": "#2ca02c", "spmv": "#98df8a",
    "handoff": "#c7c7c7", "prove": "#1f77b4", "encode": "#9467bd", "queue": "#e0e0e0", "prover wait": "#f0e0a0",
}
PHASE_PALETTE = ["#aec7e8", "#ff7f0e", "#ffbb78", "#17becf", "#9edae5", "#bcbd22", "#dbdb8d",
                 "#e377c2", "#f7b6d2", "#7f7f7f"]
DPI = 90


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _stage_colour(stage: str, phases: list[str]) -> str:
    stage = stage.rpartition(":")[2]  # a device-timed phase ("gpu:msm_h") shares its host phase's colour
    if stage in STAGE_COLOURS:
        return STAGE_COLOURS[stage]
    return PHASE_PALETTE[phases.index(stage) % len(PHASE_PALETTE)] if stage in phases else "#7f7f7f"


def _phase_names(runs: list[Run]) -> list[str]:
    names: list[str] = []
    for r in runs:
        for s in r.spans:
            name = s["stage"].rpartition(":")[2]
            if s.get("depth", 0) > 0 and name not in names:
                names.append(name)
    return names


def _job_colours(run: Run) -> dict[str, tuple]:
    import matplotlib

    cmap = matplotlib.colormaps["Set2"]
    order: list[str] = []
    for s in sorted(run.spans, key=lambda s: s["t0"]):
        for j in s["jobs"]:
            if j not in order:
                order.append(j)
    return {j: cmap(i % cmap.N) for i, j in enumerate(order)}



def _timeline_lanes(run) -> list[str]:
    """Synthesis lanes, the worker kept for deadline proofs where it worked, prover lanes."""
    busy = {s["lane"] for s in run.spans}
    return run.lanes_of("synthesis") + [x for x in run.lanes_of("urgent") if x in busy] + run.lanes_of("prover")

def plot_timeline(runs: list[Run], path: Path) -> Path:
    plt = _plt()
    from matplotlib.patches import Patch

    phases = _phase_names(runs)
    deep = any(s.get("depth", 0) == 2 for r in runs for s in r.spans)
    n_lanes = max(len(_timeline_lanes(r)) for r in runs)
    width = max(r.end - r.start for r in runs) or 1.0
    fig, axes = plt.subplots(1, len(runs), figsize=(min(6.0 * len(runs), 18), max(3.0, 1.4 + 0.6 * n_lanes)),
                             sharex=True, squeeze=False)
    for ax, run in zip(axes[0], runs):
        colours = _job_colours(run)
        lanes = _timeline_lanes(run)
        for row, lane in enumerate(lanes):
            y = len(lanes) - 1 - row
            for s in (s for s in run.spans if s["lane"] == lane):
                x, w = s["t0"] - run.start, max(s["t1"] - s["t0"], width / 2000)
                depth = s.get("depth", 0)
                if depth == 0:
                    jobs = s["jobs"] or [""]
                    blocked = s["stage"] in ("memory_wait", "handoff")
                    h = 0.45 / len(jobs)  # a batch's pass: one band per job
                    for k, job in enumerate(jobs):
                        ax.broken_barh([(x, w)], (y + 0.45 + k * h, h), facecolors=colours.get(job, "#999999"),
                                       alpha=0.35 if blocked else 1.0, hatch="//" if blocked else None,
                                       linewidth=0)
                if depth == 0 and s["stage"] == "prove" and phases:
                    continue  # its phases fill the strips
                strip = (y + 0.05, 0.35) if depth == 0 or not deep else (
                    (y + 0.24, 0.16) if depth == 1 else (y + 0.05, 0.16))
                ax.broken_barh([(x, w)], strip, facecolors=_stage_colour(s["stage"], phases), linewidth=0)
        ax.set_yticks([len(lanes) - 1 - i + 0.45 for i in range(len(lanes))], lanes, fontsize=8)
        ax.set_ylim(-0.1, len(lanes))
        ax.set_xlim(0, width * 1.01)
        ax.set_xlabel("seconds since the run's first submission")
        s = summarize(run)
        ax.set_title(f"{run.name}: {s.completed} proofs, {s.proofs_per_min:.1f}/min, prover busy "
                     f"{s.prover_busy:.0%}", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    used = [st for st in STAGE_COLOURS if any(sp["stage"] == st for r in runs for sp in r.spans)]
    handles = [Patch(color=STAGE_COLOURS[st], label=st) for st in used if st != "prove" or not phases]
    handles += [Patch(color=_stage_colour(p, phases), label=f"prove: {p}") for p in phases]
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False,
                       ncol=1 if len(handles) <= 2 * n_lanes + 6 else 2)
    fig.suptitle("pipeline timeline (upper bar: job; strip: stage" + ("; prover: host phases above device phases"
                 if deep else "") + "; hatched: blocked; blank: idle)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def stage_means(run_list: list[Run]) -> dict[str, dict[str, float]]:
    """circuit -> stage -> mean seconds per partition (prover phases replace "prove" where reported;
    queue: the mean over the batch's jobs; witness and SpMV: summed over them, as they run one by one)."""
    per: dict[str, dict[str, list[float]]] = {}
    for run in run_list:
        units: dict[str, dict[str, float]] = {}
        queued: dict[str, list[float]] = {}
        circuit_of: dict[str, str] = {}
        for s in run.spans:
            if s.get("depth", 0) > 1 or (s.get("depth", 0) == 1 and s.get("proof", 0) != 0):
                continue  # host-timed phases of the pass's first proof stand for the pass
            circuit_of[s["unit"]] = s["circuit"]
            if s["lane"] == "queue":
                queued.setdefault(s["unit"], []).append(s["t1"] - s["t0"])
                continue
            u = units.setdefault(s["unit"], {})
            u[s["stage"]] = u.get(s["stage"], 0.0) + (s["t1"] - s["t0"])
        for unit, waits in queued.items():
            units.setdefault(unit, {})["queue"] = sum(waits) / len(waits)
        for unit, stages in units.items():
            phase_sum = sum(v for k, v in stages.items() if k not in STAGE_COLOURS)
            if phase_sum and "prove" in stages:
                stages["prove"] = max(0.0, stages["prove"] - phase_sum)  # what the phases do not account for
            for k, v in stages.items():
                per.setdefault(circuit_of[unit], {}).setdefault(k, []).append(v)
    return {c: {k: sum(v) / len(v) for k, v in st.items()} for c, st in per.items()}


def plot_phases(runs: list[Run], path: Path) -> Path:
    plt = _plt()
    means = stage_means(runs)
    phases = _phase_names(runs)
    order = ["queue", "param_load", "memory_wait", "witness", "spmv", "handoff"] + phases + ["prove", "encode"]
    circuits = sorted(means)
    fig, ax = plt.subplots(figsize=(8, 2.4 + 0.5 * len(circuits)))
    left = [0.0] * len(circuits)
    for stage in order:
        vals = [means[c].get(stage, 0.0) for c in circuits]
        if not any(vals):
            continue
        label = "prove (other)" if stage == "prove" and phases else (f"prove: {stage}" if stage in phases else stage)
        ax.barh(circuits, vals, left=left, color=_stage_colour(stage, phases), label=label)
        left = [a + b for a, b in zip(left, vals)]
    ax.set_xlabel("mean seconds per partition (sums over the jobs of a batch for witness / SpMV)")
    ax.set_title("where a partition's time goes, per circuit", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _bins(run: Run, n: int = 30):
    width = (run.end - run.start) / n or 1.0
    return [run.start + i * width for i in range(n + 1)], width


def plot_throughput(runs: list[Run], path: Path) -> Path:
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
    for run in runs:
        edges, width = _bins(run)
        mids = [(a - run.start + width / 2) for a in edges[:-1]]
        ends = sorted(j["t"] for j in run.jobs if j["state"] == "COMPLETED")
        win = max(width * 5, 1e-3)  # trailing window: smoother than per-bin counts
        rate = [sum(1 for t in ends if a + width - win < t <= a + width) / min(win, a + width - run.start) * 60
                for a in edges[:-1]]
        ax1.plot(mids, rate, label=run.name)
        for kind, style in (("prover", "-"), ("synthesis", ":")):
            lanes = run.lanes_of(kind)
            if not lanes:
                continue
            busy = [sum(union_length(busy_intervals(run, ln, kind), a, a + width) for ln in lanes) / (len(lanes) * width)
                    for a in edges[:-1]]
            ax2.plot(mids, [b * 100 for b in busy], style, label=f"{run.name}: {kind} busy")
    ax1.set_ylabel("proofs / min (trailing 1/6 run)")
    ax1.set_title("throughput and worker busy fraction over time", fontsize=10)
    ax1.legend(fontsize=7)
    ax2.set_ylabel("busy %")
    ax2.set_ylim(0, 105)
    ax2.set_xlabel("seconds since the run's first submission")
    ax2.legend(fontsize=7, ncol=2)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_memory(runs: list[Run], path: Path) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.6))
    top = 0.0
    notes = []
    for run in runs:
        mems = sorted(run.mems, key=lambda m: m["t"])
        if not mems:
            continue
        xs = [m["t"] - run.start for m in mems] + [run.end - run.start]
        used = [m["used"] / 2**20 for m in mems]
        hot = [m.get("hot", 0) / 2**20 for m in mems]
        ax.step(xs, used + used[-1:], where="post", label=f"{run.name}: reserved (params + working sets)")
        ax.step(xs, hot + hot[-1:], where="post", linestyle=":", label=f"{run.name}: hot parameters")
        top = max(top, max(used))
        if all("rss" in m for m in mems):  # the kernel's count beside the budget's
            rss = [m["rss"] / 2**20 for m in mems]
            ax.step(xs, rss + rss[-1:], where="post", linestyle="-.", label=f"{run.name}: resident (RSS)")
            top = max(top, max(rss))
        limit = mems[-1]["limit"] / 2**20
        if limit <= top * 3:
            ax.axhline(limit, linestyle="--", color="#d62728", label=f"{run.name}: budget")
            top = max(top, limit)
        else:
            notes.append(f"{run.name}: budget {limit:,.0f} MiB (off the scale)")
    ax.set_ylim(0, max(top * 1.15, 1e-3))
    ax.set_ylabel("MiB")
    ax.set_xlabel("seconds since the run's first submission")
    ax.set_title("working memory in use against the budget" + ("; " + "; ".join(notes) if notes else ""), fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def summary_text(runs: list[Run]) -> str:
    lines = []
    for run in runs:
        lines += summarize(run).lines()
        if run.dropped:
            lines.append(f"  note: the daemon's trace buffer had dropped {run.dropped} older event(s)")
    return "\n".join(lines) + "\n"


def write_report(runs: list[Run], out_dir) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [plot_timeline(runs, out / "timeline.png"), plot_phases(runs, out / "phases.png"),
             plot_throughput(runs, out / "throughput.png"), plot_memory(runs, out / "memory.png")]
    (out / "summary.txt").write_text(summary_text(runs))
    return paths + [out / "summary.txt"]
