"""The K = 1 matmul fast paths: blas's outer product (numpy, both orientations, with and without a strided
``out``) and the native C loop (native_outer) bit for bit against numpy's matmul on any float32 values
(NaN payloads, -0, Inf, underflow); the cases the C loop leaves to numpy."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import blas, isa_matmul, native_outer, run_context

F32 = np.float32

_bits = st.integers(0, 2**32 - 1)       # every float32 bit pattern: NaN payloads, -0, denormals
_edge = st.sampled_from([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFF812345,
                         0x3F800000, 0x00000001, 0x80000001, 0x1F800000, 0x9F800000])


def _f32(words) -> np.ndarray:
    return np.array(words, np.uint32).view(F32)


_OFF = "native outer off (no C compiler, or NPUSIM_NATIVE / NPUSIM_NATIVE_OUTER = 0)"
needs_native = pytest.mark.skipif(not native_outer.enabled(), reason=_OFF)


@pytest.fixture(params=["native", "numpy"])
def path(request, monkeypatch):
    """blas.matmul with the C loop (skipped without a compiler) and with numpy's _outer only (the same
    for every example: nothing to reset between them)."""
    if request.param == "native" and not native_outer.enabled():
        pytest.skip(_OFF)
    if request.param == "numpy":
        monkeypatch.setattr(blas._native, "outer", lambda a, b, out: False)
    return request.param


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 40), st.integers(1, 40), st.data())
def test_outer_product_is_numpys_matmul_bit_for_bit(path, m, n, data):
    words = st.one_of(_bits, _edge)
    a = _f32(data.draw(st.lists(words, min_size=m, max_size=m))).reshape(1, m)
    b = _f32(data.draw(st.lists(words, min_size=n, max_size=n))).reshape(1, n)
    with np.errstate(all="ignore"):
        want = np.matmul(a.T, b)
        got = blas.matmul(a.T, b)
        # a strided out, as PSUM rows: every other row of a wider buffer
        buf = np.full((2 * m, n + 3), 7, F32)
        out = buf[::2, 1:n + 1]
        same = blas.matmul(a.T, b, out=out)
    assert got.shape == want.shape and same is out
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))
    # the rest of the buffer is untouched
    rest = buf.copy()
    rest[::2, 1:n + 1] = 7
    assert (rest == 7).all()


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 24), st.integers(1, 24), st.sampled_from([1, -1]), st.sampled_from([1, 2, -1]), st.data())
def test_native_outer_writes_what_numpy_does_through_any_strides(m, n, row_dir, col_step, data):
    """Rows in either direction, elements strided or reversed, a and b strided: the C loop's out equals
    blas._outer's (numpy) bit for bit, and it leaves every other byte alone."""
    words = st.one_of(_bits, _edge)
    a_src = _f32(data.draw(st.lists(words, min_size=2 * m, max_size=2 * m))).reshape(2 * m, 1)
    b_src = _f32(data.draw(st.lists(words, min_size=2 * n, max_size=2 * n))).reshape(1, 2 * n)
    a, b = a_src[::2], b_src[:, ::2]
    if np.isnan(a).any() and np.isnan(b).any():
        a = np.where(np.isnan(a), F32(1.5), a).astype(F32)
    wide = np.abs(col_step) * n
    buf = np.full((2 * m, wide + 2), 9, F32)
    out = buf[::2 * row_dir, 1:1 + wide][:, ::col_step] if col_step != -1 else buf[::2 * row_dir, 1:1 + n][:, ::-1]
    if col_step == -1 and n > 1:
        assert native_outer.outer(a, b, out) is False       # a negative element stride: numpy's
        return
    ref = np.empty((m, n), F32)
    with np.errstate(all="ignore"):
        blas._outer(a, b, ref)
        assert native_outer.outer(a, b, out) is True
    np.testing.assert_array_equal(out.view(np.uint32), ref.view(np.uint32))
    rest = buf.copy()
    rest[::2 * row_dir, 1:1 + wide][:, ::col_step] = 9
    assert (rest == 9).all()


