"""Rules chosen while running the public cann-ops kernels unchanged (docs/ascendc.md, semantics table)."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError


def test_tbuf_get_before_init_buffer_is_an_empty_tensor_until_used():
    """tanh.cpp takes tmpBuf.Get<float>() on its float path, where it never called InitBuffer(tmpBuf) and
    never uses the tensor: the device hands out a zero-length tensor; any use with a count is the error."""
    x = np.ones(64, np.float32)

    def k(xa):
        pipe = asc.TPipe()
        q = asc.TBuf(asc.TPosition.VECCALC)
        t = q.Get(asc.float)
        assert t.GetSize() == 0
        with pytest.raises(ConstraintError, match="TBuf.Get"):
            q.Get(asc.float, 8)                # an explicit length still needs the buffer
        used = asc.TBuf(asc.TPosition.VECCALC)
        pipe.InitBuffer(used, 256)
        u = used.Get(asc.float)
        asc.Duplicate(u, 1.0, 64)
        with pytest.raises(ConstraintError):
            asc.Adds(t, u, 1.0, 64)            # the empty tensor cannot take 64 results
    asc.launch(k, 1, x)


def test_datacopy_pad_moves_bool_masks_as_bytes():
    """select_reduce_max_d_sub_exp_reduce_sum_d_real_div.cpp copies a bool mask with DataCopyPad<bool>."""
    cond = np.array([True, False, True, True, False] * 12, np.bool_)         # 60 bytes: not a 32-B multiple
    out = np.zeros(60, np.bool_)

    def k(ca, oa):
        pipe = asc.TPipe()
        b = asc.TBuf(asc.TPosition.VECIN)
        pipe.InitBuffer(b, 64)
        cg = asc.GlobalTensor(asc.bool_t); cg.SetGlobalBuffer(ca)
        og = asc.GlobalTensor(asc.bool_t); og.SetGlobalBuffer(oa)
        t = b.Get(asc.bool_t)
        asc.DataCopyPad(t, cg, asc.DataCopyExtParams(1, 60, 0, 0, 0), asc.DataCopyPadExtParams(True, 0, 0, 0))
        asc.SetFlag(asc.HardEvent.MTE2_MTE3, 0)
        asc.WaitFlag(asc.HardEvent.MTE2_MTE3, 0)
        asc.DataCopyPad(og, t, asc.DataCopyExtParams(1, 60, 0, 0, 0))
    asc.launch(k, 1, cond, out)
    np.testing.assert_array_equal(out, cond)


def test_tque_bind_vecin_to_vecout_orders_mte2_before_mte3():
    """TQueBind<VECIN, VECOUT, 1> (cann-ops cast's byte copy): EnQue after the GM->UB copy, DeQue before the
    UB->GM copy; the queue's flag orders MTE2 before MTE3, so even sync="manual" has no race."""
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)

    def k(xa, ya):
        pipe = asc.TPipe()
        q = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
        pipe.InitBuffer(q, 1, 1024)
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(xa)
        yg = asc.GlobalTensor(asc.float); yg.SetGlobalBuffer(ya)
        t = q.AllocTensor(asc.float)
        asc.DataCopy(t, xg, 256)
        q.EnQue(t)
        t = q.DeQue(asc.float)
        asc.DataCopy(yg, t, 256)
        q.FreeTensor(t)
    r = asc.launch(k, 1, x, y, sync="manual")
    np.testing.assert_array_equal(y, x)
    ev = {e.name: e for e in r.trace.events}
    assert ev["EnQue"].engine.endswith("MTE2") and ev["DeQue"].engine.endswith("MTE3")
    copies = [e for e in r.trace.events if e.name == "DataCopy"]
    assert copies[1].start_ns >= copies[0].end_ns


def test_tque_bind_rejects_a_non_vector_position():
    with pytest.raises(ConstraintError, match="dst"):
        asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.GM, 1)


def test_tque_sync_is_the_flag_of_its_pipe_pair():
    """TQueSync<PIPE_MTE2, PIPE_V> (cann-ops trunc's sync helpers): SetFlag/WaitFlag of HardEvent MTE2_V, so a
    TBuf copy read by a vector op is ordered even under sync="manual"; without it that is a race."""
    x = np.arange(64, dtype=np.float32)

    def k(xa, with_sync):
        pipe = asc.TPipe()
        b = asc.TBuf(asc.TPosition.VECCALC)
        pipe.InitBuffer(b, 512)
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(xa)
        t = b.Get(asc.float, 64)
        u = b.Get(asc.float)[64]
        asc.DataCopy(t, xg, 64)
        if with_sync:
            s = asc.TQueSync(asc.PIPE_MTE2, asc.PIPE_V)
            s.SetFlag(0)
            s.WaitFlag(0)
        asc.Adds(u, t, 1.0, 64)
    r = asc.launch(k, 1, x, True, sync="manual")
    assert [e.name for e in r.trace.events if e.name in ("SetFlag", "WaitFlag")] == ["SetFlag", "WaitFlag"]
    from npusim.core.errors import RaceError
    with pytest.raises(RaceError):
        asc.launch(k, 1, x, False, sync="manual")


def test_tque_sync_rejects_a_pipe_pair_with_no_event():
    with pytest.raises(ConstraintError, match="TQueSync"):
        asc.TQueSync(asc.PIPE_MTE2, asc.PIPE_MTE2)
