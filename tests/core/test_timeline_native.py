"""The C data-order path of the timeline (core/native/timeline.c) against the pure-Python methods it
replaces (``PythonTimeline``): random programs of ``place`` calls give bit-identical events, identical
remembered state (accesses, buckets, wide lists, prefix maxima, horizons, archives) and the same
``RaceError`` / ``unordered`` answers. Also: bad input raises (never crashes), and without a compiler or
with ``NPUSIM_NATIVE_TIMELINE=0`` the Python methods run."""
import os
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure
from npusim.core import Memory, timeline, timeline_native
from npusim.core.access_log import FP, EVENT, INDEX_AFTER, build_index
from npusim.core.errors import RaceError
from npusim.core.timeline import PythonTimeline, Timeline
from npusim.core.view import Footprint

native = pytest.mark.skipif(timeline._NATIVE is None, reason="the timeline's C extension is not built here "
                            "(no C compiler, no Python.h, or NPUSIM_NATIVE=0)")

ENGINES = {"vector": 0.96e9, "scalar": 1.4e9, "gpsimd": 1.4e9, "dma-q0": 1e9, "tensor": 1.12e9}
SBUF = Memory("sbuf", lane_bytes=1 << 16, lanes=128)
HBM = Memory("hbm", 1 << 20)


def _fp(mem, lane_lo, lanes, lo, size):
    if mem is HBM:
        return Footprint(HBM, 0, 1, lo, lo + size)
    return Footprint(SBUF, lane_lo, lane_lo + lanes, lo, lo + size)


footprint = st.builds(
    _fp, st.sampled_from([SBUF, SBUF, HBM]), st.integers(0, 127), st.integers(1, 128),
    st.integers(0, 60) .map(lambda k: 64 * k),
    st.one_of(st.integers(0, 4) .map(lambda k: 64 * k),           # empty or a few buckets
              st.integers(1, 300),                                   # unaligned
              st.integers(8, 40).map(lambda k: 256 * k)))           # wide: more than BUCKET_SPAN buckets
step = st.tuples(
    st.sampled_from(sorted(ENGINES)), st.lists(footprint, max_size=3), st.lists(footprint, max_size=2),
    st.one_of(st.integers(1, 64), st.integers(1000, 40000)),       # cycles: short and long instructions
    st.sampled_from([0.0, 0.0, 0.0, 5.5, 120000.0]),               # not_before_ns
    st.sampled_from(["data"] * 6 + ["sync", "none"]),
    st.sampled_from([None, None, None, None, "unordered", "signal"]))


def _hex(x):
    return x.hex() if isinstance(x, float) else x


def _event(e):
    return (e.engine, e.name, _hex(e.start_ns), _hex(e.end_ns), e.cycles, e.nbytes, e.source)


def _acc(a, events):
    """An access with its footprint and event by value (the two timelines hold distinct event objects)."""
    return (_hex(a[0]), a[1], a[2], a[3], id(a[FP]), events[id(a[EVENT])], a[6], a[7])


def _bucket(b, events):
    return [_hex(x) if i % 2 == 1 or i == 0 else _acc(x, events) if isinstance(x, list) else x
            for i, x in enumerate(b)]


def _state(tl):
    """Everything the timeline remembers, by value."""
    events = {id(e): i for i, e in enumerate(tl.trace.events)}
    out = {}
    for mid, log in tl._logs.items():
        out[mid] = (
            [_acc(a, events) for a in log.accesses], _hex(log.horizon), log.prune_at, log.engine,
            [_acc(a, events) for a in log.archive], sorted(log.archive_for), _hex(log.archive_horizon),
            log.shift, {k: _bucket(b, events) for k, b in log.buckets.items()}, _bucket(log.wide, events),
            log.indexed, [_hex(m) for m in log.ends_max], log.has_sync, _hex(log.write_end))
    engines = [(e.name, _hex(e.free_ns), _hex(e.busy_ns), e.count, e.seq, dict(e.clock))
               for e in tl.engines.values()]
    return out, engines, [e.name for e in tl._used]


