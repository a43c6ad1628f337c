"""The timeline's short paths give exactly what the general ``place`` gives: ``place_rw`` (one read, one
write, data order), the scan skip when every remembered access of a memory ran on the placing engine,
and pruning (which forgets accesses and folds the oldest into a horizon)."""
from hypothesis import given, settings, strategies as st

from npusim.core import Memory, TensorView, Timeline
from npusim.core.timeline import _access_view

ENGINES = {"vector": 0.96e9, "scalar": 1.4e9, "gpsimd": 1.4e9, "dma-q0": 1e9}


def _views():
    sbuf = Memory("sbuf", lane_bytes=4096, lanes=128)
    hbm = Memory("hbm", 1 << 16)
    out = [TensorView(sbuf, 512 * (i % 8), (32 * (1 + i % 4), 64), (4096, 4), "float32") for i in range(16)]
    out += [TensorView(hbm, 1024 * i, (256,), None, "float32") for i in range(8)]
    return [v.footprint for v in out]


def _fields(e):
    """Everything but the source line (the two calls sit on different lines of this file)."""
    return (e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.freq_hz, e.nbytes, e.elements, e.args)


step = st.tuples(st.sampled_from(sorted(ENGINES)), st.integers(0, 23), st.integers(0, 23),
                 st.integers(1, 5000), st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.lists(step, min_size=1, max_size=200))
def test_place_rw_matches_place(steps):
    fps = _views()
    general, short = Timeline(ENGINES), Timeline(ENGINES)
    for engine, r, w, cycles, other in steps:
        if other:       # interleave general placements (other shapes of access) on both timelines
            a = general.place(engine, "x", cycles, writes=[fps[w]], nbytes=7)
            b = short.place(engine, "x", cycles, writes=[fps[w]], nbytes=7)
        else:
            a = general.place(engine, "op", cycles, reads=[fps[r]], writes=[fps[w]], nbytes=3, elements=5,
                              args={"k": r})
            b = short.place_rw(engine, "op", cycles, fps[r], fps[w], 3, 5, {"k": r})
        assert _fields(a) == _fields(b)
        assert a.source.startswith("test_timeline_fast_paths.py:") and b.source.startswith(
            "test_timeline_fast_paths.py:")


def _start_by_brute_force(history, reads, writes, engine, free_ns):
    """Data order without any bookkeeping: after every conflicting access on another engine."""
    t = free_ns
    for fps, is_write in ((reads, False), (writes, True)):
        for fp in fps:
            for (o, w, end, e) in history:
                if e != engine and (is_write or w) and fp.overlaps(o):
                    t = max(t, end)
    return t


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=300))
def test_data_order_matches_brute_force_while_nothing_is_forgotten(steps):
    """With every engine busy, the pruned bookkeeping and the same-engine skip still find every conflict
    (accesses are forgotten only when they can no longer delay anyone, or fold into a later horizon)."""
    fps = _views()
    tl = Timeline(ENGINES)
    for engine in ENGINES:          # every engine in use from the start (late first uses: test_timeline_first_use.py)
        tl.place(engine, "warm-up", 1)
    history = []
    for engine, r, w, cycles, _ in steps:
        free = tl.engines[engine].free_ns
        ev = tl.place(engine, "op", cycles, reads=[fps[r]], writes=[fps[w]])
        expect = _start_by_brute_force(history, [fps[r]], [fps[w]], engine, free)
        # the horizon fold is a conservative bound: never earlier than the exact answer
        assert ev.start_ns >= expect
        if all(len(log.accesses) < Timeline.MAX_TRACKED // 2 for log in tl._logs.values()) and not any(
                log.horizon for log in tl._logs.values()):
            assert ev.start_ns == expect
        history.append((fps[r], False, ev.end_ns, engine))
        history.append((fps[w], True, ev.end_ns, engine))


def test_one_engine_skips_the_scan_but_a_second_engine_still_waits():
    fps = _views()
    tl = Timeline(ENGINES)
    for _ in range(40):                        # many accesses on one engine: the log's sole engine
        tl.place_rw("vector", "op", 100, fps[0], fps[1])
    last_vector = tl.engines["vector"].free_ns
    ev = tl.place("scalar", "use", 10, reads=[fps[1]])
    assert ev.start_ns == last_vector           # read-after-write on another engine
    ev2 = tl.place("vector", "again", 10, writes=[fps[1]])
    assert ev2.start_ns == max(last_vector, ev.end_ns)   # write-after-read: waits for the scalar read


def test_first_use_of_an_engine_after_pruning_waits_for_forgotten_writes():
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    for _ in range(17):             # the 34th remembered access prunes every earlier one
        tl.place("vector", "op", 100, reads=[fps[0]], writes=[fps[1]])
    ev = tl.place("scalar", "use", 10, reads=[fps[1]])
    assert ev.start_ns == tl.engines["vector"].free_ns == 1700.0    # not 0: the forgotten write is archived


@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=300), st.integers(0, 23), st.integers(0, 23),
       st.floats(0, 2e6, allow_nan=False))
def test_seeded_newest_first_scan_equals_a_full_scan(steps, r, w, not_before):
    """The scan runs newest first and stops on a prefix max of ends (per bucket, access_log.py); seeded with
    ``not_before_ns`` it equals max(not_before_ns, the unseeded answer), and the unseeded answer equals a
    scan of every remembered access (and horizon) in list order."""
    fps = _views()
    tl = Timeline(ENGINES)
    for engine in ENGINES:          # every engine in use: no archive (test_timeline_first_use.py covers it)
        tl.place(engine, "warm-up", 1)
    for engine, rr, ww, cycles, other in steps:
        tl.place(engine, "op", cycles, reads=[] if other else [fps[rr]], writes=[fps[ww]])
    for engine in ENGINES:
        plain = tl.dependencies_end([fps[r]], [fps[w]], engine)
        assert tl.dependencies_end([fps[r]], [fps[w]], engine, not_before) == max(not_before, plain)
        full = 0.0
        for fp, is_write in ((fps[r], False), (fps[w], True)):
            log = tl._logs.get(fp.memory.id)
            if log is None:
                continue
            accesses = [_access_view(a) for a in log.accesses]
            full = max(full, log.horizon)
            if log.engine == engine:
                continue
            for a in accesses:
                if a.engine != engine and (is_write or a.write) and fp.overlaps(a.fp):
                    full = max(full, a.end_ns)
        assert plain == full
