"""The programming model: launch, GM, TPipe/TQue/TBuf, DataCopy, flags, barriers, races."""
import numpy as np
import pytest
import npusim

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError, OutOfBoundsError, RaceError, UnsupportedError


def test_launch_spmd_blocks_write_back():
    def k(x, z):
        idx, n = asc.GetBlockIdx(), asc.GetBlockNum()
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(x.cast(asc.float) + 64 * idx, 64)
        zg = asc.GlobalTensor(asc.float); zg.SetGlobalBuffer(z.cast(asc.float) + 64 * idx, 64)
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(q, 1, 256)
        o = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(o, 1, 256)
        t = q.AllocTensor(asc.float); asc.DataCopy(t, xg, 64); q.EnQue(t)
        t = q.DeQue(asc.float)
        u = o.AllocTensor(asc.float)
        asc.Adds(u, t, float(idx * 100 + n), 64)
        o.EnQue(u); q.FreeTensor(t)
        u = o.DeQue(asc.float); asc.DataCopy(zg, u, 64); o.FreeTensor(u)

    x = np.arange(4 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    res = asc.launch(k, 4, x, z)
    want = x + np.repeat(np.arange(4) * 100 + 4, 64).astype(np.float32)
    np.testing.assert_array_equal(z, want)
    assert {e.core for e in res.trace.events} == {"aiv0", "aiv1", "aiv2", "aiv3"}
    assert {e.engine for e in res.trace.events} >= {"PIPE_V", "PIPE_MTE2", "PIPE_MTE3"}


def test_launch_block_num_range_and_soc_name():
    with pytest.raises(ConstraintError, match="numBlocks"):
        asc.launch(lambda: None, 0)
    with pytest.raises(ConstraintError, match="Ascend910B1"):
        asc.launch(lambda: None, 1, soc="Ascend999")


def test_more_blocks_than_cores_run_in_waves():
    def k(x):
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
        asc.Duplicate(b.Get(asc.float), 1.0, 256)
    r1 = asc.launch(k, 48, np.zeros(8, np.float32))
    r2 = asc.launch(k, 96, np.zeros(8, np.float32))
    assert r2.end_ns == pytest.approx(2 * r1.end_ns)


def test_global_tensor_bounds_and_scalar_access():
    def k(x):
        g = asc.GlobalTensor(asc.int32_t)
        g.SetGlobalBuffer(x, 1000)            # a size past the allocation is only a pointer: no access yet
        with pytest.raises(OutOfBoundsError):
            g.GetValue(128)                   # past the argument's 512-byte allocation
        with pytest.raises(OutOfBoundsError):
            g.SetGlobalBuffer(x + 513, 1)     # the start itself outside the allocation
        g.SetGlobalBuffer(x, 8)
        assert g.GetSize() == 8 and g[2].GetValue(1) == 3
        g.SetValue(0, 42)
    x = np.arange(8, dtype=np.int32)
    asc.launch(k, 1, x)
    assert x[0] == 42


def test_local_tensor_methods(core):
    t = core.t(asc.half, 256, 64)
    assert t.GetSize() == 256 and t.GetPhyAddr() == 64
    u = t[16]
    assert u.GetPhyAddr() == 96 and u.GetSize() == 240
    r = t.ReinterpretCast(asc.int32_t)
    assert r.GetSize() == 128 and r.dtype == asc.int32_t
    t.SetValue(3, 2.5)
    assert t.GetValue(3) == np.float16(2.5)
    with pytest.raises(ConstraintError):
        t[257]


def test_init_buffer_rounding_and_capacity():
    with asc.core_context("Ascend910B1"):
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.InitBuffer(q, 2, 100)                         # rounded up to 128 B each
        a = q.AllocTensor(asc.half); b = q.AllocTensor(asc.half)
        assert (a.GetPhyAddr(), b.GetPhyAddr(), a.GetSize()) == (0, 128, 64)
        big = asc.TBuf()
        with pytest.raises(ConstraintError, match="196608-byte UB"):
            pipe.InitBuffer(big, 192 * 1024)
        pipe.InitBuffer(big, 192 * 1024 - 256)


@pytest.mark.parametrize("soc,limit", [("Ascend910B1", 8), ("Ascend910A", 4)])
def test_queue_buffer_limit(soc, limit):
    with asc.core_context(soc):
        pipe = asc.TPipe()
        pipe.InitBuffer(asc.TQue(asc.TPosition.VECIN, 1), limit, 32)
        with pytest.raises(ConstraintError, match=f"num <= {limit}"):
            pipe.InitBuffer(asc.TQue(asc.TPosition.VECIN, 1), limit + 1, 32)


def test_queue_protocol_errors():
    with asc.core_context():
        pipe = asc.TPipe()
        q = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.InitBuffer(q, 1, 256)
        with pytest.raises(ConstraintError, match="enqueued"):
            q.DeQue(asc.half)
        t = q.AllocTensor(asc.half)
        with pytest.raises(ConstraintError, match="FreeTensor one first"):
            q.AllocTensor(asc.half)
        q.EnQue(t)
        with pytest.raises(ConstraintError, match="not yet enqueued"):
            q.EnQue(t)
        q.FreeTensor(q.DeQue(asc.half))
        with pytest.raises(ConstraintError, match="VECIN / VECCALC / VECOUT"):
            asc.TQue(asc.TPosition.A1, 1)


def test_datacopy_rules():
    def k(x):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 256)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 2048)
        t = b.Get(asc.half)
        with npusim.configure(strict=True), pytest.raises(ConstraintError, match="multiple of 32 bytes"):
            asc.DataCopy(t, g, 100)
        with pytest.raises(ConstraintError, match="32-byte aligned"):
            asc.DataCopy(t[1], g, 16)
        with pytest.raises(OutOfBoundsError, match="allocation"):
            asc.DataCopy(t, g, 512)
    asc.launch(k, 1, np.zeros(256, np.float16))