def _do(tl, engine, reads, writes, cycles, not_before, order):
    """One placement: its event, or the RaceError text (same source line for both timelines). One write in
    data order goes through ``place_data`` every other time (its events must equal ``place``'s)."""
    try:
        if order == "data" and len(writes) == 1 and cycles % 2:
            return _event(tl.place_data(engine, "op", cycles, tuple(reads), writes[0], cycles, 0, None, not_before))
        return _event(tl.place(engine, "op", cycles, reads=reads, writes=writes, order=order,
                               not_before_ns=not_before, nbytes=cycles))
    except RaceError as e:
        return f"RaceError: {e}"


def _unordered(tl, reads, writes, engine):
    events = {id(e): i for i, e in enumerate(tl.trace.events)}
    return [(u.engine, events[id(u.event)], u.seq, u.write) for u in tl.unordered(reads, writes, engine)]


def _run_both(steps):
    c, py = Timeline(ENGINES), PythonTimeline(ENGINES)
    tokens = {}
    for engine, reads, writes, cycles, not_before, order, extra in steps:
        assert _do(c, engine, reads, writes, cycles, not_before, order) == \
            _do(py, engine, reads, writes, cycles, not_before, order)
        if extra == "unordered":
            assert _unordered(c, reads, writes, engine) == _unordered(py, reads, writes, engine)
        elif extra == "signal":      # a later instruction of another engine waits for this one
            tokens = {id(tl): tl.signal(engine) for tl in (c, py)}
        elif tokens:
            other = "vector" if engine != "vector" else "scalar"
            for tl in (c, py):
                tl.wait(other, tokens[id(tl)])
            tokens = {}
        assert c._dependencies_end(reads, writes, engine, 0.0).hex() == \
            py._dependencies_end(reads, writes, engine, 0.0).hex()
    assert _state(c) == _state(py)
    return c


@native
def test_the_c_methods_are_in_use():
    """Timeline takes its data-order methods from the extension; PythonTimeline from Python."""
    assert Timeline._dependencies_end is timeline._NATIVE.TimelineCore._dependencies_end
    assert Timeline._remember is timeline._NATIVE.TimelineCore._remember
    assert PythonTimeline._dependencies_end is Timeline._dependencies_end_py


@native
@settings(max_examples=120, deadline=None)
@given(st.lists(step, min_size=1, max_size=250))
def test_c_and_python_timelines_agree(steps):
    with configure(check_races=True):
        _run_both(steps)


@native
@settings(max_examples=40, deadline=None)
@given(st.lists(step, min_size=1, max_size=250), st.data())
def test_c_and_python_agree_with_a_late_first_engine(steps, data):
    """Pruning archives accesses while an engine is unused; its first instructions consult the archive."""
    late = data.draw(st.sampled_from(sorted(ENGINES)))
    early = [s for s in steps if s[0] != late]
    later = [s for s in steps if s[0] == late]
    with configure(check_races=True):
        _run_both(early + later)


@native
def test_a_long_program_indexes_folds_and_archives_identically():
    """A deterministic program that reaches every branch: logs indexed (a scan past INDEX_AFTER), the
    MAX_TRACKED fold into a horizon, bucket cleaning, wide accesses, and the archive of a late engine."""
    steps = []
    for i in range(1500):
        fp = _fp(SBUF, (i * 7) % 100, 16, 64 * (i % 40), 64 * (1 + i % 3))
        wide = _fp(SBUF, 0, 128, 0, 256 * 20)
        steps.append(("vector", [], [fp], 20000, 0.0, "data", None))           # vector runs far ahead
        steps.append(("scalar", [fp], [_fp(HBM, 0, 1, 64 * (i % 50), 64)], 3, 0.0, "data", None))
        if i % 50 == 7:
            steps.append(("gpsimd", [wide], [], 5, 0.0, "data", None))
        if i % 97 == 3:
            steps.append(("scalar", [], [_fp(SBUF, 0, 128, 100, 0)], 1, 0.0, "data", None))   # an empty box
    steps += [("tensor", [_fp(SBUF, 0, 128, 0, 4096)], [_fp(HBM, 0, 1, 0, 4096)], 9, 0.0, "data", None)]
    tl = _run_both(steps)
    logs = list(tl._logs.values())
    assert any(log.indexed for log in logs)
    assert any(log.horizon for log in logs)
    assert any(len(log.wide) > 2 for log in logs)
    assert any(len(log.accesses) > INDEX_AFTER for log in logs)
    assert any(log.archive_horizon for log in logs)      # the archive of the late engine overflowed


