"""Engines with their own clocks, and the placement of each instruction on them.

Every engine runs its instructions in program order. Across engines a front end chooses how order
arises, per instruction, because vendors differ:

* ``order="data"``: the instruction starts after every earlier instruction whose footprint it conflicts
  with (read-after-write, write-after-read, write-after-write), as a compiler's semaphores would order
  it (NKI).
* ``order="sync"``: only the engine's own queue and explicit synchronisation order it
  (``signal``/``wait``, ``barrier``) as on Ascend (flags, queues) and BM1684 (parallel regions). A
  conflicting access that no synchronisation orders before it is a race: ``RaceError`` when
  ``options().check_races``. Ordering is happens-before (vector clocks), not wall time, so a race is
  found even when the cost model happens to place the two instructions apart.

Time is kept in nanoseconds; each event also carries its engine's cycles.
"""
from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple

from .access_log import (ALIVE, BUCKET_SPAN, END, ENGINE, EVENT, FP, FRESH, INDEX_AFTER, SEQ, SYNC, WRITE, MemoryLog,
                         append, build_index, end_of, scan, scan_all)
from .errors import RaceError
from .options import options
from . import timeline_native
from .trace import Event, Trace
from .trace import _active as _active_traces     # the list itself: one truth test per event when empty
from .view import Footprint

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_INSIDE: set[str] = set()                  # co_filename of npusim's own modules
_BASENAMES: dict[str, str] = {}            # co_filename outside npusim -> its basename

#: (id(code), f_lasti) -> (code, "file:line"). A frame's line is a function of its code object and the
#: offset of its current instruction; computing it (f_lineno) scans the code's line table, which costs
#: ~1 us in a long kernel function. The value holds the code object, so its id is not reused while cached.
_LINES: dict[tuple[int, int], tuple] = {}
_LINES_CAP = 4096       # entries before the cache starts over (code made at run time: exec'd kernels)

#: A front end running code Python cannot see (okk's C kernels, Ascend C's .cpp kernels) pushes the caller's "file.c:line" here for
#: the duration of a call; the innermost entry is every event's source. See ``source_override``.
SOURCE_OVERRIDE: list[str] = []


@contextlib.contextmanager
def source_override(source: str) -> Iterator[None]:
    """Events recorded inside the block get ``source`` instead of the Python caller's file:line."""
    SOURCE_OVERRIDE.append(source)
    try:
        yield
    finally:
        SOURCE_OVERRIDE.pop()


def caller_source() -> str:
    """file:line of the first stack frame outside the npusim package (the user's call), unless a front
    end set ``SOURCE_OVERRIDE``."""
    if SOURCE_OVERRIDE:
        return SOURCE_OVERRIDE[-1]
    f = sys._getframe(2)
    inside = _INSIDE
    while f is not None:
        code = f.f_code
        fn = code.co_filename
        if fn in inside:
            f = f.f_back
            continue
        base = _BASENAMES.get(fn)
        if base is None:
            if fn.startswith(_PKG_DIR):
                inside.add(fn)
                f = f.f_back
                continue
            base = _BASENAMES[fn] = os.path.basename(fn)
        key = (id(code), f.f_lasti)
        hit = _LINES.get(key)
        if hit is None or hit[0] is not code:
            if len(_LINES) >= _LINES_CAP:
                _LINES.clear()
            hit = _LINES[key] = (code, f"{base}:{f.f_lineno}")
        return hit[1]
    return ""


@dataclass(slots=True)
class Engine:
    name: str
    freq_hz: float
    free_ns: float = 0.0          # when the engine can start its next instruction
    busy_ns: float = 0.0
    count: int = 0
    seq: int = 0                  # its own instruction counter (vector-clock component)
    clock: dict = field(default_factory=dict)   # what it knows completed elsewhere: engine -> seq

    def ns(self, cycles: float) -> float:
        return cycles * 1e9 / self.freq_hz


@dataclass(frozen=True, slots=True)
class SyncToken:
    """What ``signal`` captured: the signalling engine's time and knowledge, for a ``wait``."""
    engine: str
    ns: float
    clock: dict


class _Access(NamedTuple):
    """An access as ``unordered`` reports it (the log keeps plain lists: access_log.py)."""
    fp: Footprint
    write: bool
    end_ns: float
    engine: str
    seq: int
    event: Event
    sync: bool


