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

A bucket (and ``wide``) is one flat list, one allocation however many entries:
``[length that triggers dropping the dead, newest prefix max, max0, acc0, max1, acc1, ...]`` where maxK is
the latest end of acc0..accK (a scan runs newest first and stops at the first maxK <= the time found).
"""
from __future__ import annotations

from operator import itemgetter

END, WRITE, ENGINE, SEQ, FP, EVENT, SYNC, ALIVE = range(8)

end_of = itemgetter(END)

BUCKET_SPAN = 8     # buckets an access may span and still be listed in each (wider: the wide list)
MIN_SHIFT = 6        # buckets of at least 64 bytes

CLEAN_STEP = 16      # dead accesses a bucket may gather before it drops them
FRESH = 2 + 2 * CLEAN_STEP      # a new bucket's length that triggers dropping the dead
INDEX_AFTER = 24     # entries a scan of the whole (unindexed) log may visit before the log gets its index


class LogMethods:
    """``MemoryLog``'s methods, shared with the native timeline's log (``timeline_native.MemoryLog``, whose
    fields are the extension's ``MemoryLogBase`` slots: the C paths read them without attribute lookups)."""
    __slots__ = ()

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
        self.buckets: dict[int, list] = {}      # bucket number -> bucket (the module's docstring)
        self.wide: list = [FRESH, float("-inf")]
        # The index is built once a data-order scan of the whole log runs past INDEX_AFTER entries
        # (build_index) and kept up from then on: short scans (accesses ending in step with the engines)
        # and front ends that place only in sync or no order (Ascend C, VPPL) never pay for it. Until
        # then ends_max[i] is the latest end of accesses[0..i]: a scan runs newest first and stops once
        # every older access ends by the time found so far.
        self.indexed = False
        self.ends_max: list[float] = []
        # False while no access in ``accesses`` is sync-ordered (pruning then needs one test per access);
        # may stay True after such accesses are gone (pruning then takes its general path: same result).
        self.has_sync = False
        # At least the latest end of the writes in ``accesses``: a read that starts by then conflicts with
        # none of them (reads do not conflict with reads), so its scan is skipped.
        self.write_end = float("-inf")

    def keep_only(self, keep: list[list]) -> None:
        """After pruning: ``keep`` (alive, in scan order) is the log; the caller marked the rest dead.
        One plain loop (on CPython 3.11 map/accumulate over builtins cost several times as much)."""
        self.accesses = keep
        if self.has_sync:
            self.has_sync = any([a[SYNC] for a in keep])
        write_end = float("-inf")
        engine = keep[0][ENGINE] if keep else None
        indexed = self.indexed
        ends_max: list = [] if not indexed else None
        for a in keep:
            end = a[END]
            if a[WRITE] and end > write_end:
                write_end = end
            if a[ENGINE] != engine:
                engine = None
            if not indexed:     # the prefix max of ends (as accumulate(ends, max): the first of equals)
                if not ends_max or end > m:
                    m = end
                ends_max.append(m)
        self.write_end = write_end
        self.engine = engine
        if not indexed:
            self.ends_max = ends_max


class MemoryLog(LogMethods):
    """The remembered accesses of one memory, and what the scans need to know about them."""
    __slots__ = ("accesses", "horizon", "prune_at", "engine", "archive", "archive_for",
                 "archive_horizon", "shift", "buckets", "wide", "indexed", "ends_max", "has_sync", "write_end")


def build_index(log: MemoryLog) -> None:
    """List every remembered access of ``log`` in the index. The buckets are made as small as lets the
    widest access remembered span at most ``BUCKET_SPAN - 1`` of them (at least ``1 << MIN_SHIFT``)."""
    native = getattr(log, "_build_index", None)
    if native is not None:      # the native timeline's log keeps its index in C (the same rules)
        native()
        return
    widest = max((a[FP].hi - a[FP].lo for a in log.accesses), default=1)
    shift = log.shift = max(MIN_SHIFT, (-(-widest // (BUCKET_SPAN - 1)) - 1).bit_length())
    for acc in log.accesses:
        fp = acc[FP]
        index_add(log, acc, fp.lo, fp.hi, acc[END])
    log.indexed = True
    log.ends_max = []


def index_add(log: MemoryLog, acc: list, lo: int, hi: int, end: float) -> None:
    """List ``acc`` (its footprint's in-lane bytes [lo, hi), its end) in each bucket it spans, or in ``wide``."""
    shift = log.shift
    b = lo >> shift
    last = (hi - 1) >> shift
    if hi <= lo or last - b >= BUCKET_SPAN:
        append(log.wide, acc)
        return
    buckets = log.buckets
    get = buckets.get
    for b in range(b, last + 1):
        bucket = get(b)
        if bucket is None:
            buckets[b] = [FRESH, end, end, acc]
        elif len(bucket) < bucket[0]:        # append's common case, inlined (a bucket at rest is not empty)
            m = bucket[1]
            if end > m:
                m = bucket[1] = end
            bucket.append(m)
            bucket.append(acc)
        else:
            append(bucket, acc)     # drops the bucket's dead first


def entries(bucket: list) -> list:
    """The accesses a bucket (or ``wide``) lists, oldest first."""
    return bucket[3::2]


def append(bucket: list, acc: list) -> None:
    """Add ``acc`` to a bucket, first dropping its dead accesses when it has grown by ``CLEAN_STEP``."""
    if len(bucket) >= bucket[0]:
        alive = [a for a in entries(bucket) if a[ALIVE]]
        del bucket[1:]
        m = float("-inf")
        bucket.append(m)
        for a in alive:
            if a[END] > m:
                m = a[END]
            bucket.append(m)
            bucket.append(a)
        bucket[1] = m
        bucket[0] = len(bucket) + 2 * CLEAN_STEP
    end = acc[END]
    m = bucket[1]
    if len(bucket) == 2 or end > m:     # the first entry's max is its own end
        m = bucket[1] = end
    bucket.append(m)
    bucket.append(acc)


def scan(bucket: list, fp, is_write: bool, engine: str, t: float) -> float:
    """A bucket newest first, stopping once every older entry ends by ``t`` (their prefix max says so)."""
    lo, hi, lane_lo, lane_hi = fp.lo, fp.hi, fp.lane_lo, fp.lane_hi
    i = len(bucket) - 2
    while i > 1:
        if bucket[i] <= t:      # entries up to this one all end by t: none can raise it
            break
        acc = bucket[i + 1]
        if acc[0] > t and (is_write or acc[1]) and acc[2] != engine and acc[7]:
            o = acc[4]          # the box test of Footprint.overlaps, inlined (same memory by key)
            if lo < o.hi and o.lo < hi and lane_lo < o.lane_hi and o.lane_lo < lane_hi:
                t = acc[0]
        i -= 2
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
