"""Run one program through the C-model and npusim.okk concurrently and sort the differences."""

from __future__ import annotations

import functools
import os
import threading
import traceback
import zlib
from dataclasses import dataclass, field

import numpy as np

from . import compare, npusim_runner
from .cmodel import Result
from .programs import Builder


_ORACLES: dict = {}


def shared_oracle():
    """The one backend C-model worker of this process and thread (tests, fixtures and benchmarks share
    it; a sweep's worker processes and threads each get their own, so no two programs share a pipe)."""
    from .cmodel import Oracle
    key = (os.getpid(), threading.get_ident())
    if key not in _ORACLES:
        _ORACLES[key] = Oracle("backend")
    return _ORACLES[key]


def run_both(steps) -> tuple[Result, Result | None, str | None]:
    """(C-model result, npusim result or None, npusim error text or None)."""
    oracle = shared_oracle()
    oracle.submit(steps)
    got, err = None, None
    try:
        got = npusim_runner.run(steps)
    except Exception as exc:            # a ConstraintError on a call the C-model accepts is a finding
        err = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return oracle.collect(), got, err


class Outcome:
    """Differences of a batch, by aspect: bytes of each named region, the schedule, npusim errors."""

    def __init__(self):
        self.by_aspect: dict[str, list[str]] = {}
        self.cases = 0

    def add(self, aspect: str, problem: str) -> None:
        self.by_aspect.setdefault(aspect, []).append(problem)

    def problems(self, *aspects: str) -> list[str]:
        return [p for a in aspects for p in self.by_aspect.get(a, [])]


EXECUTOR_ENV = "NPUSIM_ORACLE_EXECUTOR"


def oracle_executor(value: str | None = None):
    """The executor of the differential sweep (npusim.tune.executors): ``NPUSIM_ORACLE_EXECUTOR`` is
    ``inline`` (the default: one after the other in this process), a worker count (a local process pool;
    the batch builder must pickle) or a Dask scheduler address."""
    value = os.environ.get(EXECUTOR_ENV, "inline") if value is None else value
    return int(value) if value.strip().isdigit() else value.strip()


@dataclass
class BatchOutcome:
    """What one batch found, before merging: problems by aspect, the schedule diff, the case count."""
    k: int
    cases: int
    problems: list[tuple[str, str]] = field(default_factory=list)
    schedule: list[str] = field(default_factory=list)     # compare.diff of the whole batch


def run_batch(build_batch, k: int) -> BatchOutcome:
    """Batch ``k``: build it, run it on the C-model and npusim, sort the differences."""
    b: Builder = build_batch(k)
    out = BatchOutcome(k, sum(1 for s in b.steps if s[0] == "call") - 2)
    ref, got, err = run_both(b.steps)
    if ref.error:
        out.problems.append(("cmodel", f"batch {k}: the C-model aborted (the generator made an invalid case): "
                             f"{ref.error[:300]}"))
        return out
    if err:
        out.problems.append(("error", f"batch {k}: npusim raised {err}"))
        return out
    for lab, a, g in zip(b.labels, ref.reads, got.reads):
        if a != g:
            aspect = lab.rsplit(" NPUs ", 1)[0].rsplit(" ", 1)[1]
            out.problems.append((aspect, f"{lab}: {compare.first_byte_diff(a, g)}"))
    calls = [st for st in b.steps if st[0] == "call"]
    for st, rc, gc in zip(calls, ref.calls, got.calls):
        ri = [(i.engine, i.name, i.cycles) for i in rc.instructions]
        gi = [(i.engine, i.name, i.cycles) for i in gc.instructions]
        if ri != gi:
            out.problems.append(("cycles", f"batch {k}: {st[1]}{st[2]}: cmodel {ri} vs npusim {gi}"))
    out.schedule = compare.diff(Result([], ref.calls, ref.totals, 0), Result([], got.calls, got.totals, 0))
    return out


def run_batches(build_batch, batches: int, executor=None) -> Outcome:
    """``build_batch(k) -> Builder`` whose steps start with okk_initialize and end with okk_poll.

    The batches run through npusim.sweep's executor layer (``executor``: see :func:`oracle_executor`,
    default from ``NPUSIM_ORACLE_EXECUTOR``, else inline); the outcome is merged in batch order, so it is
    the same whichever executor ran them."""
    from npusim.tune.executors import map_unordered

    executor = oracle_executor() if executor is None else executor
    done = sorted(map_unordered(functools.partial(run_batch, build_batch), range(batches), executor),
                  key=lambda b: b.k)
    out = Outcome()
    for b in done:
        out.cases += b.cases
        for aspect, problem in b.problems:
            out.add(aspect, problem)
        if not out.problems("cycles"):     # the whole-schedule diff until a cycle difference is known
            out.by_aspect.setdefault("cycles", []).extend(b.schedule)
    if not out.by_aspect.get("cycles"):
        out.by_aspect.pop("cycles", None)
    return out


def check(outcome: Outcome, *aspects: str, limit: int = 8) -> None:
    probs = outcome.problems(*aspects) + outcome.problems("cmodel", "error")
    assert not probs, f"{len(probs)} differences over {outcome.cases} cases:\n" + "\n".join(probs[:limit])


def seeded(*key) -> np.random.Generator:
    """A generator seeded from the test's identity: failures reproduce run after run."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))