def _access_view(acc: list) -> _Access:
    return _Access(acc[FP], acc[WRITE], acc[END], acc[ENGINE], acc[SEQ], acc[EVENT], acc[SYNC])


#: The C extension of the data-order hot path (timeline_native.py), or None: the Python methods below.
_NATIVE = timeline_native.load()


class Timeline(_NATIVE.TimelineCore if _NATIVE is not None else object):
    """One core's engines. ``place`` puts an instruction on an engine and records its event.

    ``place``, ``place_rw``, ``_dependencies_end`` and ``_remember`` are the C methods of the base type
    when the extension is built (timeline_native.py), else the pure-Python ``place_py``, ``place_rw_py``,
    ``_dependencies_end_py`` and ``_remember_py``, which are the reference (``PythonTimeline`` always
    uses them). The C methods work on the same state, so everything else here runs on either."""

    PRUNE_AT = 16        # accesses per memory before passed ones are forgotten
    MAX_TRACKED = 64     # accesses remembered per memory before the oldest fold into a horizon

    def __init__(self, engines: dict[str, float], core: str = "core0", trace: Trace | None = None):
        self.core = core
        self.engines: dict[str, Engine] = {n: Engine(n, f) for n, f in engines.items()}
        self.trace = trace if trace is not None else Trace()
        for e in self.engines.values():
            self.trace.add_engine(core, e.name, e.freq_hz)
        self._logs: dict[int, MemoryLog] = {}     # memory id -> its remembered accesses
        self._used: list[Engine] = []             # the engines that placed something (in self.engines order)

    # ---- placing instructions ----

    def forget_accesses(self) -> None:
        """Drop the remembered accesses: nothing more will be placed (a finished launch). They hold every
        operand's view and event; a finished run is usually a reference cycle, so they would otherwise
        wait for a full collection of the garbage collector, tens of thousands of objects a launch."""
        self._logs.clear()
        self._forget_log_cache()


    def place_py(self, engine: str, name: str, cycles: float, *, reads=(), writes=(), order: str = "data",
              not_before_ns: float = 0.0, nbytes: int = 0, elements: int = 0, args: dict | None = None,
              source: str | None = None) -> Event:
        eng = self.engines[engine]
        opts = options()
        start = eng.free_ns
        if not_before_ns > start:           # max(free, not_before): the first of equals, as max() picks
            start = not_before_ns
        if not isinstance(reads, (list, tuple)):      # a generator would be consumed by the test below
            reads = list(reads)
        if not isinstance(writes, (list, tuple)):
            writes = list(writes)
        if None in reads:
            reads = [f for f in reads if f is not None]
        if None in writes:
            writes = [f for f in writes if f is not None]
        if order == "data":
            # seeded with the start so far: accesses ending before it cannot move it (the scans stop early)
            start = self._dependencies_end(reads, writes, engine, start)
        elif order == "sync":
            if opts.check_races:
                self._check_races(reads, writes, eng, name)
        elif order != "none":
            raise ValueError(f"order must be 'data', 'sync' or 'none', not {order!r}")
        if source is None and opts.record_source:
            source = caller_source()
        return self._record(eng, engine, name, cycles, start, reads, writes, order == "sync", nbytes, elements,
                            args, source or "")

    def place_rw_py(self, engine: str, name: str, cycles: float, read: Footprint, write: Footprint,
                 nbytes: int = 0, elements: int = 0, args: dict | None = None) -> Event:
        """``place(engine, name, cycles, reads=[read], writes=[write], nbytes=, elements=, args=)`` for
        exactly one read and one write footprint (neither None), in data order: the per-instruction path
        of tiled loops, without the argument normalisation of ``place``."""
        eng = self.engines[engine]
        start = self._dependencies_end((read,), (write,), engine, eng.free_ns)
        source = caller_source() if options().record_source else ""
        return self._record(eng, engine, name, cycles, start, (read,), (write,), False, nbytes, elements, args,
                            source)

    def place_data_py(self, engine: str, name: str, cycles: float, reads, write: Footprint, nbytes: int,
                      elements: int, args: dict | None, not_before_ns: float) -> Event:
        """``place(engine, name, cycles, reads=reads, writes=[write], nbytes=, elements=, args=,
        not_before_ns=)`` in data order, every argument positional: ``reads`` a list or tuple of footprints
        (no None), one written footprint (front ends' per-instruction path: nothing to bind or normalise)."""
        eng = self.engines[engine]
        start = eng.free_ns
        if not_before_ns > start:           # max(free, not_before): the first of equals, as max() picks
            start = not_before_ns
        writes = (write,)
        start = self._dependencies_end(reads, writes, engine, start)
        source = caller_source() if options().record_source else ""
        return self._record(eng, engine, name, cycles, start, reads, writes, False, nbytes, elements, args, source)

    def _record(self, eng: Engine, engine: str, name: str, cycles: float, start: float, reads, writes,
                sync: bool, nbytes: int, elements: int, args: dict | None, source: str) -> Event:
        """The event of an instruction starting at ``start``: advance its engine, remember its accesses."""
        dur = cycles * 1e9 / eng.freq_hz          # Engine.ns, inlined (the same expression: same bits)
        end = start + dur
        ev = Event(self.core, engine, name, start, end, cycles, eng.freq_hz, nbytes, elements, source, args)
        eng.free_ns = end
        eng.busy_ns += dur
        eng.count += 1
        if eng.count == 1:      # its first instruction (the engines' order: pruning's horizon keeps ties as before)
            self._used = [e for e in self.engines.values() if e.count]
        seq = eng.seq = eng.seq + 1
        eng.clock[engine] = seq
        if reads or writes:
            self._remember(reads, writes, end, engine, seq, ev, sync)
        self.trace.events.append(ev)
        if _active_traces:
            for t in _active_traces:
                if t is not self.trace:
                    t.add_event(ev, eng.freq_hz)
        return ev

    def dependencies_end(self, reads, writes, engine: str, not_before_ns: float = 0.0) -> float:
        """When the earlier accesses that data order would wait for (conflicting, on other engines) end:
        the earliest an instruction with these footprints could start on ``engine`` (ns); at least
        ``not_before_ns`` (a caller that takes the max with a time it knows passes it: faster scans)."""
        return self._dependencies_end([f for f in reads if f is not None],
                                      [f for f in writes if f is not None], engine, not_before_ns)

    def _dependencies_end_py(self, reads, writes, engine: str, t: float = 0.0) -> float:
        """The later of ``t`` and the end of every remembered access that conflicts with a read of ``reads``
        or a write of ``writes`` (it or the other writes, boxes overlap) and ran on another engine. One call
        per instruction (the per-footprint scans inlined): ``place``'s hot path."""
        logs = self._logs
        is_write = False
        for fps in (reads, writes):
            for fp in fps:
                log = logs.get(fp.memory.id)
                if log is None:
                    continue
                if log.horizon > t:
                    t = log.horizon
                if log.archive_for and engine in log.archive_for:     # rare: a late first use of an engine
                    t = self._archived_end(log, fp, is_write, engine, t)
                # one engine's accesses only: program order covers them; a read meets only writes
                if log.engine == engine or (not is_write and log.write_end <= t):
                    continue
                lo, hi, lane_lo, lane_hi = fp.lo, fp.hi, fp.lane_lo, fp.lane_hi
                if log.indexed:
                    # The address index (access_log.py): the query's buckets and the wide list; a query wider
                    # than BUCKET_SPAN buckets scans the whole log.
                    shift = log.shift
                    b = lo >> shift
                    last = (hi - 1) >> shift
                    if hi <= lo or last - b >= BUCKET_SPAN:
                        t = scan_all(log.accesses, fp, is_write, engine, t)
                        continue
                    wide = log.wide
                    if len(wide) > 2:
                        t = scan(wide, fp, is_write, engine, t)
                    buckets = log.buckets
                    for b in range(b, last + 1):
                        bucket = buckets.get(b)
                        if bucket is None or bucket[1] <= t:       # bucket[1]: its newest prefix max of ends
                            continue
                        i = len(bucket) - 2
                        while i > 1:    # access_log.scan, inlined: newest first
                            if bucket[i] <= t:      # entries up to this one all end by t: none can raise it
                                break
                            acc = bucket[i + 1]     # fields: access_log.py (END, WRITE, ENGINE, SEQ, FP, ...)
                            if acc[0] > t and (is_write or acc[1]) and acc[2] != engine and acc[7]:
                                o = acc[4]          # the box test of Footprint.overlaps, inlined
                                if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                                    t = acc[0]
                            i -= 2
                    continue
                # Not indexed: the whole log, newest first, until its prefix max of ends says nothing older
                # can raise t.
                accesses, ends_max = log.accesses, log.ends_max
                n = i = len(accesses)
                while i:
                    i -= 1
                    if ends_max[i] <= t:
                        break
                    acc = accesses[i]   # fields: access_log.py (END, WRITE, ENGINE, SEQ, FP, EVENT, SYNC, ALIVE)
                    if acc[0] > t and (is_write or acc[1]) and acc[2] != engine:
                        o = acc[4]      # the box test of Footprint.overlaps, inlined (same memory by key)
                        if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                            t = acc[0]
                if n - i > INDEX_AFTER:
                    build_index(log)    # scans this long: index the log from now on
            is_write = True
        return t

    def _conflicts_end(self, fp: Footprint, is_write: bool, engine: str, t: float) -> float:
        """``_dependencies_end`` for one footprint read (or written)."""
        if is_write:
            return self._dependencies_end((), (fp,), engine, t)
        return self._dependencies_end((fp,), (), engine, t)

    def _check_races(self, reads, writes, eng: Engine, name: str) -> None:
        for fp in reads:
            self._check_race(fp, False, eng, name)
        for fp in writes:
            self._check_race(fp, True, eng, name)

    def _check_race(self, fp: Footprint, is_write: bool, eng: Engine, name: str) -> None:
        log = self._logs.get(fp.memory.id)
        if log is None:
            return
        if log.archive_for and eng.name in log.archive_for:   # rare: a late first use of an engine
            self._check_archived_race(log, fp, is_write, eng, name)
        if log.engine == eng.name:
            return
        clock = eng.clock
        for acc in log.accesses:
            if acc[ENGINE] == eng.name or not (is_write or acc[WRITE]):
                continue
            if clock.get(acc[ENGINE], 0) >= acc[SEQ]:
                continue                       # ordered by synchronisation
            if fp.overlaps_exactly(acc[FP]):
                self._raise_race(fp, is_write, eng, name, acc)

    def unordered(self, reads, writes, engine: str) -> list:
        """The first conflicting access of each other engine that no synchronisation orders before
        ``engine`` (what ``order="sync"`` would report as a race), in the order found. Each has ``engine``
        and ``event`` (the earlier instruction). A front end that synchronises automatically (Ascend's
        auto-sync) inserts a flag from each engine before placing the instruction."""
        found: list = []
        seen: set = set()
        clock = self.engines[engine].clock
        for fps, is_write in ((reads, False), (writes, True)):
            for fp in fps:
                if fp is None:
                    continue
                log = self._logs.get(fp.memory.id)
                if log is None or (log.engine == engine and engine not in log.archive_for):
                    continue
                archived = log.archive if engine in log.archive_for else ()
                for accs, sync_only in ((archived, True), (log.accesses, False)):
                    for acc in accs:
                        if (acc[ENGINE] == engine or not (is_write or acc[WRITE]) or acc[ENGINE] in seen
                                or clock.get(acc[ENGINE], 0) >= acc[SEQ] or (sync_only and not acc[SYNC])):
                            continue
                        if fp.overlaps_exactly(acc[FP]):
                            seen.add(acc[ENGINE])
                            found.append(_access_view(acc))
        return found

    def _check_archived_race(self, log: MemoryLog, fp: Footprint, is_write: bool, eng: Engine,
                             name: str) -> None:
        """``_check_race`` over the archive's sync-ordered accesses (pruning keeps others for timing only),
        for an engine that was unused when something was archived."""
        clock = eng.clock
        for acc in log.archive:
            if not acc[SYNC] or acc[ENGINE] == eng.name or not (is_write or acc[WRITE]):
                continue
            if clock.get(acc[ENGINE], 0) >= acc[SEQ]:
                continue
            if fp.overlaps_exactly(acc[FP]):
                self._raise_race(fp, is_write, eng, name, acc)
        self._forget_archive_if_caught_up(log, eng)

    def _raise_race(self, fp: Footprint, is_write: bool, eng: Engine, name: str, acc: list) -> None:
        kind = ("write-after-write" if is_write and acc[WRITE] else
                "read-after-write" if acc[WRITE] else "write-after-read")
        raise RaceError(
            f"race ({kind}) on {fp.describe()}: {name} on {eng.name}"
            f"{self._at(caller_source())} and {acc[EVENT].name} on {acc[ENGINE]}"
            f"{self._at(acc[EVENT].source)} touch the same bytes and no flag, queue or barrier "
            f"orders them")

    @staticmethod
    def _at(src: str) -> str:
        return f" ({src})" if src else ""

    def _remember_py(self, reads, writes, end: float, engine: str, seq: int, ev: Event, sync: bool) -> None:
        logs = self._logs
        is_write = False
        for fps in (reads, writes):
            for fp in fps:
                mid = fp.memory.id
                log = logs.get(mid)
                if log is None:
                    log = logs[mid] = MemoryLog(self.PRUNE_AT)
                accesses = log.accesses
                if not accesses:
                    log.engine = engine
                elif log.engine != engine:
                    log.engine = None
                acc = [end, is_write, engine, seq, fp, ev, sync, True]     # access_log.py's fields
                accesses.append(acc)
                if sync:
                    log.has_sync = True
                if is_write and end > log.write_end:
                    log.write_end = end
                if log.indexed:     # access_log.index_add, inlined (the hot path; test_access_log checks both)
                    lo, hi = fp.lo, fp.hi
                    shift = log.shift
                    b = lo >> shift
                    last = (hi - 1) >> shift
                    if hi <= lo or last - b >= BUCKET_SPAN:
                        append(log.wide, acc)
                    else:
                        buckets = log.buckets
                        for b in range(b, last + 1):
                            bucket = buckets.get(b)
                            if bucket is None:
                                buckets[b] = [FRESH, end, end, acc]
                            elif len(bucket) < bucket[0]:      # append's common case (never empty at rest)
                                m = bucket[1]
                                if end > m:
                                    m = bucket[1] = end
                                bucket.append(m)
                                bucket.append(acc)
                            else:
                                append(bucket, acc)     # drops the bucket's dead first
                else:
                    ends_max = log.ends_max
                    ends_max.append(end if not ends_max or end > ends_max[-1] else ends_max[-1])
                if len(accesses) > log.prune_at:
                    self._prune(log)
            is_write = True

    if _NATIVE is None:
        def _forget_log_cache(self) -> None:
            """(The C methods remember the logs of the last memories met; the Python ones do not.)"""

        place = place_py
        place_rw = place_rw_py
        place_data = place_data_py
        _dependencies_end = _dependencies_end_py
        _remember = _remember_py

    def _prune(self, log: MemoryLog) -> None:
        # Keep an access while it can still delay a later start (it ends after some engine in use is
        # free) or, for sync-ordered accesses, while some engine in use has not synchronised past it.
        used = self._used
        horizon = used[0].free_ns       # (_record has just used one)
        for e in used:
            if e.free_ns < horizon:
                horizon = e.free_ns
        accesses = log.accesses
        if log.has_sync:
            keep = [a for a in accesses
                    if a[END] > horizon or (a[SYNC] and any(e.clock.get(a[ENGINE], 0) < a[SEQ] for e in used))]
            kept = {id(a) for a in keep}
            dropped = [a for a in accesses if id(a) not in kept]
        else:       # the common case: no sync-ordered access, one test each
            keep = [a for a in accesses if a[END] > horizon]
            dropped = [a for a in accesses if not a[END] > horizon] if len(keep) < len(accesses) else []
        if dropped:
            for a in dropped:
                a[ALIVE] = False
            if len(used) < len(self.engines):         # some engine has placed nothing yet
                self._archive(log, [e for e in self.engines.values() if not e.count], dropped)
        elif len(keep) <= self.MAX_TRACKED:
            log.prune_at = len(keep) + self.PRUNE_AT        # nothing to forget: the log stays as it is
            return
        if len(keep) > self.MAX_TRACKED:
            keep = self._fold(log, keep)
        log.keep_only(keep)
        # Prune again only after PRUNE_AT more accesses: those that must be kept (still able to delay an
        # idle engine, or sync-ordered and not yet known everywhere) would otherwise be rescanned on
        # every event.
        log.prune_at = len(keep) + self.PRUNE_AT

    def _fold(self, log: MemoryLog, keep: list) -> list:
        """Too many in flight: forget the oldest half of ``keep``. For data ordering their end folds into a
        per-memory horizon (a conservative bound); race checks lose only those oldest accesses."""
        keep.sort(key=end_of)
        cut = len(keep) - self.MAX_TRACKED // 2
        log.horizon = max(log.horizon, keep[cut - 1][END])
        for a in keep[:cut]:
            a[ALIVE] = False
        return keep[cut:]

    # ---- what pruning forgot while some engine was unused ----

    ARCHIVE_CAP = 1024   # archived accesses per memory before the oldest fold into a first-use horizon

    def _archive(self, log: MemoryLog, unused: list[Engine], dropped: list[list]) -> None:
        """Move the accesses pruning drops that could still delay or race with an unused engine's
        instructions into the memory's archive."""
        first_free = min(e.free_ns for e in unused)     # an unused engine may have waited already
        moved = [a for a in dropped if
                 a[END] > first_free or (a[SYNC] and any(e.clock.get(a[ENGINE], 0) < a[SEQ] for e in unused))]
        if not moved:
            return
        archive = log.archive
        archive.extend(moved)
        log.archive_for.update(e.name for e in unused)
        if len(archive) > self.ARCHIVE_CAP:
            # Bounded memory: the oldest half (in archiving order, no sort: this runs on every prune while
            # an engine is idle) folds into a horizon that an engine not yet past it waits for (a
            # conservative start bound); race checks lose only those oldest accesses.
            cut = len(archive) - self.ARCHIVE_CAP // 2
            log.archive_horizon = max(log.archive_horizon, max(map(end_of, archive[:cut])))
            del archive[:cut]

    def _archived_end(self, log: MemoryLog, fp: Footprint, is_write: bool, engine: str, t: float) -> float:
        """``_conflicts_end`` over the archive, for an engine that was unused when something was archived."""
        eng = self.engines[engine]
        if eng.free_ns < log.archive_horizon and log.archive_horizon > t:
            t = log.archive_horizon
        lo, hi, lane_lo, lane_hi = fp.lo, fp.hi, fp.lane_lo, fp.lane_hi
        for acc in log.archive:
            if acc[END] > t and (is_write or acc[WRITE]) and acc[ENGINE] != engine:
                o = acc[FP]
                if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                    t = acc[END]
        self._forget_archive_if_caught_up(log, eng)
        return t

    @staticmethod
    def _forget_archive_if_caught_up(log: MemoryLog, eng: Engine) -> None:
        """Once ``eng`` is free after every archived access ends and knows every archived sync access, the
        archive can neither delay nor race with it again (later archived accesses are past it too: it is
        in use by then); with no engine left to serve, the archive is dropped."""
        free = eng.free_ns
        if free < log.archive_horizon:
            return
        clock = eng.clock
        for a in log.archive:       # (the caller has just scanned the archive: same order of cost)
            if a[END] > free or (a[SYNC] and clock.get(a[ENGINE], 0) < a[SEQ]):
                return
        log.archive_for.discard(eng.name)
        if not log.archive_for:
            log.archive = []
            log.archive_horizon = 0.0

    # ---- explicit synchronisation ----

    def signal(self, engine: str) -> SyncToken:
        """Capture ``engine``'s progress so far (SetFlag, a queue's EnQue, a semaphore increment)."""
        e = self.engines[engine]
        return SyncToken(engine, e.free_ns, dict(e.clock))

    def wait(self, engine: str, token: SyncToken) -> None:
        """``engine`` waits for what ``token`` captured (WaitFlag, DeQue): later starts, and knowledge."""
        e = self.engines[engine]
        e.free_ns = max(e.free_ns, token.ns)
        for k, v in token.clock.items():
            if e.clock.get(k, 0) < v:
                e.clock[k] = v

    def barrier(self, engines=None) -> float:
        """All named engines (default: all) wait for each other; returns the common time."""
        names = list(self.engines) if engines is None else list(engines)
        es = [self.engines[n] for n in names]
        t = max(e.free_ns for e in es)
        merged: dict = {}
        for e in es:
            for k, v in e.clock.items():
                if merged.get(k, 0) < v:
                    merged[k] = v
        for e in es:
            e.free_ns = t
            e.clock = dict(merged)
        return t

    # ---- results ----

    @property
    def now_ns(self) -> float:
        return max((e.free_ns for e in self.engines.values()), default=0.0)

    def reset(self) -> None:
        for e in self.engines.values():
            e.free_ns = e.busy_ns = 0.0
            e.count = e.seq = 0
            e.clock = {}
        self._logs.clear()
        self._forget_log_cache()
        self._used.clear()
        self.trace.events.clear()


class PythonTimeline(Timeline):
    """A ``Timeline`` on the pure-Python data-order methods whether or not the C extension is built: the
    reference the C methods are tested against."""
    place = Timeline.place_py
    place_rw = Timeline.place_rw_py
    place_data = Timeline.place_data_py
    _dependencies_end = Timeline._dependencies_end_py
    _remember = Timeline._remember_py
