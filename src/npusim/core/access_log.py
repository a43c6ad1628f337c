"""The remembered accesses of one memory, indexed by address, for the timeline's conflict scans.

An access (what one instruction did to one footprint) is a plain list, cheaper to make than an object;
its fields by index are the constants below. Pruning marks a forgotten access dead in place
(``ALIVE``), so the address index never has to be rebuilt when the log is pruned.

The index: the memory's in-lane bytes are cut into buckets of ``1 << shift`` bytes (``shift`` fits the
first footprint seen, so a typical tile spans one or two buckets). An access spanning at most
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


class MemoryLog:
    """The remembered accesses of one memory, and what the scans need to know about them."""
    __slots__ = ("accesses", "ends_max", "horizon", "prune_at", "engine", "archive", "archive_for",
                 "archive_horizon", "shift", "buckets", "wide")

    def __init__(self, prune_at: int, first_width: int):
        self.accesses: list[list] = []
        # ends_max[i]: the latest end of accesses[0..i]. Scans run newest first and stop once every older
        # access ends by the time found so far (none of them could raise it): a scan's result is a max,
        # so the order does not change it, and most scans stop after a few entries.
        self.ends_max: list[float] = []
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
        self.shift = max(MIN_SHIFT, (first_width - 1).bit_length() + 2)   # buckets of 4 to 8 widths
        # bucket number -> [accesses, their prefix max of ends, length that triggers dropping the dead]
        self.buckets: dict[int, list] = {}
        self.wide: list = [[], [], CLEAN_STEP]

    def keep_only(self, keep: list[list]) -> None:
        """After pruning: ``keep`` (alive, in scan order) is the log; the caller marked the rest dead."""
        self.accesses = keep
        self.ends_max = list(accumulate(map(end_of, keep), max))     # max keeps the first of equals
        engines = set(map(engine_of, keep))
        self.engine = engines.pop() if len(engines) == 1 else None


def add_to_index(log: MemoryLog, acc: list, lo: int, hi: int) -> None:
    """List ``acc`` (its box's in-lane bytes are [lo, hi)) in the buckets it spans, or in ``wide``
    (Timeline._remember inlines the common case: one bucket, no dead to drop)."""
    shift = log.shift
    b = lo >> shift
    last = (hi - 1) >> shift
    if hi <= lo or last - b >= BUCKET_SPAN:
        append(log.wide, acc)
        return
    buckets = log.buckets
    while b <= last:
        bucket = buckets.get(b)
        if bucket is None:
            buckets[b] = [[acc], [acc[END]], CLEAN_STEP]
        else:
            append(bucket, acc)
        b += 1


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


def indexed_end(log: MemoryLog, fp, is_write: bool, engine: str, t: float) -> float:
    """The later of ``t`` and the end of every remembered (alive) access of ``log`` that conflicts with
    ``fp`` (it or the other writes, boxes overlap) and ran on another engine: through the index, or the
    whole log for a wide query. (Timeline._conflicts_end inlines the one-bucket case.)"""
    lo, hi, shift = fp.lo, fp.hi, log.shift
    b = lo >> shift
    last = (hi - 1) >> shift
    if hi <= lo or last - b >= BUCKET_SPAN:
        return scan(log.accesses, log.ends_max, fp, is_write, engine, t)
    wide = log.wide
    if wide[0]:
        t = scan(wide[0], wide[1], fp, is_write, engine, t)
    buckets = log.buckets
    while b <= last:
        bucket = buckets.get(b)
        if bucket is not None and bucket[1][-1] > t:
            t = scan(bucket[0], bucket[1], fp, is_write, engine, t)
        b += 1
    return t


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
