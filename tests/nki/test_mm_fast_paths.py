"""The K = 1 matmul fast paths: blas's outer product (numpy, both orientations, with and without a strided
``out``) and the native C loop (native_outer) bit for bit against numpy's matmul on any float32 values
(NaN payloads, -0, Inf, underflow); the cases the C loop leaves to numpy."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from npusim.nki import blas, native_outer

F32 = np.float32

_bits = st.integers(0, 2**32 - 1)       # every float32 bit pattern: NaN payloads, -0, denormals
_edge = st.sampled_from([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0xFF812345,
                         0x3F800000, 0x00000001, 0x80000001, 0x1F800000, 0x9F800000])


def _f32(words) -> np.ndarray:
    return np.array(words, np.uint32).view(F32)


needs_native = pytest.mark.skipif(not native_outer.enabled(), reason="no C compiler (native outer off)")


@pytest.fixture(params=["native", "numpy"])
def path(request, monkeypatch):
    """blas.matmul with the C loop (skipped without a compiler) and with numpy's _outer only (the same
    for every example: nothing to reset between them)."""
    if request.param == "native" and not native_outer.enabled():
        pytest.skip("no C compiler (native outer off)")
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
    if col_step == -1:
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
    for var in ("NPUSIM_NATIVE", "NPUSIM_NATIVE_OUTER"):
        monkeypatch.setenv(var, "0")
        native_outer.reset()
        try:
            assert not native_outer.enabled()
            assert native_outer.outer(np.ones((2, 1), F32), np.ones((1, 2), F32), np.zeros((2, 2), F32)) is False
        finally:
            monkeypatch.delenv(var)
            native_outer.reset()
