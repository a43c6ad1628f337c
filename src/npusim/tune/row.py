"""One configuration run under the profiler: what it cost on the simulated chip and whether it was right.

``run_row`` is what every executor ships to its workers, so it is a module-level function of picklable
arguments. Rows never raise for a bad configuration: the exception becomes the row's ``error``."""
from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from ..core.trace import Trace, profile

# npusim.profile and the targets' devices are process-wide state: two configurations simulated at once in
# one process (threaded Dask workers, an in-process LocalCluster) would see each other's events. Rows of
# one process therefore run one at a time; parallelism comes from processes.
_ONE_AT_A_TIME = threading.Lock()


@dataclass
class Row:
    index: int                          # position in the expanded space
    config: dict
    passed: bool
    error: str | None = None            # "ConstraintError: ..." when the run or the check raised
    sim_ns: float | None = None         # simulated time, first event start to last event end
    cycles: float | None = None         # sim_ns in cycles of the fastest engine clock (see docs/sweep.md)
    instructions: int = 0               # trace events (one per simulated instruction / API call)
    busy_ns: dict = field(default_factory=dict)   # engine -> busy ns, summed over cores
    util: dict = field(default_factory=dict)      # engine -> busy / (sim_ns x cores having that engine)
    wall_s: float = field(default=0.0, compare=False)   # host time of run + check (varies run to run)


def run_row(run, check, item) -> Row:
    """``item`` is ``(index, config)``. Calls ``run(**config)`` under npusim.profile(), then
    ``check(output, **config)`` when a check is given (False or an exception fails the row)."""
    index, config = item
    with _ONE_AT_A_TIME:
        t0 = time.perf_counter()
        error, output, completed = None, None, False
        with profile() as prof:
            try:
                output = run(**config)
                completed = True
            except Exception as exc:     # an invalid configuration is a row, not a crash of the sweep
                error = _describe(exc)
        passed = completed
        if completed and check is not None:
            try:
                verdict = check(output, **config)
                failed = verdict is not None and not bool(verdict)     # None: a check that asserts
            except Exception as exc:
                failed, error = True, _describe(exc)
            if failed:
                passed = False
                error = error or f"check returned {verdict!r}"
        wall = time.perf_counter() - t0
    row = Row(index, dict(config), passed, error, wall_s=wall)
    if completed:
        _fill_costs(row, prof.trace)
    return row


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _fill_costs(row: Row, trace: Trace) -> None:
    row.sim_ns = trace.total_ns
    row.instructions = len(trace.events)
    clocks = [hz for hz in trace.engines.values() if hz]
    row.cycles = trace.total_ns * max(clocks) / 1e9 if clocks else 0.0
    busy: dict = defaultdict(float)
    cores: dict = defaultdict(set)
    for (core, engine), ns in trace.busy_ns().items():
        busy[engine] += ns
        cores[engine].add(core)
    row.busy_ns = {e: busy[e] for e in sorted(busy)}
    total = trace.total_ns
    row.util = {e: (busy[e] / (total * len(cores[e])) if total else 0.0) for e in sorted(busy)}
