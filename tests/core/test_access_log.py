"""The address index of the timeline's access logs (core/access_log.py) finds exactly what a scan of every
remembered access finds: boxes of any width (one bucket, several, wider than BUCKET_SPAN, empty),
misaligned, on few or all lanes, through pruning (forgotten accesses stay in the buckets, marked dead),
and whether the index was built at the first query or kept up from the first access."""
from hypothesis import given, settings, strategies as st

from npusim.core import Memory, Timeline
from npusim.core.access_log import (BUCKET_SPAN, END, ENGINE, FP, INDEX_AFTER, WRITE, MemoryLog, build_index,
                                    entries)
from npusim.core.view import Footprint

ENGINES = {"vector": 0.96e9, "scalar": 1.4e9, "tensor": 1.4e9, "dma-q0": 1e9}
LANE_BYTES = 1 << 16

box = st.tuples(st.integers(0, 4000), st.sampled_from([0, 1, 4, 60, 64, 65, 200, 256, 512, 4096]),
                st.integers(0, 127), st.integers(1, 128))
step = st.tuples(st.sampled_from(sorted(ENGINES)), st.integers(1, 3000), st.lists(box, max_size=2),
                 st.lists(box, max_size=2))


def _footprint(mem, b) -> Footprint:
    lo, width, lane_lo, lanes = b
    return Footprint(mem, lane_lo, min(128, lane_lo + lanes), lo, lo + width)


def _brute_force(tl: Timeline, fp: Footprint, is_write: bool, engine: str, t: float) -> float:
    """Every remembered access of the memory, in any order, with the box test written out."""
    log = tl._logs.get(fp.memory.id)
    if log is None:
        return t
    t = max(t, log.horizon)
    for a in log.accesses:
        o = a[FP]
        if (a[ENGINE] != engine and (is_write or a[WRITE]) and fp.lo < o.hi and o.lo < fp.hi
                and fp.lane_lo < o.lane_hi and o.lane_lo < fp.lane_hi):
            t = max(t, a[END])
    return t


@settings(max_examples=60, deadline=None)
@given(box, st.lists(step, min_size=1, max_size=150), st.lists(box, min_size=1, max_size=6),
       st.floats(0, 1e6, allow_nan=False), st.booleans(), st.integers(0, 150))
def test_indexed_conflicts_equal_a_scan_of_every_access(first, steps, queries, not_before, early_index, ask_from):
    mem = Memory("sbuf", LANE_BYTES, lanes=128)
    tl = Timeline(ENGINES)
    for engine in ENGINES:          # every engine in use: no archive (test_timeline_first_use.py covers it)
        tl.place(engine, "warm-up", 1)
    tl.place("vector", "first", 1, writes=[_footprint(mem, first)])     # sets the bucket width
    if early_index:
        build_index(tl._logs[mem.id])        # built now, kept up from here (else: once scans run long)
    for i, (engine, cycles, reads, writes) in enumerate(steps):
        tl.place(engine, "op", cycles, reads=[_footprint(mem, b) for b in reads],
                 writes=[_footprint(mem, b) for b in writes])
        if i < ask_from:
            continue        # no query yet: the index is built from the log at the first one
        for b in queries:
            fp = _footprint(mem, b)
            for e in ENGINES:
                for is_write in (False, True):
                    want = _brute_force(tl, fp, is_write, e, not_before)
                    log = tl._logs[mem.id]
                    if log.engine == e:     # the same-engine skip (test_timeline_fast_paths.py)
                        continue
                    assert tl._conflicts_end(fp, is_write, e, not_before) == want


def test_bucket_width_follows_the_widest_access_and_wider_boxes_go_to_the_wide_list():
    mem = Memory("sbuf", LANE_BYTES, lanes=128)
    tl = Timeline(ENGINES)
    tl.place("vector", "a", 10, writes=[Footprint(mem, 0, 128, 100, 164)])
    tl.place("vector", "a2", 10, writes=[Footprint(mem, 0, 128, 4096, 4096 + 1000)])   # widest: 1000 bytes
    log: MemoryLog = tl._logs[mem.id]
    assert tl.dependencies_end([Footprint(mem, 0, 128, 0, 1)], [], "scalar") == 0.0
    assert not log.indexed and not log.buckets          # a short scan: no index
    build_index(log)
    assert log.indexed and log.shift == 8               # 1000 / 7 -> buckets of 256 bytes
    assert sorted(log.buckets) == [0] + list(range(16, 20))
    tl.place("vector", "b", 10, writes=[Footprint(mem, 0, 128, 250, 260)])      # straddles buckets 0 and 1
    assert sorted(log.buckets) == [0, 1] + list(range(16, 20))
    wide = Footprint(mem, 0, 128, 0, (BUCKET_SPAN + 1) << 8)
    tl.place("vector", "c", 10, writes=[wide])
    assert entries(log.wide)[-1][FP] is wide
    empty = Footprint(mem, 0, 128, 300, 300)        # an empty box overlaps by the box test: kept findable
    tl.place("vector", "d", 10, writes=[empty])
    assert entries(log.wide)[-1][FP] is empty
    assert tl.dependencies_end([Footprint(mem, 0, 1, 299, 301)], [], "scalar") == tl.engines["vector"].free_ns


