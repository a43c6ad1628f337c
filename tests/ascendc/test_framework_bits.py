"""Tiling data, GetTPipePtr event ids, aliases, ASSERT, Broadcast."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

Tiling = asc.BEGIN_TILING_DATA_DEF(
    "AddCustomTilingData",
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "totalLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint16_t, "tileNum"),
    asc.TILING_DATA_FIELD_DEF_ARR(asc.float, 3, "scales"),
    asc.TILING_DATA_FIELD_DEF(asc.int64_t, "big"))


def test_tiling_struct_layout_pack_unpack():
    t = Tiling(totalLength=2048, tileNum=8, scales=[1.0, 0.5, 2.0], big=-3)
    raw = t.pack()
    # C layout: u32 @0, u16 @4, pad, float[3] @8, pad to 8, i64 @24 -> 32 bytes
    assert Tiling.SIZE == 32 and raw.size == 32
    assert raw[:4].view(np.uint32)[0] == 2048 and raw[4:6].view(np.uint16)[0] == 8
    np.testing.assert_array_equal(raw[8:20].view(np.float32), [1.0, 0.5, 2.0])
    assert raw[24:32].view(np.int64)[0] == -3
    assert Tiling.unpack(raw) == t
    with pytest.raises(ConstraintError, match="uint16_t"):
        Tiling(tileNum=70000)
    with pytest.raises(ConstraintError, match="fields of"):
        Tiling.from_dict({"nope": 1})


def test_get_tiling_data_from_instance_dict_and_gm_bytes():
    seen = []

    def k(x, tiling_obj, tiling_dict, tiling_gm):
        for arg, cls in ((tiling_obj, Tiling), (tiling_dict, None), (tiling_gm, Tiling)):
            td = asc.GET_TILING_DATA(arg, cls)
            seen.append((td.totalLength, td.tileNum))
    t = Tiling(totalLength=64, tileNum=4)
    asc.launch(k, 1, np.zeros(8, np.float32), t, {"totalLength": 64, "tileNum": 4}, t.pack())
    assert seen == [(64, 4)] * 3


def test_event_id_pool_and_aliases():
    def k(x):
        pipe = asc.TPipe()
        assert asc.GetTPipePtr() is pipe
        e = asc.GetTPipePtr().FetchEventID(asc.HardEvent.V_S)
        a = pipe.AllocEventID(asc.HardEvent.V_S)
        assert e == a == 0 and pipe.FetchEventID(asc.HardEvent.V_S) == 1
        ids = [pipe.AllocEventID(asc.HardEvent.V_S) for _ in range(5)]
        assert ids == [1, 2, 3, 4, 5]
        with pytest.raises(ConstraintError, match="free id"):
            pipe.AllocEventID(asc.HardEvent.V_S)
        pipe.ReleaseEventID(asc.HardEvent.V_S, 3)
        assert pipe.FetchEventID(asc.HardEvent.V_S) == 3
        with pytest.raises(ConstraintError, match="AllocEventID"):
            pipe.ReleaseEventID(asc.HardEvent.V_S, 3)
        b = asc.TBuf(asc.QuePosition.VECCALC); pipe.InitBuffer(b, 64)
        t = b.Get(asc.float16_t); b.FreeTensor(t)
        assert t.dtype is asc.half and asc.float32_t is asc.float
        asc.ASSERT(True)
        with pytest.raises(ConstraintError, match="ASSERT"):
            asc.ASSERT(False, "tileNum > 0")
    asc.launch(k, 1, np.zeros(8, np.float32))


def test_broadcast_forms():
    with asc.core_context() as ctx:
        src = asc.LocalTensor(ctx, 0, asc.float, 64, asc.TPosition.VECCALC).load(np.arange(64, dtype=np.float32))
        dst = asc.LocalTensor(ctx, 1024, asc.float, 1024, asc.TPosition.VECCALC)
        asc.Broadcast[asc.float, 2, 1](dst, src, [4, 16], [4, 1])
        np.testing.assert_array_equal(dst.numpy()[:64].reshape(4, 16), np.repeat(np.arange(4.0)[:, None], 16, 1))
        asc.BroadCast(dst, src, [3, 8], [1, 8])             # dim and axis deduced
        np.testing.assert_array_equal(dst.numpy()[:24].reshape(3, 8), np.tile(np.arange(8.0), (3, 1)))
        with pytest.raises(ConstraintError, match="32 bytes"):
            asc.Broadcast(dst, src, [3, 7], [1, 7], dim=2, axis=0)
        with pytest.raises(ConstraintError, match="srcShape"):
            asc.Broadcast(dst, src, [3, 8], [2, 8], dim=2, axis=0)


def test_nested_tiling_struct_like_the_softmax_sample():
    Outer = asc.BEGIN_TILING_DATA_DEF(
        "SoftmaxCustomTilingData",
        asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "columnLength"),
        asc.TILING_DATA_FIELD_DEF(asc.uint16_t, "flag"),
        asc.TILING_DATA_FIELD_DEF_STRUCT(asc.SoftMaxTiling, "softmaxTilingData"))
    assert asc.SoftMaxTiling.SIZE == 64 and Outer.SIZE == 72          # 4 + 2 + pad 2 + 16 x uint32
    t = Outer(columnLength=32, flag=1, softmaxTilingData=asc.SoftMaxTilingFunc((8, 32), 4))
    raw = t.pack()
    assert raw[8:12].view(np.uint32)[0] == 8 and raw[12:16].view(np.uint32)[0] == 32
    assert Outer.unpack(raw) == t
    assert asc.LayerNormTiling.SIZE == 26 * 4
    with pytest.raises(ConstraintError, match="SoftMaxTiling"):
        Outer(softmaxTilingData=3)
