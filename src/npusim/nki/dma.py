"""The DMA engines' data paths: 16 engines, each serving 8 partitions (reference §4.2).

A transfer is queued on one of the 16 DMA queues (its timeline thread) and moves its bytes through
the engines of the partitions it touches (HBM<->HBM: all 16). Its fixed latency (~1.3 us of
descriptors and semaphores) overlaps freely; its data phase needs those engines to itself. Engines
keep their busy intervals, so a transfer that is ready early fills a gap before a later-queued one
that waits for its data (a store waiting on compute does not hold up the next tile's load).
"""
from __future__ import annotations

import bisect


class DmaEngines:
    KEEP = 256          # intervals remembered per engine; older ones fold into a floor (conservative)

    def __init__(self, n: int):
        self.starts = [[] for _ in range(n)]
        self.ends = [[] for _ in range(n)]
        self.floor = [0.0] * n

    def _fit(self, g: int, s: float, d: float) -> float:
        starts, ends = self.starts[g], self.ends[g]
        i = bisect.bisect_right(ends, s)
        while i < len(starts) and starts[i] < s + d:
            s = ends[i]
            i += 1
        return s

    def earliest(self, groups, t: float, d: float) -> float:
        """The first time >= t at which every engine in ``groups`` is free for ``d`` ns."""
        s = max([t] + [self.floor[g] for g in groups])
        while True:
            s2 = s
            for g in groups:
                s2 = self._fit(g, s2, d)
            if s2 == s:
                return s
            s = s2

    def reserve(self, groups, s: float, d: float) -> None:
        for g in groups:
            starts, ends = self.starts[g], self.ends[g]
            if not starts or s > starts[-1]:     # the common case: after every interval (bisect's answer)
                starts.append(s)
                ends.append(s + d)
            else:
                i = bisect.bisect_left(starts, s)
                starts.insert(i, s)
                ends.insert(i, s + d)
            if len(starts) > self.KEEP:
                cut = len(starts) // 2
                self.floor[g] = max(self.floor[g], ends[cut - 1])
                del starts[:cut], ends[:cut]
