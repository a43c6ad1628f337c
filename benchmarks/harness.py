"""Time a callable the way BENCHMARKS.md reports it: warm-up, repeats, median (and the best repeat, which
per-call rows also show: on a shared machine the best is the least disturbed run, as timeit argues); and a plain-numpy
baseline doing the same math, so the table shows what the simulator costs on top of the math itself.

A benchmark file ``benchmarks/bench_<name>.py`` defines ``cases() -> list[Case]``.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Case:
    name: str                               # what is timed, e.g. "okk_bdc_exp (8,64,64,64) fp32"
    fn: Callable[[], object]                # the simulated version
    numpy: Callable[[], object] | None = None   # plain numpy doing the same math (None: no baseline)
    per: int = 1                            # calls inside one fn() (report time per call)
    target: str = ""                        # what the issue asks, e.g. "< 10 us per event"
    repeats: int = 7
    warmup: int = 1


@dataclass
class Result:
    case: Case
    median_s: float
    numpy_s: float | None
    best_s: float = 0.0

    @property
    def best_per_call_s(self) -> float:
        return self.best_s / self.case.per

    @property
    def per_call_s(self) -> float:
        return self.median_s / self.case.per

    @property
    def ratio(self) -> float | None:
        return None if not self.numpy_s else self.median_s / self.numpy_s


def time_median(fn: Callable[[], object], repeats: int, warmup: int) -> float:
    return time_samples(fn, repeats, warmup)[0]


def time_samples(fn: Callable[[], object], repeats: int, warmup: int) -> tuple[float, float]:
    """(median, best) wall time of ``repeats`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), min(samples)


def run_case(case: Case) -> Result:
    sim, best = time_samples(case.fn, case.repeats, case.warmup)
    base = time_median(case.numpy, case.repeats, case.warmup) if case.numpy else None
    return Result(case, sim, base, best)


def fmt_seconds(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:,.1f} us"
    if s < 1:
        return f"{s * 1e3:,.2f} ms"
    return f"{s:,.2f} s"
