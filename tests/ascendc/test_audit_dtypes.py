"""Audit findings 9 and 10: per-API dtypes (Duplicate.md, Compare.md) and Compare's unaligned count tail."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

C = asc.CMPMODE


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend910_9391", "Ascend310P3", "Ascend310B1", "Ascend910A"])
def test_duplicate_bfloat16(soc):
    # Duplicate.md lists bfloat16_t for every product npusim models.
    with asc.core_context(soc):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        d = buf.GetWithOffset(asc.bfloat16_t, 256, 0).load(np.zeros(256))
        asc.Duplicate(d, 1.5, 200)
        got = d.numpy().astype(np.float64)
        assert (got[:200] == 1.5).all() and (got[200:] == 0).all()
        asc.Duplicate(d, 3.0, 64, 2, 1, 8)                           # level 0: mask 64 of 128 lanes, 2 repeats
        got = d.numpy().astype(np.float64)
        assert (got[:64] == 3).all() and (got[64:128] == 1.5).all() and (got[128:192] == 3).all()


def test_compare_int32_eq_only_on_a2_a3(core):
    a = np.array([1, 2, 3, 4] * 32, np.int32)
    b = np.array([1, 0, 3, 0] * 32, np.int32)
    s0, s1 = core.t(asc.int32_t, 128, 0).load(a), core.t(asc.int32_t, 128, 512)
    s1.load(b)
    d = core.t(asc.uint8_t, 32, 1024)
    asc.Compare(d, s0, s1, C.EQ, 128)
    np.testing.assert_array_equal(d.numpy()[:16], np.packbits(a == b, bitorder="little"))
    asc.Compare(d, s0, s1, C.EQ, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    np.testing.assert_array_equal(d.numpy()[:16], np.packbits(a == b, bitorder="little"))
    for mode in (C.LT, C.GT, C.LE, C.GE, C.NE):
        with pytest.raises(ConstraintError) as e:
            asc.Compare(d, s0, s1, mode, 128)
        assert (e.value.api, e.value.param, e.value.value) == ("Compare", "cmpMode", mode.name)


@pytest.mark.parametrize("soc", ["Ascend310P3", "Ascend310B1", "Ascend910A"])
def test_compare_int32_refused_elsewhere(soc):
    with asc.core_context(soc):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s = buf.GetWithOffset(asc.int32_t, 64, 0).load(np.zeros(64))
        d = buf.GetWithOffset(asc.uint8_t, 32, 1024)
        with pytest.raises(ConstraintError) as e:
            asc.Compare(d, s, s, C.EQ, 64)
        assert (e.value.param, e.value.value) == ("src0Local", "int32_t")


def test_select_stays_half_float_on_a2(core):
    s = core.t(asc.int32_t, 64, 0)
    with pytest.raises(ConstraintError) as e:
        asc.Select(s, core.t(asc.uint8_t, 32, 512), s, s, asc.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
    assert e.value.value == "int32_t"


def test_compare_count_tail_takes_no_part(core):
    # Compare.md: "未对齐部分元素不参与计算，仅完整对齐块有效": 300 halves = 2 whole repeats (256) + a tail of 44.
    rng = np.random.default_rng(3)
    a, b = rng.integers(-5, 5, 384).astype(np.float16), rng.integers(-5, 5, 384).astype(np.float16)
    d = core.t(asc.uint8_t, 64, 2048).load(np.full(64, 0xA5))
    asc.Compare(d, core.t(asc.half, 384, 0).load(a), core.t(asc.half, 384, 1024).load(b), C.LT, 300)
    np.testing.assert_array_equal(d.numpy()[:32], np.packbits(a[:256] < b[:256], bitorder="little"))
    assert (d.numpy()[32:] == 0xA5).all()                 # the tail's bits are untouched
    with pytest.raises(ConstraintError) as e:              # but count beyond the tensor still fails
        asc.Compare(d, core.t(asc.half, 256, 0), core.t(asc.half, 256, 1024), C.LT, 300)
    assert (e.value.param, e.value.value) == ("src0Local", 300)