@native
def test_bad_input_raises_like_python():
    """A footprint without the attributes, a time that is not a number, a log corrupted: Python errors,
    no crash."""
    for cls in (Timeline, PythonTimeline):
        tl = cls(ENGINES)
        fp = _fp(SBUF, 0, 4, 0, 64)
        tl.place("vector", "w", 10, writes=[fp])
        with pytest.raises(AttributeError):
            tl._dependencies_end([object()], [], "scalar", 0.0)
        with pytest.raises(AttributeError):
            tl._remember([object()], [], 1.0, "scalar", 1, None, False)
        with pytest.raises(TypeError):
            tl._dependencies_end([fp], [], "scalar", "late")
        with pytest.raises(TypeError):
            tl._dependencies_end(5, [], "scalar", 0.0)
        tl._logs[SBUF.id].accesses.append("not an access")
        tl._logs[SBUF.id].ends_max.append(1e30)
        with pytest.raises((TypeError, IndexError)):
            tl._dependencies_end([fp], [], "scalar", 0.0)
    tl = Timeline(ENGINES)
    tl.place("vector", "w", 10, writes=[fp])
    tl._logs[SBUF.id].ends_max.clear()
    with pytest.raises(IndexError):
        tl._dependencies_end([fp], [], "scalar", 0.0)


@native
def test_an_int_time_stays_the_same_object():
    """A not_before given as an int wins over float ends exactly as Python compares them, and is returned
    itself (Python's max keeps the object)."""
    for cls in (Timeline, PythonTimeline):
        tl = cls(ENGINES)
        fp = _fp(SBUF, 0, 4, 0, 64)
        tl.place("vector", "w", 1000, writes=[fp])           # ends at 1041.666... ns
        assert type(tl._dependencies_end([fp], [], "scalar", 2000)) is int
        assert tl._dependencies_end([fp], [], "scalar", 1000) == tl.engines["vector"].free_ns


def test_the_cache_key_holds_the_python_abi():
    assert any(sysconfig.get_config_var("SOABI") in f for f in timeline_native.FLAGS)