def test_pruned_accesses_stay_in_their_bucket_but_are_not_found():
    mem = Memory("sbuf", LANE_BYTES, lanes=128)
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    tl.place("scalar", "warm-up", 1)
    fp = Footprint(mem, 0, 128, 0, 64)
    far = Footprint(mem, 0, 128, 4096, 4160)
    tl.place("vector", "w", 100, writes=[fp])            # ends at 100
    build_index(tl._logs[mem.id])
    tl.place("scalar", "long", 1000)                     # scalar free at 1001: the write can be forgotten
    for _ in range(Timeline.PRUNE_AT):
        tl.place("vector", "other", 1, writes=[far])     # fills the log until it prunes
    log = tl._logs[mem.id]
    assert all(a[FP] is not fp for a in log.accesses)               # forgotten by the log ...
    bucket = log.buckets[0]
    assert any(a[FP] is fp for a in entries(bucket))                # ... still listed in its bucket ...
    assert tl._conflicts_end(fp, False, "scalar", 0.0) == 0.0       # ... and not found


def test_a_long_scan_indexes_the_log():
    mem = Memory("sbuf", LANE_BYTES, lanes=128)
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    tl.place("scalar", "warm-up", 1)
    for i in range(INDEX_AFTER + 2):            # the vector engine runs ahead, on tiles scalar never reads
        tl.place("vector", "w", 100, writes=[Footprint(mem, 0, 128, 64 * i, 64 * i + 64)])
    log = tl._logs[mem.id]
    assert not log.indexed
    mine = Footprint(mem, 0, 128, 1 << 15, (1 << 15) + 64)
    assert tl._conflicts_end(mine, False, "scalar", 1.0) == 1.0      # visits every access: indexes the log
    assert log.indexed and log.ends_max == []
    assert tl._conflicts_end(Footprint(mem, 0, 128, 64, 128), False, "scalar", 1.0) == 200.0


def test_a_read_skips_a_log_of_reads_but_not_a_later_write():
    """Reads do not conflict with reads: a read is not delayed by a log whose writes all end by its start
    (``MemoryLog.write_end``), however late the reads in it end; a write is."""
    mem = Memory("hbm", LANE_BYTES)
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    src = Footprint(mem, 0, 1, 0, 64)
    tl.place("vector", "w", 10, writes=[src])                       # a write ending at 10
    tl.place("vector", "r", 990, reads=[src])                       # a read ending at 1000
    log = tl._logs[mem.id]
    assert log.write_end == 10.0
    assert tl.dependencies_end([src], [], "scalar") == 10.0         # the read waits for the write only
    assert tl.dependencies_end([], [src], "scalar") == 1000.0       # a write waits for the read too
    tl.place("vector", "w2", 1000, writes=[Footprint(mem, 0, 1, 64, 128)])     # ends at 2000, elsewhere
    assert log.write_end == 2000.0 and tl.dependencies_end([src], [], "scalar") == 10.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.5, 7.0, float("nan"), float("inf")]), st.booleans(),
                          st.sampled_from(["vector", "scalar"]), st.booleans()), max_size=40),
       st.booleans())
def test_keep_only_matches_the_builtin_definitions(entries_, indexed):
    """keep_only's one loop gives what the builtins define: ends_max is accumulate(ends, max) (NaN included),
    engine is the one engine or None, write_end bounds every write's end (NaN ends cannot delay anyone)."""
    from itertools import accumulate
    log = MemoryLog(16)
    log.indexed = indexed
    log.has_sync = True
    keep = [[end, write, engine, 0, None, None, sync, True] for end, write, engine, sync in entries_]
    log.keep_only(keep)
    assert log.accesses is keep
    assert log.has_sync == any(a[6] for a in keep)
    engines = {a[ENGINE] for a in keep}
    assert log.engine == (engines.pop() if len(engines) == 1 else None)
    want = list(accumulate([a[END] for a in keep], max))
    assert log.ends_max == ([] if indexed else want) or (not indexed and repr(log.ends_max) == repr(want))
    writes = [a[END] for a in keep if a[WRITE] and a[END] == a[END]]
    assert log.write_end == max(writes, default=float("-inf"))
