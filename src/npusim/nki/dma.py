"""The DMA engines' data paths: 16 engines, each serving 8 partitions (reference §4.2).

A transfer is queued on one of the 16 DMA queues (its timeline thread) and moves its bytes through
the engines of the partitions it touches (HBM<->HBM: all 16). Its fixed latency (~1.3 us of
descriptors and semaphores) overlaps freely; its data phase needs those engines to itself. Engines
keep their busy intervals, so a transfer that is ready early fills a gap before a later-queued one
that waits for its data (a store waiting on compute does not hold up the next tile's load).
"""
from __future__ import annotations

import bisect
from bisect import bisect_right


class DmaEngines:
    KEEP = 256          # intervals remembered per engine; older ones fold into a floor (conservative)

    def __init__(self, n: int):
        self.starts = [[] for _ in range(n)]
        self.ends = [[] for _ in range(n)]
        self.floor = [0.0] * n
        # latest[g]: at least every end in ends[g] (the latest reserved end; truncation keeps it). A start
        # at or after it is free on that engine (_fit returns it unchanged: the common case, no search).
        self.latest = [float("-inf")] * n

    def earliest(self, groups, t: float, d: float) -> float:
        """The first time >= t at which every engine in ``groups`` is free for ``d`` ns."""
        s = t
        floor, latest = self.floor, self.latest
        for g in groups:            # max(t, floors): the first of equals, as max() picks
            if floor[g] > s:
                s = floor[g]
        starts_of, ends_of = self.starts, self.ends
        while True:
            s2 = s
            for g in groups:        # the first fit on engine g at or after s2
                if s2 >= latest[g]:
                    continue        # after every interval: s2 itself
                starts, ends = starts_of[g], ends_of[g]
                i = bisect_right(ends, s2)
                n = len(starts)
                while i < n and starts[i] < s2 + d:
                    s2 = ends[i]
                    i += 1
            if s2 == s:
                return s
            s = s2

    def reserve(self, groups, s: float, d: float) -> None:
        latest, starts_of, ends_of, keep = self.latest, self.starts, self.ends, self.KEEP
        e = s + d
        for g in groups:
            starts, ends = starts_of[g], ends_of[g]
            if e > latest[g]:
                latest[g] = e
            if not starts or s > starts[-1]:     # the common case: after every interval (bisect's answer)
                starts.append(s)
                ends.append(e)
            else:
                i = bisect.bisect_left(starts, s)
                starts.insert(i, s)
                ends.insert(i, e)
            if len(starts) > keep:
                cut = len(starts) // 2
                self.floor[g] = max(self.floor[g], ends[cut - 1])
                del starts[:cut], ends[:cut]