def test_datacopy_params_strided():
    def k(x, z):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 256)
        o = asc.GlobalTensor(asc.half); o.SetGlobalBuffer(z, 256)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
        t = b.Get(asc.half)
        asc.Duplicate(t, 0.0, 512)
        asc.PipeBarrier(asc.PIPE_ALL)
        # 4 blocks of 1 datablock (16 halves), GM gap 1 block, UB gap 0
        asc.DataCopy(t, g, asc.DataCopyParams(4, 1, 1, 0))
        asc.SetFlag(asc.HardEvent.MTE2_MTE3, 0); asc.WaitFlag(asc.HardEvent.MTE2_MTE3, 0)
        asc.DataCopy(o, t, 256)
    x = np.arange(256, dtype=np.float16)
    z = np.full(256, -1, np.float16)
    asc.launch(k, 1, x, z)
    want = np.concatenate([x[0:16], x[32:48], x[64:80], x[96:112]])
    np.testing.assert_array_equal(z[:64], want)
    assert (z[64:] == 0).all()


def _copy_then_add(sync: str):
    def k(x, z):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 128)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
        t = b.Get(asc.half, 128)
        asc.DataCopy(t, g, 128)
        if sync == "flag":
            asc.SetFlag(asc.HardEvent.MTE2_V, 0)
            asc.WaitFlag(asc.HardEvent.MTE2_V, 0)
        elif sync == "barrier":
            asc.PipeBarrier(asc.PIPE_ALL)
        asc.Adds(t, t, 1.0, 128)
    return k


def test_missing_flag_is_a_race():
    with pytest.raises(RaceError, match="PIPE_MTE2"):
        asc.launch(_copy_then_add("none"), 1, np.zeros(128, np.float16), np.zeros(8, np.float16), sync="manual")


@pytest.mark.parametrize("sync", ["flag", "barrier"])
def test_flags_and_barrier_order_pipes(sync):
    res = asc.launch(_copy_then_add(sync), 1, np.zeros(128, np.float16), np.zeros(8, np.float16))
    ev = {e.name: e for e in res.trace.events}
    assert ev["Adds"].start_ns >= ev["DataCopy"].end_ns


def test_flag_rules():
    with asc.core_context("Ascend910B1"):
        with pytest.raises(ConstraintError, match="SetFlag with the same event"):
            asc.WaitFlag(asc.HardEvent.MTE2_V, 1)
        with pytest.raises(ConstraintError, match="0 <= id < 6"):
            asc.SetFlag(asc.HardEvent.MTE2_V, 6)
        with pytest.raises(ConstraintError, match="HardEvent"):
            asc.SetFlag("MTE2_V", 0)


def test_set_mask_count_unsupported_on_910a():
    with asc.core_context("Ascend910A"):
        with pytest.raises(UnsupportedError, match="counter mode"):
            asc.SetMaskCount()


def test_set_vector_mask_len_rules(core):
    with pytest.raises(ConstraintError, match="len <= 128"):
        asc.SetVectorMask(asc.half, 129)
    asc.SetVectorMask(asc.half, 70)
    assert (core.context.mask_high, core.context.mask_low) == (63, 2 ** 64 - 1)
    asc.ResetMask()
    assert core.context.mask_high == 2 ** 64 - 1


