"""The DMA engines' data paths: 16 engines, each serving 8 partitions (reference §4.2).

A transfer is queued on one of the 16 DMA queues (its timeline thread) and moves its bytes through
the engines of the partitions it touches (HBM<->HBM: all 16). Its fixed latency (~1.3 us of
descriptors and semaphores) overlaps freely; its data phase needs those engines to itself. Engines
keep their busy intervals, so a transfer that is ready early fills a gap before a later-queued one
that waits for its data (a store waiting on compute does not hold up the next tile's load).

Engines that were always reserved together hold the same intervals: they share one record (a class),
so a transfer over all 16 engines fits and reserves once per class, not once per engine. A class is
split when a transfer uses only some of its engines (at most 15 splits per launch).
"""
from __future__ import annotations

import bisect
from bisect import bisect_right

from . import native_dma as _native_dma


class DmaEngines:
    KEEP = 256          # intervals remembered per engine; older ones fold into a floor (conservative)

    def __init__(self, n: int):
        self.n = n
        self._cls = [0] * n             # engine -> its class
        self._members = [list(range(n))]
        # per class: busy intervals sorted by start (ends alongside), the floor older intervals folded
        # into, the latest reserved end (at least every end: a start at or after it is free, no search),
        # and whether the ends ascend too (no interval inside another: see earliest)
        self._starts: list[list] = [[]]
        self._ends: list[list] = [[]]
        self._floor = [0.0]
        self._latest = [float("-inf")]
        self._sorted = [True]
        self._classes_of: dict = {}     # tuple(groups) -> the classes covering them (cleared on a split)
        self._native = _native_dma.ext()    # the C earliest / reserve_after, or None (Python does it all)
        # what the C functions read and change in place (these objects are never replaced)
        self._state = (self._classes_of, self._starts, self._ends, self._floor, self._latest)

    # ---- per-engine views (tests, lnc) ----

    @property
    def starts(self) -> list:
        return [self._starts[c] for c in self._cls]

    @property
    def ends(self) -> list:
        return [self._ends[c] for c in self._cls]

    @property
    def floor(self) -> list:
        return [self._floor[c] for c in self._cls]

    @property
    def latest(self) -> list:
        return [self._latest[c] for c in self._cls]

    # ---- classes ----

    def _classes(self, groups) -> tuple:
        """(the classes holding exactly the engines ``groups`` (split where a class has others too), in the
        order their first engine appears in ``groups``; whether the ends of all of them ascend)."""
        key = tuple(groups)
        found = self._classes_of.get(key)
        if found is not None:
            return found
        wanted = set(key)
        out = []
        for g in key:
            c = self._cls[g]
            if c in out:
                continue
            members = self._members[c]
            inside = [e for e in members if e in wanted]
            if len(inside) < len(members):          # split: the engines of groups get a copy of the record
                self._members[c] = [e for e in members if e not in wanted]
                c2 = len(self._members)
                self._members.append(inside)
                self._starts.append(list(self._starts[c]))
                self._ends.append(list(self._ends[c]))
                self._floor.append(self._floor[c])
                self._latest.append(self._latest[c])
                self._sorted.append(self._sorted[c])
                for e in inside:
                    self._cls[e] = c2
                self._classes_of.clear()
                c = c2
            out.append(c)
        found = self._classes_of[key] = (out, all(self._sorted[c] for c in out))
        return found

    def _nested(self, c: int) -> None:
        """An interval of class c now lies inside another (its ends no longer ascend)."""
        self._sorted[c] = False
        self._classes_of.clear()

    # ---- the engines' time ----

    def earliest(self, groups, t: float, d: float) -> float:
        """The first time >= t at which every engine in ``groups`` is free for ``d`` ns."""
        native = self._native
        if native is not None:      # all of it in C when the classes of groups are kept and ascend
            s = native.earliest_for(self._state, groups, t, d)
            if s is not None:
                return s
        classes, ascending = self._classes(groups)
        if not ascending:
            # With an interval inside another an engine's first fit is not "the least free start" and the
            # order of the passes matters: engine by engine, in ``groups`` order. Otherwise that fit is
            # monotone and idempotent, so the fixed point over the classes, in any order, is the least
            # common one: the value the per-engine passes reach.
            cls = self._cls
            classes = [cls[g] for g in groups]
        native = self._native
        if native is not None:      # the same passes in C (None: a number that is not a float)
            s = native.earliest(classes, self._starts, self._ends, self._floor, self._latest, t, d)
            if s is not None:
                return s
        return self._earliest(classes, t, d)

    def _earliest(self, classes, t, d):
        """earliest's passes over ``classes`` (the reference native_dma's C follows)."""
        s = t
        floor, latest = self._floor, self._latest
        for c in classes:           # max(t, floors): the first of equals, as max() picks
            if floor[c] > s:
                s = floor[c]
        starts_of, ends_of = self._starts, self._ends
        while True:
            s2 = s
            for c in classes:       # the first fit on engine class c at or after s2
                if s2 >= latest[c]:
                    continue        # after every interval: s2 itself
                starts, ends = starts_of[c], ends_of[c]
                i = bisect_right(ends, s2)
                n = len(starts)
                while i < n and starts[i] < s2 + d:
                    s2 = ends[i]
                    i += 1
            if s2 == s:
                return s
            s = s2

    def reserve(self, groups, s: float, d: float) -> None:
        """Mark the engines of ``groups`` busy over [s, s + d)."""
        native = self._native
        if native is not None and native.reserve_for(self._state, groups, s, d, self.KEEP):
            return                  # (the common case, done in C: after every interval, nothing nested)
        classes = self._classes(groups)[0]
        if native is not None and native.reserve_after(classes, self._starts, self._ends, self._latest, s, d,
                                                       self.KEEP):
            return
        latest, starts_of, ends_of, keep = self._latest, self._starts, self._ends, self.KEEP
        e = s + d
        for c in classes:
            starts, ends = starts_of[c], ends_of[c]
            if e > latest[c]:
                latest[c] = e
            if not starts or s > starts[-1]:     # the common case: after every interval (bisect's answer)
                if ends and ends[-1] > e:
                    self._nested(c)             # inside the last interval
                starts.append(s)
                ends.append(e)
            else:
                i = bisect.bisect_left(starts, s)
                if (i and ends[i - 1] > e) or (i < len(ends) and ends[i] < e):
                    self._nested(c)
                starts.insert(i, s)
                ends.insert(i, e)
            if len(starts) > keep:
                cut = len(starts) // 2
                self._floor[c] = max(self._floor[c], ends[cut - 1])
                del starts[:cut], ends[:cut]
