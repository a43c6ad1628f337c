"""Timeline ordering (data and sync modes, races), clocks, and the trace's three views."""
import json

import numpy as np
import pytest

import npusim
from npusim import configure
from npusim.core import Memory, RaceError, TensorView, Timeline


@pytest.fixture
def mem():
    return Memory("sbuf", lane_bytes=4096, lanes=8)


def tile(mem, offset, n=256):
    return TensorView(mem, offset, (8, n // 4), (4096, 4), "float32").footprint


def test_independent_engines_overlap_dependent_serialise(mem):
    tl = Timeline({"dma": 1e9, "vector": 1e9})
    a, b = tile(mem, 0), tile(mem, 1024)
    e1 = tl.place("dma", "load", 1000, writes=[a])
    e2 = tl.place("vector", "op", 500, reads=[b], writes=[tile(mem, 2048)])     # independent
    assert (e1.start_ns, e2.start_ns) == (0.0, 0.0)
    e3 = tl.place("vector", "use", 500, reads=[a])                              # RAW on a
    assert e3.start_ns == e1.end_ns == 1000.0
    e4 = tl.place("dma", "overwrite-b", 100, writes=[b])                        # WAR on b (read by e2)
    assert e4.start_ns == max(e1.end_ns, e2.end_ns)
    e5 = tl.place("vector", "write-a", 100, writes=[tile(mem, 0)])              # WAW after e1; also after e3 in order
    assert e5.start_ns == e3.end_ns
    e6 = tl.place("dma", "reads-a-again", 100, reads=[a])                      # RAW on e5's write
    assert e6.start_ns == e5.end_ns


def test_reads_never_wait_for_reads(mem):
    tl = Timeline({"x": 1e9, "y": 1e9})
    a = tile(mem, 0)
    tl.place("x", "r1", 1000, reads=[a])
    e = tl.place("y", "r2", 10, reads=[a])
    assert e.start_ns == 0.0


def test_per_engine_clocks(mem):
    tl = Timeline({"BDC": 550e6, "GDMA": 575e6})
    e = tl.place("BDC", "okk_bdc_exp", 550, order="none")
    assert e.dur_ns == pytest.approx(1000.0) and e.cycles == 550
    g = tl.place("GDMA", "copy", 575, order="none")
    assert g.dur_ns == pytest.approx(1000.0)
    assert g.end_cycle == pytest.approx(575)


def test_sync_mode_reports_unordered_conflict(mem):
    tl = Timeline({"PIPE_MTE2": 1e9, "PIPE_V": 1e9})
    x = tile(mem, 0)
    tl.place("PIPE_MTE2", "DataCopy", 1000, writes=[x], order="sync")
    with pytest.raises(RaceError, match=r"read-after-write.*Add on PIPE_V.*DataCopy on PIPE_MTE2"):
        tl.place("PIPE_V", "Add", 100, reads=[x], order="sync")


def test_sync_mode_flag_orders_and_moves_time(mem):
    tl = Timeline({"PIPE_MTE2": 1e9, "PIPE_V": 1e9})
    x = tile(mem, 0)
    tl.place("PIPE_MTE2", "DataCopy", 1000, writes=[x], order="sync")
    tok = tl.signal("PIPE_MTE2")                         # SetFlag<MTE2_V>
    tl.wait("PIPE_V", tok)                               # WaitFlag<MTE2_V>
    e = tl.place("PIPE_V", "Add", 100, reads=[x], order="sync")
    assert e.start_ns == 1000.0
    # a write by MTE2 after the flag is unordered again (write-after-read)
    with pytest.raises(RaceError, match="write-after-read"):
        tl.place("PIPE_MTE2", "DataCopy", 10, writes=[x], order="sync")


def test_race_is_found_even_when_time_separates_the_two(mem):
    tl = Timeline({"a": 1e9, "b": 1e9})
    x = tile(mem, 0)
    tl.place("a", "w", 10, writes=[x], order="sync")
    tl.place("b", "long", 10_000, order="sync")          # b is busy long after a's write ended
    with pytest.raises(RaceError):
        tl.place("b", "r", 10, reads=[x], order="sync")


def test_barrier_orders_everything(mem):
    tl = Timeline({"a": 1e9, "b": 1e9, "c": 1e9})
    x = tile(mem, 0)
    tl.place("a", "w", 300, writes=[x], order="sync")
    assert tl.barrier() == 300.0
    e = tl.place("c", "r", 10, reads=[x], order="sync")
    assert e.start_ns == 300.0


def test_interleaved_views_do_not_race(mem):
    tl = Timeline({"a": 1e9, "b": 1e9})
    even = TensorView(mem, 0, (8, 16), (4096, 8), "float32").footprint
    odd = TensorView(mem, 4, (8, 16), (4096, 8), "float32").footprint
    tl.place("a", "w", 10, writes=[even], order="sync")
    tl.place("b", "w", 10, writes=[odd], order="sync")     # boxes overlap, bytes do not


def test_race_checks_can_be_switched_off(mem):
    tl = Timeline({"a": 1e9, "b": 1e9})
    x = tile(mem, 0)
    with configure(check_races=False):
        tl.place("a", "w", 10, writes=[x], order="sync")
        tl.place("b", "r", 10, reads=[x], order="sync")


def test_many_events_stay_correct_after_forgetting(mem):
    tl = Timeline({"dma": 1e9, "vector": 1e9})
    tiles = [tile(mem, 256 * (i % 16)) for i in range(400)]
    last = None
    for i, t in enumerate(tiles):
        ld = tl.place("dma", "load", 100, writes=[t])
        op = tl.place("vector", "op", 50, reads=[t])
        assert op.start_ns >= ld.end_ns
        last = op
    assert last.end_ns == pytest.approx(400 * 100 + 50)   # DMA-bound pipeline


def test_event_records_user_source_line(mem):
    tl = Timeline({"v": 1e9})
    e = tl.place("v", "op", 1)
    assert e.source.startswith("test_timeline_trace.py:")


def test_profile_collects_every_timeline_and_exports(tmp_path, mem):
    with npusim.profile() as prof:
        t1 = Timeline({"vector": 1e9, "dma-q0": 1e9}, core="nc0")
        t2 = Timeline({"PIPE_V": 1.8e9}, core="aiv1")
        t1.place("dma-q0", "nisa.dma_copy", 1300, nbytes=4096)
        t1.place("vector", "nisa.tensor_scalar", 512, elements=128 * 512)
        t2.place("PIPE_V", "AddReluCast", 64)
    tr = prof.trace
    assert len(tr) == 3 and tr.total_ns == pytest.approx(1300.0)
    doc = tr.to_chrome(tmp_path / "t.json")
    parsed = json.loads((tmp_path / "t.json").read_text())
    assert parsed == json.loads(json.dumps(doc, default=str))
    threads = {(e["pid"], e["args"]["name"]) for e in parsed["traceEvents"] if e["name"] == "thread_name"}
    procs = {e["args"]["name"] for e in parsed["traceEvents"] if e["name"] == "process_name"}
    assert {n for _, n in threads} == {"vector", "dma-q0", "PIPE_V"} and procs == {"nc0", "aiv1"}
    xs = [e for e in parsed["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in xs} == {"nisa.dma_copy", "nisa.tensor_scalar", "AddReluCast"}
    dma = next(e for e in xs if e["name"] == "nisa.dma_copy")
    assert dma["dur"] == pytest.approx(1.3) and dma["args"]["bytes"] == 4096 and dma["args"]["cycles"] == 1300
    text = tr.summary_text()
    assert "dma-q0" in text and "AddReluCast" in text and "util" in text
    tr.plot(tmp_path / "t.png")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    outside = Timeline({"v": 1e9})
    outside.place("v", "after", 1)
    assert len(tr) == 3                                   # nothing recorded after the block


def test_chrome_metadata_names_idle_engines_too():
    tl = Timeline({"GDMA": 575e6, "BDC": 550e6}, core="bm1684")
    tl.place("BDC", "okk_bdc_exp", 10)
    names = {e["args"]["name"] for e in tl.trace.to_chrome()["traceEvents"] if e["name"] == "thread_name"}
    assert names == {"GDMA", "BDC"}


def test_bookkeeping_stays_bounded_over_long_programs(mem):
    for order in ("data", "sync"):
        tl = Timeline({"a": 1e9, "b": 1e9, "idle": 1e9})
        for i in range(3000):
            x = tile(mem, 256 * (i % 16))
            tl.place("a", "w", 10, writes=[x], order=order)
            if order == "sync":
                tl.wait("b", tl.signal("a"))
            tl.place("b", "r", 10, reads=[x], order=order)
            if order == "sync":
                tl.wait("a", tl.signal("b"))
        assert max(len(v.accesses) for v in tl._logs.values()) <= Timeline.MAX_TRACKED


def test_place_accepts_generators_and_none_footprints():
    from npusim.core import Memory, TensorView, Timeline
    mem = Memory("m", 4096)
    a = TensorView(mem, 0, (16,), None, "float32")
    tl = Timeline({"dma": 1e9, "vec": 1e9})
    tl.place("dma", "load", 100, writes=(f for f in [a.footprint, None]))
    ev = tl.place("vec", "use", 10, reads=(f for f in [None, a.footprint]))
    assert ev.start_ns == 100.0          # the read waited for the write: the generator was not lost