@needs_native
def test_native_outer_leaves_to_numpy_what_it_does_not_cover():
    a, b = np.ones((4, 1), F32), np.full((1, 3), 2, F32)
    nan = F32(np.nan)
    both = (np.array([[nan], [1]], F32), np.array([[nan, 1, 2]], F32), np.zeros((2, 3), F32))
    ro = np.zeros((4, 3), F32)
    ro.flags.writeable = False
    shared = np.zeros(64, F32)
    cases = {
        "both NaN": both,
        "float64 out": (a, b, np.zeros((4, 3))),
        "float64 a": (a.astype(np.float64), b, np.zeros((4, 3), F32)),
        "3-D out": (a, b, np.zeros((4, 3, 1), F32)),
        "shape": (a, b, np.zeros((3, 4), F32)),
        "K = 2": (np.ones((4, 2), F32), b, np.zeros((4, 3), F32)),
        "read-only": (a, b, ro),
        "out meets a": (shared[:4].reshape(4, 1), b, shared[2:14].reshape(4, 3)),
        "rows overlap": (a, b, np.lib.stride_tricks.as_strided(shared, (4, 3), (4, 4))),
        "misaligned": (a, b, np.frombuffer(bytearray(64), np.uint8)[1:49].view(F32).reshape(4, 3)),
    }
    for why, (x, y, o) in cases.items():
        before = o.copy()
        assert native_outer.outer(x, y, o) is False, why
        np.testing.assert_array_equal(o, before)
    o = np.zeros((4, 3), F32)
    assert native_outer.outer(a, b, o) is True and (o == 2).all()


def test_native_outer_switch(monkeypatch):
    """NPUSIM_NATIVE=0 (or NPUSIM_NATIVE_OUTER=0) turns the C loop off: outer always says False."""
    try:
        for var in ("NPUSIM_NATIVE", "NPUSIM_NATIVE_OUTER"):
            monkeypatch.undo()
            monkeypatch.setenv(var, "0")
            native_outer.reset()
            assert not native_outer.enabled()
            assert native_outer.outer(np.ones((2, 1), F32), np.ones((1, 2), F32), np.zeros((2, 2), F32)) is False
    finally:
        monkeypatch.undo()          # the environment as it was, then decide again from it
        native_outer.reset()


def test_matmul_map_counts_launches_and_zeroes_when_the_count_wraps():
    """A launch taking the PSUM map over counts its generation up (the previous launch's marks no longer
    count as this launch's); at the last uint32 count it zeroes the map and starts again at 1."""
    from types import SimpleNamespace
    from npusim.nki.isa_matmul import _MatmulMap
    m = _MatmulMap(SimpleNamespace(size=64))
    m.take_over()
    assert m.gen == 1 and m.marked == set()
    m.map[:8] = 0xFF            # two elements marked by launch 0xFFFFFFFF
    m.marked.add((1, 0))
    m.gen = 0xFFFFFFFF
    m.take_over()
    assert m.gen == 1 and not m.map.any() and m.marked == set()
    m.map[:4] = 1
    m.take_over()
    assert m.gen == 2 and m.map[:4].any()       # no zeroing: gen 1's marks are simply not gen 2's


def _sb(values, dtype=nl.float32):
    t = nl.ndarray(values.shape, dtype, buffer=nl.sbuf)
    t.write(values)
    return t


