"""WholeReduceMax/Min/Sum, RepeatReduceSum, BlockReduce*, GetReduceRepeatMaxMinSpr against numpy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError


def _buf(ctx, dtype, n, offset):
    pipe = asc.TPipe() if not ctx.pipes else ctx.pipes[0]
    return asc.LocalTensor(ctx, offset, dtype, n, asc.TPosition.VECCALC)


def _tree(x, np_t):
    """Pairwise neighbours, each addition rounded to np_t (the vendor's binary tree)."""
    x = x.astype(np_t)
    while x.shape[-1] > 1:
        x = (x[..., 0::2].astype(np.float32) + x[..., 1::2].astype(np.float32)).astype(np_t)
    return x[..., 0]


def test_whole_reduce_max_orders_and_index_bits():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(4 * 128).astype(np.float16)
    x[5] = x[9] = 9.0                                  # tie: the first index wins
    with asc.core_context() as ctx:
        src = _buf(ctx, asc.half, 512, 0).load(x)
        dst = _buf(ctx, asc.half, 16, 4096)
        asc.WholeReduceMax(dst, src, 128, 4, 1, 1, 8)
        got = dst.numpy()[:8]
        r = x.reshape(4, 128)
        np.testing.assert_array_equal(got[0::2], r.max(1))
        np.testing.assert_array_equal(got[1::2].view(np.uint16), r.argmax(1))
        assert got[1].view(np.uint16) == 5
        asc.WholeReduceMin(dst, src, 128, 4, 1, 1, 8, asc.ReduceOrder.ORDER_INDEX_VALUE)
        got = dst.numpy()[:8]
        np.testing.assert_array_equal(got[1::2], r.min(1))
        np.testing.assert_array_equal(got[0::2].view(np.uint16), r.argmin(1))
        asc.WholeReduceMax(dst, src, 128, 4, 1, 1, 8, asc.ReduceOrder.ORDER_ONLY_VALUE)
        np.testing.assert_array_equal(dst.numpy()[:4], r.max(1))
        asc.WholeReduceMax(dst, src, 128, 4, 1, 1, 8, asc.ReduceOrder.ORDER_ONLY_INDEX)
        np.testing.assert_array_equal(dst.numpy()[:8].view(np.uint32), r.argmax(1))
        asc.PipeBarrier(asc.PIPE_V)
        asc.WholeReduceMax(dst, src, 128, 4, 1, 1, 8)
        asc.SetFlag(asc.HardEvent.V_S, 0); asc.WaitFlag(asc.HardEvent.V_S, 0)
        val, idx = asc.GetReduceRepeatMaxMinSpr(asc.half)
        assert val == 9.0 and np.asarray(idx).view(np.uint16) == 5


@settings(max_examples=25, deadline=None)
@given(mask=st.integers(1, 64), rep=st.integers(1, 6), blk=st.integers(1, 2), rstride=st.integers(8, 16),
       seed=st.integers(0, 1000))
def test_whole_reduce_sum_and_max_float_with_mask_and_strides(mask, rep, blk, rstride, seed):
    rng = np.random.default_rng(seed)
    n = 8192 // 4
    x = rng.uniform(-4, 4, n).astype(np.float32)
    with asc.core_context() as ctx:
        src = _buf(ctx, asc.float, n, 0).load(x)
        dst = _buf(ctx, asc.float, 64, 8192)
        dst.load(np.zeros(64, np.float32))
        asc.WholeReduceSum(dst, src, mask, rep, 2, blk, rstride)
        # element i of repeat r: r*rstride*8 + (i // 8)*blk*8 + i % 8 (in floats)
        i = np.arange(64)
        idx = np.arange(rep)[:, None] * rstride * 8 + (i // 8) * blk * 8 + i % 8
        vals = np.where(i < mask, x[idx], 0)
        got = dst.numpy()
        np.testing.assert_array_equal(got[0:2 * rep:2], _tree(vals, np.float32))
        asc.PipeBarrier(asc.PIPE_V)
        asc.WholeReduceMax(dst, src, mask, rep, 1, blk, rstride)
        got = dst.numpy()
        np.testing.assert_array_equal(got[0:2 * rep:2], x[idx][:, :mask].max(1))
        np.testing.assert_array_equal(got[1:2 * rep:2].view(np.uint32), x[idx][:, :mask].argmax(1))


def test_repeat_reduce_sum_and_block_reduce():
    x = (np.arange(256) % 7).astype(np.float16)
    with asc.core_context() as ctx:
        src = _buf(ctx, asc.half, 256, 0).load(x)
        dst = _buf(ctx, asc.half, 64, 4096)
        asc.RepeatReduceSum(dst, src, 2, 128, 0, 1, 1, 8)
        np.testing.assert_array_equal(dst.numpy()[:2], x.reshape(2, 128).sum(1))
        asc.PipeBarrier(asc.PIPE_V)
        dst.load(np.full(64, -1, np.float16))
        asc.BlockReduceSum(dst, src, 2, 128, 1, 1, 8)
        np.testing.assert_array_equal(dst.numpy()[:16], _tree(x.reshape(16, 16), np.float16))
        asc.PipeBarrier(asc.PIPE_V)
        asc.BlockReduceMax(dst, src, 2, 40, 1, 1, 8)    # mask 40: blocks 0, 1 full, block 2 half, 3..7 none
        got = dst.numpy()[:16].reshape(2, 8)
        want = x.reshape(2, 8, 16)
        np.testing.assert_array_equal(got[:, :2], want[:, :2].max(2))
        np.testing.assert_array_equal(got[:, 2], want[:, 2, :8].max(1))
        np.testing.assert_array_equal(got[:, 3:], _tree(x.reshape(16, 16), np.float16).reshape(2, 8)[:, 3:])  # kept
        asc.PipeBarrier(asc.PIPE_V)
        asc.BlockReduceMin(dst, src, 1, 128, 1, 1, 8)
        np.testing.assert_array_equal(dst.numpy()[:8], x[:128].reshape(8, 16).min(1))


def test_rules():
    with asc.core_context() as ctx:
        src = _buf(ctx, asc.half, 256, 0).load(np.zeros(256, np.float16))
        dst = _buf(ctx, asc.half, 4, 4096)
        with pytest.raises(ConstraintError, match="inside the LocalTensor"):
            asc.WholeReduceMax(dst, src, 128, 4, 1, 1, 8)       # 4 pairs need 16 B > 8 B
        with pytest.raises(ConstraintError, match="check instr failed"):
            asc.WholeReduceSum(dst, src, 128, 3, 1, 1, 8)       # src: 3 repeats of 256 B > 512 B
        with pytest.raises(ConstraintError, match="0 <= mask <= 128"):
            asc.WholeReduceSum(dst, src, 129, 1, 1, 1, 8)
        with pytest.raises(ConstraintError, match="ReduceOrder"):
            asc.WholeReduceMax(dst, src, 128, 1, 1, 1, 8, 0)
        i32 = _buf(ctx, asc.int32_t, 64, 0)
        with pytest.raises(ConstraintError, match="dtype one of"):
            asc.WholeReduceSum(i32, i32, 64, 1, 1, 1, 8)
    with asc.core_context("Ascend910A") as ctx:
        src = _buf(ctx, asc.half, 256, 0).load(np.zeros(256, np.float16))
        dst = _buf(ctx, asc.half, 16, 4096)
        with pytest.raises(ConstraintError, match="ORDER_VALUE_INDEX on Ascend910A"):
            asc.WholeReduceMax(dst, src, 128, 1, 1, 1, 8, asc.ReduceOrder.ORDER_ONLY_VALUE)


def test_spr_read_is_ordered_by_auto_sync():
    def k(x, z):
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(x)
        zg = asc.GlobalTensor(asc.float); zg.SetGlobalBuffer(z)
        pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(q, 1, 256)
        b = asc.TBuf(); pipe.InitBuffer(b, 64)
        t = q.AllocTensor(asc.float); asc.DataCopy(t, xg, 64); q.EnQue(t); t = q.DeQue(asc.float)
        d = b.Get(asc.float)
        asc.WholeReduceMax(d, t, 64, 1, 1, 1, 8)
        val, idx = asc.GetReduceRepeatMaxMinSpr(asc.float)
        zg.SetValue(0, val)
        zg.SetValue(1, float(np.asarray(idx).view(np.uint32)))
        q.FreeTensor(t)
    x = np.random.default_rng(3).standard_normal(64).astype(np.float32)
    z = np.zeros(8, np.float32)
    res = asc.launch(k, 1, x, z)
    assert z[0] == x.max() and z[1] == x.argmax()
    assert any((e.args or {}).get("event") == "V_S" for e in res.trace.events)


def test_spr_after_reduce_max_count_form_holds_the_max():
    x = np.random.default_rng(8).standard_normal(1000).astype(np.float32)
    with asc.core_context() as ctx:
        src = _buf(ctx, asc.float, 1024, 0).load(np.r_[x, np.zeros(24, np.float32)])
        dst = _buf(ctx, asc.float, 8, 8192)
        work = _buf(ctx, asc.float, 64, 8448)
        asc.ReduceMin(dst, src, work, 1000)
        asc.SetFlag(asc.HardEvent.V_S, 0); asc.WaitFlag(asc.HardEvent.V_S, 0)
        val, _ = asc.GetReduceRepeatMaxMinSpr(asc.float)      # the value only (the page: index not reliable)
        assert val == x.min()
