"""Pruning never hides an access from an engine that was not in use yet: random programs in which some
engines place their first instruction late agree with a reference that remembers every access
(data order: start times; sync order: which instruction raises ``RaceError``)."""
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure
from npusim.core import Memory, TensorView, Timeline
from npusim.core.errors import RaceError

ENGINES = {"vector": 0.96e9, "scalar": 1.4e9, "gpsimd": 1.4e9, "dma-q0": 1e9}
EARLY = ["vector", "scalar"]            # the only engines of a program's prefix: the others start late


def _views():
    sbuf = Memory("sbuf", lane_bytes=4096, lanes=128)
    hbm = Memory("hbm", 1 << 16)
    out = [TensorView(sbuf, 512 * (i % 8), (32 * (1 + i % 4), 64), (4096, 4), "float32") for i in range(16)]
    out += [TensorView(hbm, 1024 * i, (256,), None, "float32") for i in range(8)]
    return [v.footprint for v in out]


def _folded(tl: Timeline) -> bool:
    """True once some access was folded into a horizon (a conservative bound, no longer exact)."""
    return any(log.horizon or log.archive_horizon for log in tl._logs.values())


def _data_start(history, reads, writes, engine, t):
    """Data order without bookkeeping: after every conflicting access of another engine."""
    for fps, is_write in ((reads, False), (writes, True)):
        for fp in fps:
            for (o, w, end, e) in history:
                if e != engine and (is_write or w) and fp.overlaps(o):
                    t = max(t, end)
    return t


def test_first_use_through_place_rw_and_dependencies_end():
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9, "gpsimd": 1e9})
    for _ in range(17):
        tl.place_rw("vector", "op", 100, fps[0], fps[1])
    assert tl.dependencies_end([fps[1]], [], "gpsimd") == 1700.0
    assert tl.dependencies_end([fps[2]], [], "gpsimd") == 0.0       # no conflict: no wait
    ev = tl.place_rw("scalar", "use", 10, fps[1], fps[2])
    assert ev.start_ns == 1700.0


def test_second_instruction_of_a_late_engine_still_sees_the_archive():
    """The first instruction touches something else; the second one still waits for the forgotten write."""
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    for _ in range(17):
        tl.place("vector", "op", 100, reads=[fps[0]], writes=[fps[1]])
    assert tl.place("scalar", "other", 10, writes=[fps[2]]).start_ns == 0.0
    assert tl.place("scalar", "use", 10, reads=[fps[1]]).start_ns == 1700.0


def test_independent_first_instructions_do_not_serialise():
    fps = _views()
    tl = Timeline({"vector": 1e9, "dma-q0": 1e9, "dma-q1": 1e9})
    for _ in range(17):
        tl.place("vector", "op", 100, reads=[fps[0]], writes=[fps[1]])
    assert tl.place("dma-q0", "load", 10, writes=[fps[3]]).start_ns == 0.0
    assert tl.place("dma-q1", "load", 10, writes=[fps[4]]).start_ns == 0.0


def test_first_use_of_an_engine_races_with_a_forgotten_sync_write():
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9, "gpsimd": 1e9})
    with configure(check_races=True):
        for _ in range(17):
            tl.place("vector", "op", 100, reads=[fps[0]], writes=[fps[1]], order="sync")
            tl.wait("scalar", tl.signal("vector"))
            tl.place("scalar", "op", 1, writes=[fps[5]], order="sync")
        with pytest.raises(RaceError, match="read-after-write"):
            tl.place("gpsimd", "use", 10, reads=[fps[1]], order="sync")
        tl.wait("gpsimd", tl.signal("vector"))            # once synchronised, no race
        tl.place("gpsimd", "use", 10, reads=[fps[1]], order="sync")


def test_archive_is_bounded_and_its_fold_is_conservative():
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9, "gpsimd": 1e9})
    for i in range(3 * Timeline.ARCHIVE_CAP):
        tl.place("vector", "op", 100, reads=[fps[i % 8]], writes=[fps[8 + i % 8]])
    log = tl._logs[fps[0].memory.id]
    assert len(log.archive) <= Timeline.ARCHIVE_CAP
    assert log.archive_horizon > 0
    end = tl.engines["vector"].free_ns
    ev = tl.place("scalar", "use", 10, reads=[fps[15]])
    assert ev.start_ns == end                      # the last write of fps[15] is still archived exactly