def test_a_failed_build_falls_back_with_a_warning(monkeypatch):
    monkeypatch.setattr(timeline_native.native_build, "build_library", lambda *a: (None, "error: boom"))
    monkeypatch.delenv("NPUSIM_NATIVE", raising=False)
    monkeypatch.delenv("NPUSIM_NATIVE_TIMELINE", raising=False)
    with pytest.warns(RuntimeWarning, match="boom"):
        assert timeline_native.load() is None
    monkeypatch.setattr(timeline_native.native_build, "build_library", lambda *a: (None, "no C compiler (...)"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert timeline_native.load() is None


def _python_path_in_subprocess(env):
    code = ("from npusim.core import timeline as t, Memory, TensorView\n"
            "tl = t.Timeline({'vector': 1e9, 'scalar': 1e9})\n"
            "m = Memory('sbuf', lane_bytes=4096, lanes=128)\n"
            "v = TensorView(m, 0, (4, 16), None, 'float32').footprint\n"
            "tl.place('vector', 'w', 100, writes=[v])\n"
            "print(t._NATIVE is None, t.Timeline.__mro__[1].__name__, tl.place('scalar', 'r', 1, reads=[v]).start_ns)")
    src = os.path.join(os.path.dirname(timeline.__file__), "..", "..")
    out = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": os.path.abspath(src)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_without_a_compiler_the_python_timeline_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "NPUSIM_NATIVE", "NPUSIM_NATIVE_TIMELINE")}
    env["PATH"] = str(tmp_path)                    # no cc, gcc or clang
    env["NPUSIM_CACHE"] = str(tmp_path / "cache")  # nor a library built earlier
    assert _python_path_in_subprocess(env) == ["True", "object", "100.0"]


def test_npusim_native_timeline_0_forces_python():
    env = {**os.environ, "NPUSIM_NATIVE_TIMELINE": "0"}
    assert _python_path_in_subprocess(env) == ["True", "object", "100.0"]


@native
def test_place_takes_its_arguments_as_the_python_method_does():
    """Generators and None entries in reads/writes, keywords for every parameter, a bad order, a missing
    engine: the same events and errors from the C and the Python ``place``/``place_rw``."""
    fps = [_fp(SBUF, 0, 8, 64 * i, 128) for i in range(4)]

    def program(tl):
        out = [tl.place("vector", "a", 100, writes=(f for f in fps[:2]), nbytes=4, elements=2, args={"k": 1}),
               tl.place(engine="scalar", name="b", cycles=7, reads=[None, fps[1]], writes=(None,), source="x.py:3"),
               tl.place("gpsimd", "c", 3.5, reads=fps[2:], order="none", not_before_ns=7),
               tl.place_rw("scalar", "d", 9, fps[0], fps[3], 1, 2, None),
               tl.place_rw(engine="vector", name="e", cycles=1, read=fps[3], write=fps[0], args={"z": 0})]
        errors = []
        for bad in (lambda: tl.place("vector", "f", 1, order="other"), lambda: tl.place("nope", "g", 1)):
            try:
                bad()
            except (ValueError, KeyError) as e:
                errors.append(f"{type(e).__name__}: {e}")
        return [_event(e) + (e.args, e.elements, e.freq_hz, e.core) for e in out], errors

    c, py = program(Timeline(ENGINES)), program(PythonTimeline(ENGINES))
    assert c == py
    assert c[1] == ["ValueError: order must be 'data', 'sync' or 'none', not 'other'", "KeyError: 'nope'"]
    assert c[0][1][-4] is None and c[0][0][-4] == {"k": 1}
    with pytest.raises(TypeError):
        Timeline(ENGINES).place("vector", "x", 1, bogus=1)
    with pytest.raises(TypeError):
        Timeline(ENGINES).place("vector", "x")


@native
@settings(max_examples=60, deadline=None)
@given(st.lists(step, min_size=1, max_size=120))
def test_place_data_equals_place(steps):
    """``place_data`` (positional, one write, data order) gives ``place``'s events and state, on the C and
    the Python timeline."""
    data = [(e, r, w[:1] or [_fp(SBUF, 0, 1, 0, 64)], c, nb) for e, r, w, c, nb, _, _ in steps]
    runs = []
    for cls in (Timeline, PythonTimeline):
        for via_data in (False, True):
            tl, events = cls(ENGINES), []
            for engine, reads, writes, cycles, not_before in data:
                if via_data:
                    ev = tl.place_data(engine, "op", cycles, reads, writes[0], 3, 2, {"a": 1}, not_before)
                else:
                    ev = tl.place(engine, "op", cycles, reads=reads, writes=writes, nbytes=3, elements=2,
                                  args={"a": 1}, not_before_ns=not_before)
                events.append(_event(ev)[:-1] + (ev.elements, ev.args))     # (the source: two call lines)
            runs.append((events, _state(tl)))
    assert all(run == runs[0] for run in runs[1:])


@native
def test_place_data_checks_its_arguments():
    tl = Timeline(ENGINES)
    fp = _fp(SBUF, 0, 4, 0, 64)
    with pytest.raises(TypeError):
        tl.place_data("vector", "x", 1, fp, fp, 0, 0, None, 0.0)        # reads not a list or tuple
    with pytest.raises(TypeError):
        tl.place_data("vector", "x", 1, (), fp)
    with pytest.raises(KeyError):
        tl.place_data("nope", "x", 1, (), fp, 0, 0, None, 0.0)


@native
def test_a_footprint_with_properties_reads_them():
    """Boxes whose fields are properties (no slots): the C path reads them through Python's attribute
    access, as the Python path does."""
    class Box:
        def __init__(self, lo):
            self.memory, self._lo = SBUF, lo
        lane_lo = property(lambda self: 0)
        lane_hi = property(lambda self: 4)
        lo = property(lambda self: self._lo)
        hi = property(lambda self: self._lo + 64)

    def program(tl):
        tl.place("vector", "w", 1000, writes=[Box(0)])
        return [_event(tl.place("scalar", "r", 1, reads=[Box(lo)])) for lo in (0, 32, 64)]

    c = program(Timeline(ENGINES))
    assert c == program(PythonTimeline(ENGINES))
    assert c[0][2] != c[2][2]       # the first read waits for the write, the third does not overlap it


@native
def test_the_remembered_log_of_a_memory_follows_the_logs_dict():
    """The C path remembers the last memories' logs; clearing or replacing ``_logs`` (or forget_accesses)
    drops them: no access of a forgotten log delays a later instruction, on either timeline."""
    fp = _fp(SBUF, 0, 4, 0, 64)
    for cls in (Timeline, PythonTimeline):
        tl = cls(ENGINES)
        tl.place("vector", "w", 1000, writes=[fp])
        assert tl._dependencies_end([fp], [], "scalar", 0.0) > 0
        tl._logs.clear()
        assert tl._dependencies_end([fp], [], "scalar", 0.0) == 0.0
        tl.place("vector", "w", 1000, writes=[fp])
        assert list(tl._logs) == [SBUF.id]
        tl._logs = {}
        assert tl._dependencies_end([fp], [], "scalar", 0.0) == 0.0
        tl.place("vector", "w", 1000, writes=[fp])
        tl.forget_accesses()
        assert tl._dependencies_end([fp], [], "scalar", 0.0) == 0.0 and tl._logs == {}


@native
def test_a_native_logs_index_is_its_own():
    """``buckets`` and ``wide`` of the native log are snapshots: only an empty index may be assigned."""
    tl = Timeline(ENGINES)
    for i in range(8):
        tl.place("vector", "w", 100, writes=[_fp(SBUF, 0, 4, 64 * i, 64)])
    log = tl._logs[SBUF.id]
    build_index(log)
    assert log.indexed and log.buckets
    log.buckets[0].append("junk")                   # a snapshot: the index is unchanged
    assert "junk" not in log.buckets[0]
    with pytest.raises(TypeError):
        log.buckets = {1: []}
    with pytest.raises(TypeError):
        log.wide = [1, 2, 3]
    log.buckets = {}
    assert log.buckets == {}


@native
def test_numpy_float_cycles_give_the_same_events():
    """Cycles as numpy float64 make ends that are a float subclass: the C index compares them as Python
    does (events, state, races identical)."""
    steps = []
    for i in range(1500):
        fp = _fp(SBUF, (i * 7) % 100, 16, 64 * (i % 40), 64 * (1 + i % 3))
        steps.append(("vector", [], [fp], np.float64(20000.5), 0.0, "data", None))
        steps.append(("scalar", [fp], [_fp(HBM, 0, 1, 64 * (i % 50), 64)], np.float64(3), 0.0, "data", None))
        if i % 50 == 7:
            steps.append(("gpsimd", [_fp(SBUF, 0, 128, 0, 256 * 20)], [], np.float64(5), 0.0, "data", None))
    with configure(check_races=True):
        tl = _run_both(steps)
    assert any(log.indexed for log in tl._logs.values())
