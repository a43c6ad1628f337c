"""One fuzz trial, run and judged: did the call end in an npusim error or succeed, and did it write only
inside its documented destination, finish in time, and do the same thing twice?

A front end's fuzzer (``npusim.fuzz.<target>``) draws ``Trial``s from a numpy Generator. A trial is a
plain description of one call (or one short program) on a fresh machine: ``setup()`` builds the machine
state and returns it, ``call(state)`` makes the public call(s), ``regions(state)`` names the byte windows
to watch (each a ``Watch``: a memory, a byte range, and the byte ranges the call may write there).

``execute`` classifies the outcome:

- ``ok``: the call returned; ``rejected``: it raised an ``NpuSimError`` (the class is counted);
- ``internal``: any other exception (TypeError, numpy errors, RecursionError, ...): a defect;
- ``hang``: it ran past the time limit: a defect;
- ``oob_write``: bytes changed (data or init map) outside the allowed ranges: a defect;
- ``read_changed``: a watched window nobody may write changed: a defect (a read changed memory);
- ``nondeterministic``: the same trial run twice gave different memory or trace: a defect.
"""
from __future__ import annotations

import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..core.errors import NpuSimError
from ..core.memory import Memory

DEFECTS = ("internal", "hang", "oob_write", "read_changed", "nondeterministic")


class TrialTimeout(BaseException):
    """Raised inside a trial that ran past its limit (a BaseException so `except Exception` in the
    simulator cannot swallow it)."""


@dataclass(frozen=True)
class Watch:
    """Bytes [lo, hi) of ``memory`` (flat byte offsets into ``memory.data``) are snapshotted; the call
    may change only bytes inside ``writable`` (a tuple of flat [lo, hi) ranges)."""
    memory: Memory
    lo: int
    hi: int
    writable: tuple[tuple[int, int], ...] = ()


@dataclass
class Trial:
    target: str
    api: str
    setup: Callable[[], Any]
    call: Callable[[Any], Any]
    regions: Callable[[Any], list[Watch]] = lambda state: []
    trace: Callable[[Any], Any] = lambda state: None      # something comparable (e.g. event tuples)
    args: str = ""                                        # a printable description, for reports


@dataclass
class Outcome:
    kind: str
    error_class: str = ""
    detail: str = ""
    seconds: float = 0.0


@contextmanager
def time_limit(seconds: float):
    """SIGALRM-based limit in the main thread; elsewhere no limit (pytest-xdist workers are main threads)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise TrialTimeout(f"trial ran past {seconds} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _snapshot(watches: list[Watch]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(w.memory.data[w.lo:w.hi].copy(), w.memory.init[w.lo:w.hi].copy()) for w in watches]


def _changed_outside(watches, before) -> tuple[str, str] | None:
    for w, (data, init) in zip(watches, before):
        changed = (w.memory.data[w.lo:w.hi] != data) | (w.memory.init[w.lo:w.hi] != init)
        if not changed.any():
            continue
        allowed = np.zeros(w.hi - w.lo, bool)
        for lo, hi in w.writable:
            allowed[max(lo - w.lo, 0):max(min(hi - w.lo, w.hi - w.lo), 0)] = True
        bad = changed & ~allowed
        if bad.any():
            first = int(np.argmax(bad)) + w.lo
            kind = "oob_write" if w.writable else "read_changed"
            return kind, (f"{int(np.count_nonzero(bad))} byte(s) of {w.memory.name} changed outside the "
                          f"destination, the first at flat offset {first:#x}")
    return None


def run_once(trial: Trial, seconds: float) -> tuple[Outcome, list, Any]:
    """Set up, watch, call; -> (outcome, final bytes of the watched windows, trace)."""
    t0 = time.perf_counter()
    try:
        with time_limit(seconds):
            state = trial.setup()
            watches = trial.regions(state)
            before = _snapshot(watches)
            try:
                trial.call(state)
                outcome = Outcome("ok")
            except NpuSimError as e:
                outcome = Outcome("rejected", type(e).__name__, str(e))
            changed = _changed_outside(watches, before)
            if changed is not None:
                outcome = Outcome(changed[0], outcome.error_class, changed[1])
            final = _snapshot(watches)
            trace = trial.trace(state)
    except TrialTimeout as e:
        return Outcome("hang", "TrialTimeout", str(e), time.perf_counter() - t0), [], None
    except Exception as e:                     # noqa: BLE001 - anything not an NpuSimError is a defect
        tb = traceback.format_exc(limit=-3)
        return Outcome("internal", type(e).__name__, f"{e}\n{tb}", time.perf_counter() - t0), [], None
    outcome.seconds = time.perf_counter() - t0
    return outcome, final, trace


def execute(trial: Trial, seconds: float = 5.0, twice: bool = False) -> Outcome:
    """Run a trial (twice, comparing memory and trace, when ``twice``) and classify it."""
    outcome, final, trace = run_once(trial, seconds)
    if twice and outcome.kind in ("ok", "rejected"):
        again, final2, trace2 = run_once(trial, seconds)
        same_bytes = len(final) == len(final2) and all(
            np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(final, final2))
        if again.kind != outcome.kind or again.error_class != outcome.error_class or not same_bytes \
                or trace != trace2:
            return Outcome("nondeterministic", outcome.error_class,
                           f"first run {outcome.kind} {outcome.error_class}, second {again.kind} "
                           f"{again.error_class}; bytes equal: {same_bytes}; traces equal: {trace == trace2}")
    return outcome


@dataclass
class Tally:
    """What a campaign found, per target."""
    cases: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    error_classes: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)   # defect kind -> a few reproducers

    def add(self, trial: Trial, outcome: Outcome) -> None:
        self.cases += 1
        self.kinds[outcome.kind] = self.kinds.get(outcome.kind, 0) + 1
        if outcome.error_class:
            key = f"{outcome.kind}:{outcome.error_class}"
            self.error_classes[key] = self.error_classes.get(key, 0) + 1
        if outcome.kind in DEFECTS:
            ex = self.examples.setdefault(outcome.kind, [])
            if len(ex) < 5:
                ex.append(f"{trial.api}({trial.args}) -> {outcome.error_class}: {outcome.detail[:300]}")

    @property
    def defects(self) -> int:
        return sum(self.kinds.get(k, 0) for k in DEFECTS)
