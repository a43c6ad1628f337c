"""scalar_tensor_tensor, tensor_tensor_scan, reciprocal, bn_stats/bn_aggr, tensor_copy_predicated,
select_reduce, range_select: values against float64 numpy, every documented rule, costs."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


def test_scalar_tensor_tensor(run):
    x, v, y = rand((32, 64), 1), rand((32, 1), 2), rand((32, 64), 3)
    d = nl.ndarray(x.shape, nl.float32)
    ins = nisa.scalar_tensor_tensor(d, tile(x), nl.subtract, tile(v), nl.multiply, tile(y))
    np.testing.assert_array_equal(d.numpy(), ((x - v).astype(np.float32) * y).astype(np.float32))
    assert ins.event.cycles == 64       # trn2 fp32: 2N reads at 2 elements per partition per cycle = N, MIN_II
    nisa.scalar_tensor_tensor(d, tile(x), nl.subtract, 2.0, nl.subtract, tile(y), reverse0=True, reverse1=True)
    np.testing.assert_array_equal(d.numpy(), (y - (2.0 - x).astype(np.float32)).astype(np.float32))


def test_scalar_tensor_tensor_rules(run):
    x = tile(rand((8, 16)))
    d = nl.ndarray((8, 16), nl.float32)
    with pytest.raises(ConstraintError, match="arithmetic operator"):
        nisa.scalar_tensor_tensor(d, x, nl.bitwise_and, 1, nl.add, x)
    with pytest.raises(ConstraintError, match="binary operator"):
        nisa.scalar_tensor_tensor(d, x, nl.abs, 0, nl.add, x)
    with pytest.raises(ConstraintError, match="same number of elements"):
        nisa.scalar_tensor_tensor(d, x, nl.add, 1.0, nl.add, tile(rand((8, 8))))
    p = tile(rand((8, 16)), buffer=nl.psum)
    with pytest.raises(ConstraintError, match="not both in PSUM"):
        nisa.scalar_tensor_tensor(d, p, nl.add, 1.0, nl.add, tile(rand((8, 16)), buffer=nl.psum))


@settings(max_examples=10, deadline=None)
@given(p=st.integers(1, 64), n=st.integers(1, 100), seed=st.integers(0, 20))
def test_tensor_tensor_scan_linear_recurrence(p, n, seed):
    a, b, init = rand((p, n), seed, 0, 1), rand((p, n), seed + 1), rand((p, 1), seed + 2)
    want = np.empty((p, n), np.float32)
    prev = init[:, 0].copy()
    for i in range(n):                   # fp32 step by step, the engine's order
        prev = (a[:, i] * prev).astype(np.float32) + b[:, i]
        want[:, i] = prev
    with run_context("trn2"):
        d = nl.ndarray((p, n), nl.float32)
        ins = nisa.tensor_tensor_scan(d, tile(a), tile(b), tile(init), nl.multiply, nl.add)
        np.testing.assert_array_equal(d.numpy(), want)
        assert ins.event.cycles == max(64, 2 * n)


def test_tensor_tensor_scan_scalar_initial_and_rules(run):
    a, b = np.ones((2, 4), np.float32), np.ones((2, 4), np.float32)
    d = nl.ndarray((2, 4), nl.float32)
    nisa.tensor_tensor_scan(d, tile(a), tile(b), 10.0, nl.add, nl.add)
    np.testing.assert_array_equal(d.numpy(), [[12, 14, 16, 18]] * 2)
    with pytest.raises(ConstraintError, match="add, subtract, multiply"):
        nisa.tensor_tensor_scan(d, tile(a), tile(b), 0.0, nl.equal, nl.add)
    with pytest.raises(ConstraintError, match="same number of elements"):
        nisa.tensor_tensor_scan(d, tile(a), tile(np.ones((2, 3), np.float32)), 0.0, nl.add, nl.add)


def test_reciprocal(run):
    x = rand((128, 100), 4, 0.5, 4)
    d = nl.ndarray(x.shape, nl.float32)
    ins = nisa.reciprocal(d, tile(x))
    np.testing.assert_array_equal(d.numpy(), (1.0 / x.astype(np.float64)).astype(np.float32))
    assert ins.event.engine == "vector" and ins.event.cycles == 800
    with pytest.raises(ConstraintError, match="same number of elements"):
        nisa.reciprocal(nl.ndarray((128, 10), nl.float32), tile(x))


@pytest.mark.parametrize("n", [1, 7, 512])
def test_bn_stats_then_aggr_give_mean_and_variance(run, n):
    x = rand((128, 3 * n), 5)
    stats = nl.ndarray((128, 18), nl.float32)
    for c in range(3):
        ins = nisa.bn_stats(stats[:, c * 6:(c + 1) * 6], tile(x[:, c * n:(c + 1) * n]))
        assert ins.event.cycles == max(64, n)
    mv = nl.ndarray((128, 2), nl.float32)
    ins = nisa.bn_aggr(mv, stats)
    assert ins.event.cycles == max(64, 13 * 6)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mv.numpy()[:, 0], x64.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv.numpy()[:, 1], x64.var(1), rtol=1e-5, atol=1e-6)


def test_bn_stats_layout_even_odd(run):
    x = np.array([[1.0, 10.0, 3.0, 20.0, 5.0]], np.float32)
    s = nl.ndarray((1, 6), nl.float32)
    nisa.bn_stats(s, tile(x))
    np.testing.assert_allclose(s.numpy()[0], [3, 3.0, 8.0, 2, 15.0, 50.0])


def test_bn_rules(run):
    with pytest.raises(ConstraintError, match="free size <= 512"):
        nisa.bn_stats(nl.ndarray((4, 6), nl.float32), tile(rand((4, 513))))
    with pytest.raises(ConstraintError, match="6 elements per partition"):
        nisa.bn_stats(nl.ndarray((4, 5), nl.float32), tile(rand((4, 10))))
    with pytest.raises(ConstraintError, match="float dst"):
        nisa.bn_stats(nl.ndarray((4, 6), nl.int32), tile(rand((4, 10))))
    with pytest.raises(ConstraintError, match="triples"):
        nisa.bn_aggr(nl.ndarray((4, 2), nl.float32), tile(rand((4, 7))))
    with pytest.raises(ConstraintError, match="2 elements"):
        nisa.bn_aggr(nl.ndarray((4, 3), nl.float32), tile(rand((4, 6))))


def test_tensor_copy_predicated(run):
    src, old = rand((16, 32), 6), rand((16, 32), 7)
    pred = (rand((16, 32), 8) > 0).astype(np.uint8)
    d = tile(old)
    ins = nisa.tensor_copy_predicated(d, tile(src), tile(pred))
    np.testing.assert_array_equal(d.numpy(), np.where(pred != 0, src, old))
    d2 = tile(old)
    nisa.tensor_copy_predicated(d2, tile(src), tile(pred.astype(np.uint32)), reverse_pred=True)
    np.testing.assert_array_equal(d2.numpy(), np.where(pred == 0, src, old))
    assert ins.event.engine == "vector"
    with pytest.raises(ConstraintError, match="integer predicate"):
        nisa.tensor_copy_predicated(d, tile(src), tile(pred.astype(np.float32)))
    with pytest.raises(ConstraintError, match="not both in PSUM"):
        nisa.tensor_copy_predicated(d, tile(src, buffer=nl.psum), tile(pred, buffer=nl.psum))


def test_select_reduce(run):
    x = rand((16, 32), 9)
    pred = (rand((16, 32), 10) > 0).astype(np.int16)
    d, res = nl.ndarray(x.shape, nl.float32), nl.ndarray((16, 1), nl.float32)
    nisa.select_reduce(d, tile(pred), tile(x), -5.0, reduce_res=res)
    want = np.where(pred != 0, x, -5.0).astype(np.float32)
    np.testing.assert_array_equal(d.numpy(), want)
    np.testing.assert_array_equal(res.numpy()[:, 0], want.max(1))
    v = rand((16, 1), 11)
    nisa.select_reduce(d, tile(pred), tile(x), tile(v), reverse_pred=True)
    np.testing.assert_array_equal(d.numpy(), np.where(pred == 0, x, v))
    with pytest.raises(ConstraintError, match="except tfloat32, int32"):
        nisa.select_reduce(nl.ndarray((16, 32), nl.int32), tile(pred), tile(x, nl.int32), 0.0)
    with pytest.raises(ConstraintError, match="nl.maximum"):
        nisa.select_reduce(d, tile(pred), tile(x), 0.0, reduce_op=nl.add)
    with pytest.raises(ConstraintError, match="integer predicate"):
        nisa.select_reduce(d, tile(pred.astype(np.int32)), tile(x), 0.0)
    with pytest.raises(ConstraintError, match="float dtype"):
        nisa.select_reduce(d, tile(pred), tile(x), 0.0, reduce_res=nl.ndarray((16, 1), nl.int32))


def test_range_select_causal_row_mask(run):
    x = rand((8, 16), 12)
    lo = np.zeros((8, 1), np.float32)
    hi = np.arange(8, dtype=np.float32)[:, None]          # keep columns 0..p
    d, res = nl.ndarray(x.shape, nl.float32), nl.ndarray((8, 1), nl.float32)
    nisa.range_select(d, tile(x), nl.greater_equal, nl.less_equal, tile(lo), tile(hi), reduce_res=res)
    keep = np.arange(16)[None, :] <= np.arange(8)[:, None]
    want = np.where(keep, x, np.finfo(np.float32).min)
    np.testing.assert_array_equal(d.numpy(), want)
    np.testing.assert_array_equal(res.numpy()[:, 0], want.max(1))
    with pytest.raises(ConstraintError, match="FP32_MIN"):
        nisa.range_select(d, tile(x), nl.greater_equal, nl.less_equal, tile(lo), tile(hi), on_false_value=0.0)
    with pytest.raises(ConstraintError, match="comparison operator"):
        nisa.range_select(d, tile(x), nl.add, nl.less_equal, tile(lo), tile(hi))


def test_range_select_needs_trn2():
    with run_context("trn1"):
        x = tile(rand((2, 4)))
        with pytest.raises(ConstraintError, match="NeuronCore-v3"):
            nisa.range_select(nl.ndarray((2, 4), nl.float32), x, nl.greater_equal, nl.less, tile(rand((2, 1))),
                              tile(rand((2, 1))))


def test_tensor_copy_predicated_onto_a_new_tile_over_freed_bytes(run):
    """A new tile over an earlier tile's bytes: the predicated copy marks only its elements written.
    The others read as never written (not the earlier tile's values), and a later partial write keeps
    the copy's marks (the stale map is cleared before the copy, not after)."""
    import gc
    from npusim.core.errors import UninitializedReadError
    from npusim.core.options import configure
    old = nl.ndarray((16, run.chip.sbuf_usable // 4), nl.float32)     # every usable byte: next fit wraps
    old.write(np.ones(old.shape, np.float32))       # every byte marked written
    offset = old.tv.offset
    del old
    gc.collect()
    d = nl.ndarray((16, 32), nl.float32)
    assert d.tv.offset == offset                    # the freed bytes, with the earlier tile's marks
    src = rand((16, 32), 9)
    pred = np.zeros((16, 32), np.uint8)
    pred[:, :8] = 1
    nisa.tensor_copy_predicated(d, tile(src), tile(pred))
    d[:, 16:32].write(np.full((16, 16), 3.0, np.float32))       # a partial write after the copy
    with configure(uninitialized="error"):
        np.testing.assert_array_equal(d[:, 0:8].read(), src[:, :8])
        np.testing.assert_array_equal(d[:, 16:32].read(), np.full((16, 16), 3.0, np.float32))
        with pytest.raises(UninitializedReadError):
            d[:, 8:16].read()                       # neither copied nor written: never written