def test_matmul_plan_geometry_fields_follow_the_key():
    """The plan's k1 / fp32_dst / dst_mn / use_map / ls_ns come from the operands' sigs and the chip, all in
    the key: a K = 1 fp32 call, then the same shapes with a bfloat16 moving, a strided row, a 3-D moving
    (not k1), and the same geometry on trn3 (no map) each take their own plan and give numpy's values."""
    rng = np.random.default_rng(5)
    s = rng.standard_normal((1, 8)).astype(F32)
    m = rng.standard_normal((1, 32)).astype(F32)

    def mm(chip, stationary, moving, shape=(8, 16)):
        with run_context(chip):
            ps = nl.ndarray(shape, nl.float32, buffer=nl.psum)
            nisa.nc_matmul(ps, stationary(), moving())
            return ps.numpy(), isa_matmul._MM_PLANS

    isa_matmul._MM_PLANS.clear()
    want = (s.T.astype(np.float64) @ m[:, :16].astype(np.float64)).astype(F32)
    got, plans = mm("trn2", lambda: _sb(s), lambda: _sb(m[:, :16]))
    np.testing.assert_array_equal(got, want)
    (plan,) = plans.values()
    assert plan.k1 and plan.fp32_dst and plan.dst_mn and plan.use_map and plan.ls_ns > 0
    bf = m[:, :16].astype(nl.bfloat16)
    got, plans = mm("trn2", lambda: _sb(s, nl.bfloat16), lambda: _sb(bf, nl.bfloat16))
    np.testing.assert_array_equal(got, s.astype(nl.bfloat16).astype(F32).T @ bf.astype(F32))
    assert len(plans) == 2 and not list(plans.values())[-1].k1
    got, plans = mm("trn2", lambda: _sb(s), lambda: _sb(m)[:, ::2])      # a row with an 8-byte stride
    np.testing.assert_array_equal(got, (s.T.astype(np.float64) @ m[:, ::2].astype(np.float64)).astype(F32))
    assert len(plans) == 3 and list(plans.values())[-1].k1
    got, plans = mm("trn2", lambda: _sb(s), lambda: _sb(m[:, :16].reshape(1, 2, 8)), shape=(8, 16))
    np.testing.assert_array_equal(got, want)
    assert len(plans) == 4 and not list(plans.values())[-1].k1
    got, plans = mm("trn3", lambda: _sb(s), lambda: _sb(m[:, :16]))
    np.testing.assert_array_equal(got, want)
    assert len(plans) == 5 and not list(plans.values())[-1].use_map


def _k1_launch(a, b, accumulate, general):
    """Two K = 1 matmuls into one PSUM tile (the second with ``accumulate``): ``general`` gives the
    operands and dst an extra size-1 dim, which takes the general path (reshaped contiguous copies, the
    product into a new array, then stored) instead of the K = 1 plan's."""
    m, n = a.shape[1], b.shape[1]
    with run_context("trn2") as run:
        s = _sb(a.reshape(1, m, 1)) if general else _sb(a)
        mv = _sb(b.reshape(1, n, 1)) if general else _sb(b)
        ps = nl.ndarray((m, n, 1) if general else (m, n), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, s, mv)
        nisa.nc_matmul(ps, s, mv, accumulate=accumulate)
        events = [(e.engine, e.start_ns, e.end_ns, e.cycles) for e in run.trace.events]
        return ps.numpy().reshape(m, n).view(np.uint32), events


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 32), st.integers(1, 32), st.sampled_from([None, True, False]), st.data())
def test_k1_matmul_plan_path_equals_the_general_path(path, m, n, accumulate, data):
    """nc_matmul's K = 1 plan path (inputs used as read, the product straight into PSUM; C or numpy)
    gives the general path's bits and timing, accumulating or not, on any float32 values."""
    words = st.one_of(_bits, _edge)
    a = _f32(data.draw(st.lists(words, min_size=m, max_size=m))).reshape(1, m)
    b = _f32(data.draw(st.lists(words, min_size=n, max_size=n))).reshape(1, n)
    fast, fast_events = _k1_launch(a, b, accumulate, general=False)
    slow, slow_events = _k1_launch(a, b, accumulate, general=True)
    np.testing.assert_array_equal(fast, slow)
    assert fast_events == slow_events
    with np.errstate(all="ignore"):
        r = np.matmul(a.T, b)
        want = r if accumulate is False else r + r      # None: the second write accumulates
    np.testing.assert_array_equal(fast, want.view(np.uint32))
