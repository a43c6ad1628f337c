"""The remembered accesses of one memory, indexed by address, for the timeline's conflict scans.

An access (what one instruction did to one footprint) is a plain list, cheaper to make than an object;
its fields by index are the constants below. Pruning marks a forgotten access dead in place
(``ALIVE``), so the address index never has to be rebuilt when the log is pruned.

The index: the memory's in-lane bytes are cut into buckets of ``1 << shift`` bytes (``shift`` is set when
the index is built, from the widest access remembered then). An access spanning at most
``BUCKET_SPAN`` buckets is listed in each of them; a wider one (or an empty box) in ``wide``. Two boxes
that overlap share a byte, so they share a bucket, or one is wide: a query scans its own buckets and
``wide`` and meets every access it overlaps. A query wider than ``BUCKET_SPAN`` buckets scans the whole
log instead. The answer is a max over the conflicting accesses found, so neither the order of the scans
nor an access listed in two buckets changes it.
"""
from __future__ import annotations

from itertools import accumulate
from operator import itemgetter

END, WRITE, ENGINE, SEQ, FP, EVENT, SYNC, ALIVE = range(8)

end_of = itemgetter(END)
engine_of = itemgetter(ENGINE)
sync_of = itemgetter(SYNC)

BUCKET_SPAN = 8     # buckets an access may span and still be listed in each (wider: the wide list)
MIN_SHIFT = 6        # buckets of at least 64 bytes

CLEAN_STEP = 16      # dead accesses a bucket may gather before it drops them
INDEX_AFTER = 24     # entries a scan of the whole (unindexed) log may visit before the log gets its index


class MemoryLog:
    """The remembered accesses of one memory, and what the scans need to know about them."""
    __slots__ = ("accesses", "horizon", "prune_at", "engine", "archive", "archive_for",
                 "archive_horizon", "shift", "buckets", "wide", "indexed", "ends_max")

    def __init__(self, prune_at: int):
        self.accesses: list[list] = []       # in the order remembered (a fold sorts them by end)
        self.horizon = 0.0          # end of the latest forgotten access
        self.prune_at = prune_at    # list length that triggers the next pruning
        # The one engine every remembered access ran on, or None (mixed or empty). An instruction on that
        # engine skips the scan: program order on its own engine already covers every entry, and races
        # are only between engines.
        self.engine: str | None = None
        # Accesses pruning forgot while some engine had not placed anything yet: they can no longer
        # delay or race with an engine in use, but they can with the later first instructions of the
        # others. Only engines named in ``archive_for`` (unused when something was archived) consult it,
        # until they have caught up with it (Timeline._forget_archive_if_caught_up).
        self.archive: list[list] = []
        self.archive_for: set[str] = set()
        self.archive_horizon = 0.0      # latest end of the accesses folded out of a full archive
        self.shift = MIN_SHIFT      # set by build_index
        # bucket number -> [accesses, their prefix max of ends, length that triggers dropping the dead]
        self.buckets: dict[int, list] = {}
        self.wide: list = [[], [], CLEAN_STEP]
        # The index is built once a data-order scan of the whole log runs past INDEX_AFTER entries
        # (build_index) and kept up from then on: short scans (accesses ending in step with the engines)
        # and front ends that place only in sync or no order (Ascend C, VPPL) never pay for it. Until
        # then ends_max[i] is the latest end of accesses[0..i]: a scan runs newest first and stops once
        # every older access ends by the time found so far.
        self.indexed = False
        self.ends_max: list[float] = []

    def keep_only(self, keep: list[list]) -> None:
        """After pruning: ``keep`` (alive, in scan order) is the log; the caller marked the rest dead."""
        self.accesses = keep
        if not self.indexed:
            self.ends_max = list(accumulate(map(end_of, keep), max))     # max keeps the first of equals
        engines = set(map(engine_of, keep))
        self.engine = engines.pop() if len(engines) == 1 else None


def build_index(log: MemoryLog) -> None:
    """List every remembered access of ``log`` in the index. The buckets are made as small as lets the
    widest access remembered span at most ``BUCKET_SPAN - 1`` of them (at least ``1 << MIN_SHIFT``)."""
    widest = max((a[FP].hi - a[FP].lo for a in log.accesses), default=1)
    shift = log.shift = max(MIN_SHIFT, (-(-widest // (BUCKET_SPAN - 1)) - 1).bit_length())
    buckets = log.buckets
    for acc in log.accesses:
        fp = acc[FP]
        lo, hi = fp.lo, fp.hi
        b = lo >> shift
        last = (hi - 1) >> shift
        if hi <= lo or last - b >= BUCKET_SPAN:
            append(log.wide, acc)
            continue
        while b <= last:
            bucket = buckets.get(b)
            if bucket is None:
                buckets[b] = [[acc], [acc[END]], CLEAN_STEP]
            else:
                append(bucket, acc)
            b += 1
    log.indexed = True
    log.ends_max = []


def append(bucket: list, acc: list) -> None:
    """Add ``acc`` to a bucket, first dropping its dead accesses when it has grown by ``CLEAN_STEP``."""
    accs, ends = bucket[0], bucket[1]
    if len(accs) >= bucket[2]:
        accs = bucket[0] = [a for a in accs if a[ALIVE]]
        m, ends = float("-inf"), []
        for a in accs:
            if a[END] > m:
                m = a[END]
            ends.append(m)
        bucket[1] = ends
        bucket[2] = len(accs) + CLEAN_STEP
    end = acc[END]
    ends.append(end if not ends or end > ends[-1] else ends[-1])
    accs.append(acc)


def scan(accs: list, ends: list, fp, is_write: bool, engine: str, t: float) -> float:
    """Newest first, stopping once every older entry ends by ``t`` (``ends`` is their prefix max)."""
    lo, hi, lane_lo, lane_hi = fp.lo, fp.hi, fp.lane_lo, fp.lane_hi
    i = len(accs)
    while i:
        i -= 1
        if ends[i] <= t:        # accs[0..i] all end by t: none can raise it
            break
        acc = accs[i]
        if acc[0] > t and (is_write or acc[1]) and acc[2] != engine and acc[7]:
            o = acc[4]          # the box test of Footprint.overlaps, inlined (same memory by key)
            if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                t = acc[0]
    return t


def scan_all(accs: list, fp, is_write: bool, engine: str, t: float) -> float:
    """``scan`` without the early stop: the whole log, for a query wider than ``BUCKET_SPAN`` buckets."""
    lo, hi, lane_lo, lane_hi = fp.lo, fp.hi, fp.lane_lo, fp.lane_hi
    for acc in accs:
        if acc[0] > t and (is_write or acc[1]) and acc[2] != engine:
            o = acc[4]
            if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                t = acc[0]
    return t
