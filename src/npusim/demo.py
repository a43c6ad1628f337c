"""``npusim demo``: run each target's bundled examples, show what they computed and checked.

A target joins the demo by providing ``npusim/<target>/demo.py`` with ``run() -> list[Check]``; each
Check is one example that ran and compared itself with an independent reference.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from . import TARGETS
from .core.trace import Trace, profile


@dataclass
class Check:
    target: str
    name: str
    ok: bool
    detail: str


def core_demo() -> list[Check]:
    """The shared machine model on its own: casts at ties, and two engines overlapping on a timeline."""
    from .core import Memory, RoundMode, TensorView, Timeline, cast

    checks = []
    ties = np.array([2.5, -1.5, 0.5, 127.5, 300.0])
    got = {m.name: cast(ties, "int8", m).tolist() for m in RoundMode}
    want = {"RINT": [2, -2, 0, 127, 127], "ROUND": [3, -2, 1, 127, 127], "ODD": [3, -1, 1, 127, 127]}
    ok = all(got[k] == v for k, v in want.items())
    checks.append(Check("core", "cast ties to int8 (RINT/ROUND/ODD, saturating)", ok,
                        ", ".join(f"{k}={got[k]}" for k in want)))

    mem = Memory("scratch", lane_bytes=64 * 1024, lanes=4)
    tl = Timeline({"dma": 1.0e9, "compute": 1.0e9}, core="core-demo")
    tiles = [TensorView(mem, i * 4096, (4, 256), (64 * 1024, 4), "float32") for i in range(4)]
    outs = [TensorView(mem, 32768 + i * 4096, (4, 256), (64 * 1024, 4), "float32") for i in range(4)]
    rng = np.random.default_rng(1)
    for i in range(4):
        x = rng.standard_normal((4, 256)).astype(np.float32)
        tiles[i].write(x)
        tl.place("dma", "load", 1000, writes=[tiles[i].footprint], nbytes=tiles[i].nbytes)
        outs[i].write(np.exp(tiles[i].read()))
        tl.place("compute", "exp", 800, reads=[tiles[i].footprint], writes=[outs[i].footprint])
    overlap = tl.now_ns < 4 * 1000 + 4 * 800
    checks.append(Check("core", "double buffering overlaps DMA and compute", overlap,
                        f"4 loads + 4 exps end at {tl.now_ns:.0f} ns (serial would be {4 * 1800} ns)"))
    return checks


def _target_checks(target: str) -> list[Check] | None:
    if target == "core":
        return core_demo()
    from .cli import _target_module
    mod = _target_module(target, "demo")
    if mod is None:
        return None
    return mod.run()


def run_demo(console: Console, out: str, only: str | None = None) -> int:
    os.makedirs(out, exist_ok=True)
    targets = [only] if only else ["core", *TARGETS]
    results: list[Check] = []
    combined = Trace()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("demo", total=len(targets))
        for target in targets:
            progress.update(task, description=f"running {target} examples")
            t0 = time.perf_counter()
            with profile() as prof:
                checks = _target_checks(target)
            progress.advance(task)
            if checks is None:
                console.print(f"[dim]{target}: not built yet[/dim]")
                continue
            results.extend(checks)
            for ev in prof.trace.events:
                combined.add_event(ev)
            if prof.trace.events:
                prof.trace.to_chrome(os.path.join(out, f"{target}.json"))
                prof.trace.plot(os.path.join(out, f"{target}.png"), title=f"npusim demo: {target}")
            console.print(f"{target}: {len(checks)} example(s) in {time.perf_counter() - t0:.2f} s")
            if prof.trace.events:
                console.print(prof.trace.summary(top=5))
    table = Table(title="what the demo computed and checked")
    for col in ("target", "example", "result", "detail"):
        table.add_column(col)
    for c in results:
        table.add_row(c.target, c.name, "[green]ok[/green]" if c.ok else "[red]FAILED[/red]", c.detail)
    console.print(table)
    if combined.events:
        combined.to_chrome(os.path.join(out, "all.json"))
        combined.plot(os.path.join(out, "all.png"), title="npusim demo: every target")
    console.print(f"traces and plots written to {os.path.abspath(out)}/")
    return 0 if all(c.ok for c in results) else 1
