"""native_dma (native/dma_engines.c) answers what dma.py's Python code answers, bit for bit: the same
first fits and the same interval records after any sequence of reservations (in order, out of order,
nested, past KEEP, int or float or -0.0 times: the C code hands back what it does not cover)."""
import math

import numpy as np

import pytest
from hypothesis import given, settings, strategies as st

from npusim.nki import native_dma
from npusim.nki.dma import DmaEngines

N = 5


def _native():
    ext = native_dma.ext()
    if ext is None:
        pytest.skip("no C compiler (or NPUSIM_NATIVE=0): the native DMA bookkeeping is off")
    return ext


def _state(eng: DmaEngines):
    """Every record, with the type and sign of each number (1.0 == 1 == True; -0.0 == 0.0)."""
    def exact(xs):
        return [(type(x), math.copysign(1.0, x) if x == 0 else x) for x in xs]
    return ([exact(s) for s in eng._starts], [exact(e) for e in eng._ends], exact(eng._floor),
            exact(eng._latest), eng._sorted, eng._cls, eng._members)


groups = st.lists(st.integers(0, N - 1), min_size=1, max_size=N, unique=True).map(sorted)
times = st.floats(0, 3000, allow_nan=False) | st.integers(0, 3000) | st.just(-0.0)
op = st.tuples(groups, times, st.floats(0.5, 200, allow_nan=False) | st.integers(1, 200), st.booleans(),
               st.booleans())


@settings(max_examples=150, deadline=None)
@given(st.lists(op, min_size=1, max_size=150), st.integers(2, 40))
def test_native_equals_python(ops, keep):
    ext = _native()
    c, py = DmaEngines(N), DmaEngines(N)
    c._native, py._native = ext, None
    c.KEEP = py.KEEP = keep
    for gs, t, d, fitted, as_tuple in ops:
        g = tuple(gs) if as_tuple else gs
        a, b = c.earliest(g, t, d), py.earliest(g, t, d)
        assert (type(a), a, math.copysign(1.0, a)) == (type(b), b, math.copysign(1.0, b))
        s = b if fitted else t
        c.reserve(g, s, d)
        py.reserve(g, s, d)
        assert _state(c) == _state(py)


def test_native_answers_the_common_case_and_hands_back_the_rest():
    ext = _native()
    starts, ends, latest = [[10.0]], [[20.0]], [20.0]
    assert ext.earliest([0], starts, ends, [0.0], latest, 15.0, 5.0) == 20.0
    assert ext.earliest([0], starts, ends, [0.0], latest, 0.0, 5.0) == 0.0
    assert ext.earliest([0], starts, ends, [0.0], latest, 15, 5.0) is None        # an int: Python's
    assert ext.reserve_after([0], starts, ends, latest, 30.0, 5.0, 8) is True
    assert (starts, ends, latest) == ([[10.0, 30.0]], [[20.0, 35.0]], [35.0])
    for s, d, keep in ((25.0, 1.0, 8),          # before the last start: an insert
                       (31.0, 1.0, 8),          # inside the last interval: nested
                       (40.0, 1.0, 2),          # past KEEP: folding
                       (40, 1.0, 8)):           # an int
        assert ext.reserve_after([0], starts, ends, latest, s, d, keep) is False
        assert (starts, ends, latest) == ([[10.0, 30.0]], [[20.0, 35.0]], [35.0])      # nothing changed


def test_the_switch_turns_it_off(monkeypatch):
    _native()
    monkeypatch.setenv("NPUSIM_NATIVE_DMA", "0")
    native_dma.reset()
    try:
        assert native_dma.ext() is None and DmaEngines(2)._native is None
    finally:
        monkeypatch.delenv("NPUSIM_NATIVE_DMA")
        native_dma.reset()
    assert native_dma.ext() is not None


# ---- the plan key of a basic index (native/slicing.c view_key == tensor._view_key) ----

from npusim.nki.tensor import DynSlice, _view_key  # noqa: E402

_field = st.none() | st.integers(-3, 300) | st.sampled_from([True, False, 1.0, np.int64(2), np.float32(1), "1"])
_index = st.one_of(st.integers(-3, 300), st.sampled_from([True, np.int64(1), 1.0, Ellipsis, None, [1]]),
                   st.builds(slice, _field, _field, _field), st.builds(DynSlice, _field, _field, _field))


@settings(max_examples=300, deadline=None)
@given(st.lists(_index, max_size=5), st.booleans(), st.integers(1, 10 ** 6), st.sampled_from([0, 196608]))
def test_native_view_key_equals_python(key, as_tuple, sig, lane_bytes):
    ext = native_dma.slicing()
    if ext is None:
        pytest.skip("no C compiler (or NPUSIM_NATIVE=0): the native slicing key is off")
    k = tuple(key) if as_tuple or len(key) != 1 else key[0]
    want = _view_key(sig, lane_bytes, k, DynSlice)
    got = ext.view_key(sig, lane_bytes, k, DynSlice)
    assert got == want
    if want is not None:
        assert [type(x) for x in got] == [type(x) for x in want]
        assert all(type(x) in (int, type(None), type) for x in want)