def test_archive_is_dropped_once_every_engine_caught_up():
    fps = _views()
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    for _ in range(17):
        tl.place("vector", "op", 100, reads=[fps[0]], writes=[fps[1]])
    log = tl._logs[fps[0].memory.id]
    assert log.archive and log.archive_for == {"scalar"}
    tl.place("scalar", "use", 10, reads=[fps[1]])
    tl.place("scalar", "use", 10, reads=[fps[1]])       # free after every archived end: caught up
    assert not log.archive and not log.archive_for


# ---- random programs against a reference that forgets nothing ----

def _program(n_prefix, n_rest):
    early = st.tuples(st.sampled_from(EARLY), st.integers(0, 23), st.integers(0, 23), st.integers(1, 3000),
                      st.integers(0, 9))
    anyone = st.tuples(st.sampled_from(sorted(ENGINES)), st.integers(0, 23), st.integers(0, 23),
                       st.integers(1, 3000), st.integers(0, 9))
    return st.tuples(st.lists(early, min_size=n_prefix, max_size=n_prefix + 40),
                     st.lists(anyone, min_size=1, max_size=n_rest))


@settings(max_examples=60, deadline=None)
@given(_program(20, 120), st.sampled_from(sorted(ENGINES)))
def test_data_order_with_late_engines_matches_brute_force(program, waiter):
    fps = _views()
    tl = Timeline(ENGINES)
    history = []
    for engine, r, w, cycles, kind in program[0] + program[1]:
        if kind == 0:               # an engine that may be unused yet learns a time (free_ns > 0, count 0)
            tl.wait(waiter, tl.signal(engine))
            continue
        free = tl.engines[engine].free_ns
        if kind < 5:
            ev = tl.place_rw(engine, "op", cycles, fps[r], fps[w])
        else:
            ev = tl.place(engine, "op", cycles, reads=[fps[r]], writes=[fps[w]])
        expect = _data_start(history, [fps[r]], [fps[w]], engine, free)
        assert ev.start_ns >= expect
        if not _folded(tl):
            assert ev.start_ns == expect
        history.append((fps[r], False, ev.end_ns, engine))
        history.append((fps[w], True, ev.end_ns, engine))


def _race_by_brute_force(history, reads, writes, eng):
    for fps, is_write in ((reads, False), (writes, True)):
        for fp in fps:
            for (o, w, e, seq) in history:
                if e != eng.name and (is_write or w) and eng.clock.get(e, 0) < seq and fp.overlaps_exactly(o):
                    return True
    return False


@settings(max_examples=60, deadline=None)
@given(_program(20, 80))
def test_sync_order_races_with_late_engines_match_brute_force(program):
    """Synchronisation is frequent (kind >= 3 syncs before placing), so programs run a while before a race."""
    fps = _views()
    tl = Timeline(ENGINES)
    history = []
    names = sorted(ENGINES)
    with configure(check_races=True):
        for engine, r, w, cycles, kind in program[0] + program[1]:
            if kind >= 3:       # the engine first waits for the one it names (often everyone: a barrier)
                if kind == 9:
                    tl.barrier()
                else:
                    tl.wait(engine, tl.signal(names[(r + w) % len(names)]))
            eng = tl.engines[engine]
            expect = _race_by_brute_force(history, [fps[r]], [fps[w]], eng)
            folded = _folded(tl)
            try:
                ev = tl.place(engine, "op", cycles, reads=[fps[r]], writes=[fps[w]], order="sync")
            except RaceError:
                assert expect
                return
            assert not expect or folded          # a fold may forget the oldest accesses (documented)
            if folded:
                return
            history.append((fps[r], False, engine, eng.seq))
            history.append((fps[w], True, engine, eng.seq))
            assert ev.end_ns > ev.start_ns
