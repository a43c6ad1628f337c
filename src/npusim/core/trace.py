"""The record of what ran where and when: events, a summary table, Perfetto JSON and a PNG timeline.

Threads are named after engines (``vector``, ``PIPE_V``, ``GDMA``) and events after the API call
(``nisa.tensor_scalar``, ``AddReluCast``, ``okk_bdc_exp``); one process per core.
"""
from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator


@dataclass(slots=True)
class Event:
    core: str
    engine: str
    name: str
    start_ns: float
    end_ns: float
    cycles: float
    freq_hz: float
    nbytes: int = 0
    elements: int = 0
    source: str = ""
    args: dict | None = None

    @property
    def dur_ns(self) -> float:
        return self.end_ns - self.start_ns

    @property
    def start_cycle(self) -> float:
        return self.start_ns * self.freq_hz / 1e9

    @property
    def end_cycle(self) -> float:
        return self.end_ns * self.freq_hz / 1e9


class Trace:
    __slots__ = ("events", "engines")   # (the C timeline appends to events through the slot)

    def __init__(self):
        self.events: list[Event] = []
        self.engines: dict[tuple[str, str], float] = {}     # (core, engine) -> clock in Hz

    def add_engine(self, core: str, engine: str, freq_hz: float) -> None:
        self.engines.setdefault((core, engine), freq_hz)

    def add_event(self, ev: Event, freq_hz: float | None = None) -> None:
        self.engines.setdefault((ev.core, ev.engine), freq_hz or ev.freq_hz)
        self.events.append(ev)

    def __len__(self) -> int:
        return len(self.events)

    # ---- numbers ----

    @property
    def start_ns(self) -> float:
        return min((e.start_ns for e in self.events), default=0.0)

    @property
    def end_ns(self) -> float:
        return max((e.end_ns for e in self.events), default=0.0)

    @property
    def total_ns(self) -> float:
        """Elapsed simulated time from the first start to the last end, over every core and engine."""
        return self.end_ns - self.start_ns if self.events else 0.0

    def busy_ns(self) -> dict[tuple[str, str], float]:
        busy: dict = defaultdict(float)
        for e in self.events:
            busy[(e.core, e.engine)] += e.dur_ns
        return dict(busy)

    def by_name(self) -> dict[str, tuple[int, float]]:
        """API name -> (count, total ns)."""
        acc: dict = defaultdict(lambda: [0, 0.0])
        for e in self.events:
            acc[e.name][0] += 1
            acc[e.name][1] += e.dur_ns
        return {k: (v[0], v[1]) for k, v in acc.items()}

    # ---- views ----

    def summary(self, top: int = 8):
        """A rich renderable: per engine busy time and utilisation, then the top instructions."""
        from rich.console import Group
        from rich.table import Table

        total = self.total_ns or 1.0
        engines = Table(title=f"npusim timeline: {len(self.events)} events, {self.total_ns / 1e3:,.3f} us")
        for col, just in [("core", "left"), ("engine", "left"), ("events", "right"), ("busy us", "right"),
                          ("util", "right"), ("clock MHz", "right")]:
            engines.add_column(col, justify=just)
        busy = self.busy_ns()
        counts: dict = defaultdict(int)
        for e in self.events:
            counts[(e.core, e.engine)] += 1
        for key in sorted(self.engines):
            if key not in busy:
                continue
            engines.add_row(key[0], key[1], str(counts[key]), f"{busy[key] / 1e3:,.3f}",
                            f"{100 * busy[key] / total:5.1f}%", f"{self.engines[key] / 1e6:,.0f}")
        names = Table(title="top instructions by time")
        for col in ("instruction", "count", "total us", "share"):
            names.add_column(col, justify="left" if col == "instruction" else "right")
        all_busy = sum(busy.values()) or 1.0
        for name, (n, ns) in sorted(self.by_name().items(), key=lambda kv: -kv[1][1])[:top]:
            names.add_row(name, str(n), f"{ns / 1e3:,.3f}", f"{100 * ns / all_busy:5.1f}%")
        return Group(engines, names)

    def summary_text(self, width: int = 100) -> str:
        from rich.console import Console
        console = Console(width=width, record=True, file=open("/dev/null", "w"))
        console.print(self.summary())
        return console.export_text()

    def to_chrome(self, path=None) -> dict:
        """Chrome trace-event JSON (Perfetto, chrome://tracing): one process per core, one thread per
        engine, complete ("X") events in microseconds, metadata ("M") events naming both."""
        cores = sorted({c for c, _ in self.engines} | {e.core for e in self.events})
        pid = {c: i + 1 for i, c in enumerate(cores)}
        tid: dict = {}
        out: list[dict] = []
        for c in cores:
            out.append({"ph": "M", "name": "process_name", "pid": pid[c], "tid": 0, "args": {"name": c}})
        for (c, eng) in sorted(self.engines):
            tid[(c, eng)] = len([k for k in tid if k[0] == c]) + 1
            out.append({"ph": "M", "name": "thread_name", "pid": pid[c], "tid": tid[(c, eng)],
                        "args": {"name": eng}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": pid[c], "tid": tid[(c, eng)],
                        "args": {"sort_index": tid[(c, eng)]}})
        for e in self.events:
            if (e.core, e.engine) not in tid:
                tid[(e.core, e.engine)] = len([k for k in tid if k[0] == e.core]) + 1
                out.append({"ph": "M", "name": "thread_name", "pid": pid[e.core],
                            "tid": tid[(e.core, e.engine)], "args": {"name": e.engine}})
            args = {"cycles": e.cycles, "bytes": e.nbytes, "elements": e.elements, "source": e.source}
            if e.args:
                args.update(e.args)
            out.append({"ph": "X", "name": e.name, "cat": e.engine, "pid": pid[e.core],
                        "tid": tid[(e.core, e.engine)], "ts": e.start_ns / 1e3, "dur": e.dur_ns / 1e3,
                        "args": args})
        doc = {"traceEvents": out, "displayTimeUnit": "ns"}
        if path is not None:
            with open(path, "w") as f:
                json.dump(doc, f, default=_jsonable)
        return doc

    def plot(self, path, title: str = "npusim timeline", max_events: int = 20000) -> None:
        """A PNG: one row per (core, engine), one bar per event, coloured by API name."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = sorted({(e.core, e.engine) for e in self.events}) or sorted(self.engines)
        row = {k: i for i, k in enumerate(rows)}
        names = [n for n, _ in sorted(self.by_name().items(), key=lambda kv: -kv[1][1])]
        cmap = plt.get_cmap("tab20")
        colour = {n: cmap(i % 20) for i, n in enumerate(names)}
        fig, ax = plt.subplots(figsize=(12, 1.2 + 0.5 * len(rows)))
        events = self.events if len(self.events) <= max_events else self.events[:max_events]
        by_row_name: dict = defaultdict(list)
        for e in events:
            by_row_name[(row[(e.core, e.engine)], e.name)].append((e.start_ns / 1e3, max(e.dur_ns / 1e3, 1e-6)))
        for (r, n), spans in by_row_name.items():
            ax.broken_barh(spans, (r - 0.4, 0.8), facecolors=colour[n], edgecolor="black", linewidth=0.2)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([f"{c}/{e}" if len({c for c, _ in rows}) > 1 else e for c, e in rows])
        ax.invert_yaxis()
        ax.set_xlabel("time (us)")
        ax.set_title(title)
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(color=colour[n], label=n) for n in names[:12]], loc="upper left",
                  bbox_to_anchor=(1.0, 1.0), fontsize="small")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def _jsonable(o):
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:  # pragma: no cover
        pass
    return str(o)


# ---- profiling whatever runs inside a block ----

_active: list[Trace] = []


def active_traces() -> list[Trace]:
    return _active


class Profile:
    def __init__(self):
        self.trace = Trace()


@contextlib.contextmanager
def profile() -> Iterator[Profile]:
    """``with npusim.profile() as prof: ...`` collects every event simulated inside, on any target."""
    prof = Profile()
    _active.append(prof.trace)
    try:
        yield prof
    finally:
        _active.remove(prof.trace)
