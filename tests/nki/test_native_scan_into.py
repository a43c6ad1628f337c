"""native/scan.c's ``scan(x0, x1, init, out, ...)`` writing the caller's output itself: equal to the numpy
reference (isa_vector._numpy_scan) bit for bit wherever it answers True, out untouched where it answers
False (a NaN in the result, or operands it does not take), for strided views and for an out that is an
input or overlaps one in a shared buffer (all inputs are read before out is written)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from npusim.nki import isa_vector, native_scan
from npusim.nki.alu import OPS

F32 = np.float32
fn = native_scan.kernel()
pytestmark = pytest.mark.skipif(fn is None, reason="no C compiler (native scan off)")

_SPECIALS = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, 1.1754942e-38, 1.0, -1.0, 0.5, 3.4028235e38,
                      -3.4028235e38, np.inf, -np.inf], F32)
_NANS = np.array([0x7FC00001, 0xFFC12345, 0x7FC00000, 0x7F800001], np.uint32).view(F32)


def _values(draw, n):
    bits = draw(st.lists(st.integers(0, 2**32 - 1), min_size=n, max_size=n))
    pick = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    special = draw(st.lists(st.integers(0, len(_SPECIALS) - 1), min_size=n, max_size=n))
    raw = np.array(bits, np.uint32).view(F32)
    raw = np.where(np.isnan(raw), F32(1.5), raw)          # NaNs only where asked for below
    v = np.where(np.array(pick) == 0, _SPECIALS[special], raw).astype(F32)
    if draw(st.integers(0, 7)) == 0:
        v[draw(st.integers(0, n - 1))] = _NANS[draw(st.integers(0, len(_NANS) - 1))]
    return v


@st.composite
def _cases(draw):
    p, n = draw(st.integers(1, 40)), draw(st.integers(1, 10))
    # one shared buffer of rows (like SBUF): x0, x1 and out are row windows of it at chosen offsets
    pitch = n + draw(st.integers(0, 3))
    rows = p + draw(st.integers(0, 4))
    buf = _values(draw, 3 * rows * pitch).reshape(3 * rows, pitch)
    where = [draw(st.integers(0, 2 * rows)) for _ in range(3)]
    col = [draw(st.integers(0, pitch - n)) for _ in range(3)]
    alias = draw(st.sampled_from(["apart", "out=x0", "out=x1", "any"]))
    if alias == "out=x0":
        where[2], col[2] = where[0], col[0]
    elif alias == "out=x1":
        where[2], col[2] = where[1], col[1]
    elif alias == "apart":
        where = [0, rows, 2 * rows]
    init = _values(draw, p if draw(st.booleans()) else 1)
    ops = (draw(st.sampled_from(sorted(native_scan.OP_CODES))), draw(st.sampled_from(sorted(native_scan.OP_CODES))))
    return buf, p, n, where, col, init, ops, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_scan_into_a_view_equals_numpy_bit_for_bit(case):
    buf, p, n, where, col, init, (o0, o1), r0, r1 = case
    views = [buf[w:w + p, c:c + n] for w, c in zip(where, col)]
    x0, x1 = views[0].copy(), views[1].copy()
    plan = isa_vector._ScanPlan(OPS[o0], OPS[o1], None, 0)
    with np.errstate(all="ignore"):
        want = np.ascontiguousarray(isa_vector._numpy_scan(plan, x0, x1, init.copy(), r0, r1))
    before = buf.copy()
    ok = fn(views[0], views[1], init, views[2], *plan.native, r0, r1)
    if ok:
        assert not np.isnan(want).any()
        np.testing.assert_array_equal(views[2].view(np.uint32), want.view(np.uint32))
        outside = np.ones(buf.shape, bool)
        outside[where[2]:where[2] + p, col[2]:col[2] + n] = False
        np.testing.assert_array_equal(buf.view(np.uint32)[outside], before.view(np.uint32)[outside])
    else:
        assert np.isnan(want).any()
        np.testing.assert_array_equal(buf.view(np.uint32), before.view(np.uint32))


def test_scan_into_declines_what_it_does_not_take():
    x = np.ones((4, 3), F32)
    out = np.zeros((4, 3), F32)
    init = np.zeros(1, F32)
    assert not fn(x.astype(np.float64), x, init, out, 2, 0, False, False)
    assert not fn(x, x, np.zeros(3, F32), out, 2, 0, False, False)       # init: 1 or P values
    assert not fn(x, x, init, np.zeros((4, 4), F32), 2, 0, False, False)   # out of another shape
    assert not fn(x, x, init, out, 3, 0, False, False)                     # no such op code
    assert not fn(x, x, init, np.broadcast_to(np.zeros(3, F32), (4, 3)), 2, 0, False, False)
    ro = np.zeros((4, 3), F32)
    ro.flags.writeable = False
    assert not fn(x, x, init, ro, 2, 0, False, False)
    assert not fn(x.reshape(4, 3, 1), x, init, out, 2, 0, False, False)
    assert (out == 0).all()
    assert fn(x, x, init, out, 2, 0, False, False) and (out == [1, 2, 3]).all()   # 1 * prev + 1


def test_scan_of_x1_into_itself_reversed_ops():
    """out is x1 itself, column-major strides on x0: the reference recurrence written here."""
    x0 = np.asfortranarray(np.arange(12, dtype=F32).reshape(4, 3))
    x1 = np.full((4, 3), 0.5, F32)
    want = np.empty((4, 3), F32)
    prev = np.full(4, F32(2.0))
    for i in range(3):
        prev = (prev - x0[:, i]).astype(F32) * x1[:, i]
        want[:, i] = prev
    assert fn(x0, x1, np.array([2.0], F32), x1, 1, 2, True, False)
    np.testing.assert_array_equal(x1, want)
