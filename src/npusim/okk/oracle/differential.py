"""Run one program through the C-model and npusim.okk concurrently and sort the differences."""

from __future__ import annotations

import functools
import traceback
import zlib

import numpy as np

from . import compare, npusim_runner
from .cmodel import Result
from .programs import Builder


@functools.lru_cache(maxsize=None)
def shared_oracle():
    """The one backend C-model worker of this process (tests, fixtures and benchmarks share it)."""
    from .cmodel import Oracle
    return Oracle("backend")


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


def run_batches(build_batch, batches: int) -> Outcome:
    """``build_batch(k) -> Builder`` whose steps start with okk_initialize and end with okk_poll."""
    out = Outcome()
    for k in range(batches):
        b: Builder = build_batch(k)
        out.cases += sum(1 for s in b.steps if s[0] == "call") - 2
        ref, got, err = run_both(b.steps)
        if ref.error:
            out.add("cmodel", f"batch {k}: the C-model aborted (the generator made an invalid case): "
                    f"{ref.error[:300]}")
            continue
        if err:
            out.add("error", f"batch {k}: npusim raised {err}")
            continue
        for lab, a, g in zip(b.labels, ref.reads, got.reads):
            if a != g:
                aspect = lab.rsplit(" NPUs ", 1)[0].rsplit(" ", 1)[1]
                out.add(aspect, f"{lab}: {compare.first_byte_diff(a, g)}")
        calls = [st for st in b.steps if st[0] == "call"]
        for st, rc, gc in zip(calls, ref.calls, got.calls):
            ri = [(i.engine, i.name, i.cycles) for i in rc.instructions]
            gi = [(i.engine, i.name, i.cycles) for i in gc.instructions]
            if ri != gi:
                out.add("cycles", f"batch {k}: {st[1]}{st[2]}: cmodel {ri} vs npusim {gi}")
        if not out.problems("cycles"):
            out.by_aspect.setdefault("cycles", []).extend(
                compare.diff(Result([], ref.calls, ref.totals, 0), Result([], got.calls, got.totals, 0)))
    if not out.by_aspect.get("cycles"):
        out.by_aspect.pop("cycles", None)
    return out


def check(outcome: Outcome, *aspects: str, limit: int = 8) -> None:
    probs = outcome.problems(*aspects) + outcome.problems("cmodel", "error")
    assert not probs, f"{len(probs)} differences over {outcome.cases} cases:\n" + "\n".join(probs[:limit])


def seeded(*key) -> np.random.Generator:
    """A generator seeded from the test's identity: failures reproduce run after run."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))
