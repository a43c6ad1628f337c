"""The compute ops' per-call fast paths: legacy tiles take the checked-view shortcut (and a dead one still
raises), tensor_reduce's per-geometry plan (a changed key field misses it; values against numpy), the
native scan's view addresses, the constant scan initial kept in its plan, blas's one-reduce NaN test."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import blas, isa_reduce, isa_vector, native_scan, rules, run_context
from npusim.nki.legacy.tensor import LegacyTensor, legacy

F32 = np.float32


def _tile(values, dtype=nl.float32):
    t = nl.ndarray(values.shape, dtype)
    t.write(values)
    return t


# ------------------------------------------------------------------------------------- legacy operands

def test_checked_legacy_tiles_skip_rules_tile(monkeypatch):
    """A legacy tile (an NkiTensor subclass) that passed its per-view rules is not checked again, as a
    current-API tile is not; its first use is."""
    calls = []
    real = rules.tile
    monkeypatch.setattr(rules, "tile", lambda api, p, t, *a, **k: calls.append(p) or real(api, p, t, *a, **k))
    with run_context("trn2"):
        a, b = legacy(_tile(np.full((8, 4), 2, F32))), legacy(_tile(np.full((8, 4), 3, F32)))
        d = legacy(nl.ndarray((8, 4), nl.float32))
        assert type(a) is LegacyTensor
        nisa.tensor_tensor(dst=d, data1=a, data2=b, op=nl.multiply)
        assert calls == ["data1", "data2", "dst"]
        calls.clear()
        nisa.tensor_tensor(dst=d, data1=a, data2=b, op=nl.add)
        assert calls == []
        np.testing.assert_array_equal(d.numpy(), np.full((8, 4), 5, F32))


def test_a_dead_legacy_tile_still_raises_the_scope_error():
    """Checked inside a compiled loop's iteration, then used after it ended: the scope error names it."""
    @nki.jit
    def k(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        for i in nl.dynamic_range(2):
            kept = legacy(nl.ndarray(x.shape, nl.float32))
            nisa.memset(dst=kept, value=1.0)
            nisa.tensor_tensor(dst=kept, data1=kept, data2=kept, op=nl.add)
        r = nl.ndarray(x.shape, nl.float32)
        nisa.tensor_tensor(dst=r, data1=kept, data2=kept, op=nl.add)
        nisa.dma_copy(dst=out, src=r)
        return out
    with pytest.raises(ConstraintError, match="kept.*outside of its parent scope"):
        nki.simulate(k)(np.zeros((8, 4), F32))


# ------------------------------------------------------------------------------------ tensor_reduce plan

def _reduce(x, op, axis, negate=False, dst_dtype=nl.float32, keepdims=False):
    with run_context("trn2"):
        src = _tile(x)
        kept = x.shape[:min(axis) if isinstance(axis, (tuple, list)) else axis]
        dst = nl.ndarray(kept if len(kept) > 1 else (x.shape[0], 1), dst_dtype)
        nisa.tensor_reduce(dst=dst, op=op, data=src, axis=axis, negate=negate, keepdims=keepdims)
        return dst.numpy()


def test_tensor_reduce_values_and_a_changed_field_misses_the_plan():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((16, 3, 5)).astype(F32)
    isa_reduce._REDUCE_PLANS.clear()
    np.testing.assert_array_equal(_reduce(x, nl.add, (2,)), x.sum(axis=2, dtype=F32))
    assert len(isa_reduce._REDUCE_PLANS) == 1
    np.testing.assert_array_equal(_reduce(x, nl.add, (2,)), x.sum(axis=2, dtype=F32))
    assert len(isa_reduce._REDUCE_PLANS) == 1                         # the same key: a hit
    for args, want in (((nl.maximum, (2,)), x.max(axis=2)),           # another op
                       ((nl.add, (2,), True), -x.sum(axis=2, dtype=F32)),     # negate
                       ((nl.add, (1, 2)), x.reshape(16, 15).sum(axis=1, dtype=F32)[:, None]),   # axes
                       ((nl.add, 2), x.sum(axis=2, dtype=F32))):       # the axis as an int
        n = len(isa_reduce._REDUCE_PLANS)
        np.testing.assert_array_equal(_reduce(x, *args), want)
        assert len(isa_reduce._REDUCE_PLANS) == n + 1
    got16 = _reduce(x, nl.add, (2,), dst_dtype=nl.bfloat16)          # another dst dtype
    assert got16.dtype != F32 and len(isa_reduce._REDUCE_PLANS) == 6
    # keepdims, negate given as another type, an axis list (unhashable: no plan, the same result)
    _reduce(x, nl.add, (2,), keepdims=True)
    _reduce(x, nl.add, (2,), negate=np.False_)
    assert len(isa_reduce._REDUCE_PLANS) == 8
    np.testing.assert_array_equal(_reduce(x, nl.add, [2]), x.sum(axis=2, dtype=F32))
    assert len(isa_reduce._REDUCE_PLANS) == 8


def test_tensor_reduce_errors_are_the_same_before_and_after_a_plan():
    x = np.ones((16, 3, 5), F32)
    for _ in range(2):
        with run_context("trn2"):
            src = _tile(x)
            with pytest.raises(ConstraintError, match="dst holds the reduced shape"):
                nisa.tensor_reduce(dst=nl.ndarray((16, 4), nl.float32), op=nl.add, data=src, axis=(2,))
            nisa.tensor_reduce(dst=nl.ndarray((16, 3), nl.float32), op=nl.add, data=src, axis=(2,))
            with pytest.raises(ConstraintError, match="a legal reduction operator"):
                nisa.tensor_reduce(dst=nl.ndarray((16, 3), nl.float32), op=nl.power, data=src, axis=(2,))
            with pytest.raises(ConstraintError, match="free axes only"):
                nisa.tensor_reduce(dst=nl.ndarray((16, 3), nl.float32), op=nl.add, data=src, axis=(0,))


def test_tensor_reduce_overflow_is_a_result_not_a_warning(recwarn):
    x = np.full((4, 8), 3e38, F32)
    got = _reduce(x, nl.add, (1,))
    assert np.isinf(got).all() and not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# ----------------------------------------------------------------------------------------- native scan

@pytest.mark.skipif(native_scan.kernel() is None, reason="no C compiler (native scan off)")
def test_native_scan_writes_a_float32_dst_view_itself():
    """A float32 dst of data0's (P, N) shape is written by the C loop in place (plan.direct), with the
    init marks of a written tile; the values are the float32 recurrence."""
    x0, x1 = np.full((16, 8), 2.0, F32), np.ones((16, 8), F32)
    with run_context("trn2"):
        a, b = _tile(x0), _tile(x1)
        d = nl.ndarray((16, 8), nl.float32)
        nisa.tensor_tensor_scan(dst=d, data0=a, data1=b, initial=1.0, op0=nl.multiply, op1=nl.add)
        plans = [p for p in isa_vector._SCAN_PLANS.values() if p.direct]
        assert plans, "a float32 (P, N) dst is a direct plan"
        want = np.empty((16, 8), F32)
        prev = np.ones(16, F32)
        for i in range(8):
            prev = prev * F32(2.0) + F32(1.0)
            want[:, i] = prev
        np.testing.assert_array_equal(d.numpy(), want)


@pytest.mark.parametrize("first, second", [(0.0, -0.0), (-0.0, 0.0), (0, 0.0)])
def test_scan_constant_initial_kept_per_plan_by_identity(first, second):
    """The plan keeps a constant initial's column; -0.0 / 0.0 and 0 / 0.0 are different keys."""
    x0, x1 = np.ones((8, 3), F32), np.full((8, 3), -0.0, F32)
    for init in (first, second):
        with run_context("trn2"):
            d = nl.ndarray((8, 3), nl.float32)
            nisa.tensor_tensor_scan(dst=d, data0=_tile(x0), data1=_tile(x1), initial=init, op0=nl.multiply,
                                    op1=nl.add)
            got = d.numpy()
        # column 0: 1 * init + -0.0 keeps init's sign; then (1 * that) + -0.0 keeps it
        assert (np.signbit(got) == np.signbit(F32(init))).all()


# ------------------------------------------------------------------------------------------------ blas

_floats = st.floats(width=32, allow_nan=True, allow_infinity=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(_floats, min_size=1, max_size=40))
def test_has_nan_is_isnan_any(values):
    x = np.array(values, F32).reshape(1, -1)
    assert bool(blas._has_nan(x)) == bool(np.isnan(x).any())
    assert bool(blas._has_nan(x.T)) == bool(np.isnan(x).any())


def test_outer_product_falls_back_to_matmul_only_when_both_hold_a_nan():
    nan_a = np.array([0x7FC00001], np.uint32).view(F32)[0]
    nan_b = np.array([0xFFC12345], np.uint32).view(F32)[0]
    a = np.array([[1.0], [nan_a], [-2.0]], F32)
    b = np.array([[nan_b, 3.0, -0.0, np.inf]], F32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(blas.matmul(a, b).view(np.uint32), np.matmul(a, b).view(np.uint32))
        b2 = np.array([[0.5, 3.0, -0.0, np.inf]], F32)        # one side NaN: the outer product path
        got = blas.matmul(a, b2)
        want = np.matmul(a, b2)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# ------------------------------------------------------------------------------------ nc_matmul perf_mode

def test_perf_mode_is_part_of_the_matmul_plan_key():
    """After a plan for perf_mode none, double_row (fp32: not allowed) and non-members of the same
    geometry still raise: the key tells them apart (members by identity, anything else by value)."""
    from npusim.nki import isa_matmul
    with run_context("trn2"):
        a, b = _tile(np.ones((4, 8), F32)), _tile(np.ones((4, 16), F32))
        for _ in range(2):
            nisa.nc_matmul(nl.ndarray((8, 16), nl.float32, buffer=nl.psum), a, b)
        n = len(isa_matmul._MM_PLANS)
        for bad, match in ((isa_matmul.matmul_perf_mode.double_row, "FP8 mode"), (0, "matmul_perf_mode member"),
                           ("none", "matmul_perf_mode member")):
            with pytest.raises(ConstraintError, match=match):
                nisa.nc_matmul(nl.ndarray((8, 16), nl.float32, buffer=nl.psum), a, b, perf_mode=bad)
        assert len(isa_matmul._MM_PLANS) == n
        ps = nl.ndarray((8, 16), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, a, b, perf_mode=isa_matmul.matmul_perf_mode.none)
        np.testing.assert_array_equal(ps.numpy(), np.full((8, 16), 4, F32))
