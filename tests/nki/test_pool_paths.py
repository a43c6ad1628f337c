"""Short paths the legacy adaptive-pool and rmsnorm kernels take: the nl reductions' (axes, result shape)
cache and the scoped loops' one-int fast path. Each must give what the general path gives, and a changed
key field must miss the cache."""
import os
import sys

import numpy as np
import pytest

import npusim.nki.language as nl
import npusim.nki.language_two as nl2
from npusim.core.errors import ConstraintError

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


def test_reduce_shape_cache_hits_give_the_general_answer(run):
    x = rand((16, 4, 8), 1)
    t = tile(x)
    nl2._REDUCE_SHAPES.clear()
    first = nl.sum(t, axis=[-2, -1])
    assert len(nl2._REDUCE_SHAPES) == 1
    again = nl.sum(t, axis=[-2, -1])            # a hit
    assert len(nl2._REDUCE_SHAPES) == 1
    assert first.shape == again.shape == (16, 1)
    np.testing.assert_allclose(again.numpy()[:, 0], x.astype(np.float64).sum((1, 2)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("change", ["api", "shape", "axis", "axis type", "keepdims"])
def test_reduce_shape_cache_misses_when_a_field_changes(run, change):
    t = tile(rand((16, 4, 8), 2))
    nl2._REDUCE_SHAPES.clear()
    nl.sum(t, axis=[1, 2])
    other = {
        "api": lambda: nl.max(t, axis=[1, 2]),
        "shape": lambda: nl.sum(tile(rand((16, 4, 4), 3)), axis=[1, 2]),
        "axis": lambda: nl.sum(t, axis=[2]),
        "axis type": lambda: nl.sum(t, axis=(1, 2)),
        "keepdims": lambda: nl.sum(t, axis=[1, 2], keepdims=True),
    }[change]
    out = other()
    assert len(nl2._REDUCE_SHAPES) == 2         # a new entry: the first one did not answer
    if change == "keepdims":
        assert out.shape == (16, 1, 1)
    if change == "axis":
        assert out.shape == (16, 4)


def test_reduce_shape_cache_keeps_errors(run):
    t = tile(rand((16, 4, 8), 4))
    nl2._REDUCE_SHAPES.clear()
    for _ in range(2):      # a rejected axis is never cached: the second call raises the same error
        with pytest.raises(ConstraintError, match=r"nl\.sum.*axis"):
            nl.sum(t, axis=[5])
        with pytest.raises(ConstraintError, match=r"nl\.sum.*distinct axes"):
            nl.sum(t, axis=[2, -1])
    assert not nl2._REDUCE_SHAPES


@pytest.mark.parametrize("n", [3, np.int32(3), np.int64(3), np.uint8(3), 0])
def test_scoped_range_of_one_int(run, n):
    for fn in (nl.affine_range, nl.sequential_range, nl.static_range):
        assert list(fn(n)) == list(range(int(n)))
        assert all(type(i) is int for i in fn(n))


@pytest.mark.parametrize("bad", [True, np.bool_(True), 2.0, np.float32(2), 1 << 32, np.int64(-(1 << 32))])
def test_scoped_range_rejects_what_the_general_path_rejects(run, bad):
    with pytest.raises(ConstraintError, match="nl.affine_range"):
        nl.affine_range(bad)


def _legacy_divide_kernel(divisor):
    import npusim.nki.legacy as legacy_nki
    import npusim.nki.legacy.language as lnl

    def kernel(a):
        out = lnl.ndarray(a.shape, dtype=a.dtype, buffer=lnl.shared_hbm)
        t = lnl.load(a)
        lnl.store(out, value=lnl.divide(t, divisor))
        return out
    return legacy_nki.simulate_kernel(legacy_nki.baremetal(kernel), np.arange(1, 9, dtype=np.float32).reshape(8, 1))


@pytest.mark.parametrize("divisor", [16, np.int32(16), 16.0, np.float32(3), -2.5, 3])
def test_legacy_divide_by_a_number_cached_or_not(divisor):
    import npusim.nki.legacy.language as lnl
    lnl._RECIPROCALS.clear()
    want = np.arange(1, 9, dtype=np.float32).reshape(8, 1) * (np.float32(1) / np.float32(divisor))
    for _ in range(2):      # the first computes the reciprocal, the second finds it
        np.testing.assert_array_equal(_legacy_divide_kernel(divisor), want)
    assert lnl._RECIPROCALS[(type(divisor), divisor)] == float(np.float32(1) / np.float32(divisor))


@pytest.mark.parametrize("divisor", [0, 0.0, -0.0, float("inf"), float("nan"), 10 ** 60])
def test_legacy_divide_never_caches_zero_inf_nan(divisor):
    import npusim.nki.legacy.language as lnl
    lnl._RECIPROCALS.clear()
    for _ in range(2):
        got = _legacy_divide_kernel(divisor)
        with np.errstate(all="ignore"):
            want = np.arange(1, 9, dtype=np.float32).reshape(8, 1) * float(np.float32(1) / np.float32(divisor))
        np.testing.assert_array_equal(got, want)
    assert not lnl._RECIPROCALS


def test_loop_scope_label_reads_as_before(run):
    from npusim.nki import scope
    labels = []
    for i in nl.sequential_range(np.int64(3)):
        labels.append(run.scopes[-1].label)
    assert labels == [f"nl.sequential_range iteration {i}" for i in range(3)]
    assert scope.Scope("x").label == "x"