def test_310p_mask_zero_is_error():
    with asc.core_context("Ascend310P3"):
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 2048)
        t = b.Get(asc.half, 128)
        with pytest.raises(ConstraintError, match="nonzero mask"):
            asc.Adds(t, t, 1.0, 0, 1, asc.UnaryRepeatParams())


def test_uninitialized_read_warns_only_for_active_lanes(core):
    import warnings
    s = core.t(asc.half, 128, 0)
    s.view(0, 8, "test").write(np.ones(8, np.float16))
    d = core.t(asc.half, 128, 1024)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asc.Adds(d, s, 1.0, 8, 1, asc.UnaryRepeatParams())     # only the 8 written lanes are read
    assert (d.numpy()[:8] == 2).all()


def test_pipe_v_read_after_write_needs_pipe_barrier():
    def body(barrier):
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 2048)
        x = b.GetWithOffset(asc.float, 64, 0).load(np.ones(64))
        y = b.GetWithOffset(asc.float, 64, 256)
        asc.Adds(y, x, 1.0, 64)
        if barrier:
            asc.PipeBarrier(asc.PIPE_V)
        asc.Exp(y, y, 64)
        return y
    with asc.core_context():
        with pytest.raises(RaceError, match="PipeBarrier<PIPE_V>"):
            body(False)
    with asc.core_context():
        assert body(True).numpy()[0] == np.float32(np.exp(2.0))
    with asc.core_context(check_pipe_v=False):
        body(False)


def test_set_flag_twice_without_wait_is_an_error():
    with asc.core_context():
        asc.SetFlag(asc.HardEvent.V_S, 2)
        with pytest.raises(ConstraintError, match="set again"):
            asc.SetFlag(asc.HardEvent.V_S, 2)
        asc.WaitFlag(asc.HardEvent.V_S, 2)
        asc.SetFlag(asc.HardEvent.V_S, 2)          # fine once consumed


def test_strict_mode_uninitialized_ub_read_raises():
    import npusim
    from npusim.core.errors import UninitializedReadError
    with npusim.configure(strict=True), asc.core_context():
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 1024)
        x = b.GetWithOffset(asc.float, 64, 0)
        with pytest.raises(UninitializedReadError, match="Adds"):
            asc.Adds(b.GetWithOffset(asc.float, 64, 256), x, 1.0, 64)


def test_chrome_trace_has_pipe_threads(tmp_path):
    import json

    def k(x):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 128)
        pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(q, 1, 256)
        t = q.AllocTensor(asc.half); asc.DataCopy(t, g, 128); q.EnQue(t)
        t = q.DeQue(asc.half); asc.Adds(t, t, 1.0, 128); q.FreeTensor(t)
    res = asc.launch(k, 1, np.zeros(128, np.float16))
    path = tmp_path / "t.json"
    res.trace.to_chrome(str(path))
    data = json.loads(path.read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    assert {"PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3"} <= threads
    names = {e["name"] for e in events if e.get("ph") == "X"}
    assert {"DataCopy", "Adds", "EnQue", "DeQue"} <= names


def _block_copy_kernel(x, z, overlap):
    i = asc.GetBlockIdx()
    xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(x.cast(asc.half) + 128 * i, 128)
    start = 64 * i if overlap else 128 * i
    zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(z.cast(asc.half) + start, 128)
    pipe = asc.TPipe(); q = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(q, 1, 256)
    t = q.AllocTensor(asc.half)
    asc.Duplicate(t, float(i), 128)
    q.EnQue(t); t = q.DeQue(asc.half)
    asc.DataCopy(zg, t, 128)
    q.FreeTensor(t)


def test_blocks_writing_the_same_gm_bytes_is_a_race():
    x = np.zeros(4 * 128, np.float16)
    z = np.zeros(4 * 128, np.float16)
    asc.launch(_block_copy_kernel, 4, x, z, False)
    np.testing.assert_array_equal(z, np.repeat(np.arange(4), 128).astype(np.float16))
    with pytest.raises(RaceError, match="multi-core overlap"):
        asc.launch(_block_copy_kernel, 4, x, z, True)
    asc.launch(_block_copy_kernel, 4, x, z, True, check_cores=False)


def test_set_value_follows_cpp_scalar_conversion(core):
    t = core.t(asc.int8_t, 32, 0)
    t.SetValue(0, 2.7); t.SetValue(1, -2.7); t.SetValue(2, 300)
    h = core.t(asc.half, 16, 32)
    h.SetValue(0, 1 + 2 ** -11)                 # a tie between 1 and 1 + 2^-10: to even
    assert [int(t.GetValue(i)) for i in range(3)] == [2, -2, 44]
    assert h.GetValue(0) == np.float16(1.0)
