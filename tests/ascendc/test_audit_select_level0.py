"""Select's level-0 prototype (audit finding 5) and its modes per product (finding 9). Vendor page: Select.md
(mirror-cann/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

M = asc.SELMODE
P8 = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
# Select.md example: maskLocal bytes, and src0/src1 elements 0-7 and 64-71 of its float data.
MASK = [60, 32, 10, 7, 42, 52, 38, 26, 19, 15, 18, 83, 41, 43, 91, 30, 45, 77, 80, 58, 34, 76, 44, 4, 64, 45, 48,
        31, 30, 56, 43, 88]
S0 = {0: [-80.4933, 52.2499, -50.6124, -72.3737, -33.7107, -83.4001, 34.3954, 61.3188],
      64: [79.6631, 66.8743, 18.1016, -27.7082, -67.0339, -11.9576, 52.0373, -11.5452]}
S1 = {0: [35.8789, 44.0334, 54.9997, 44.8567, -30.8579, -53.714, -59.8013, 71.1663],
      64: [-74.3328, 77.2781, 52.7964, -0.932984, 70.8957, -68.1249, 85.895, 25.4119]}
OUT = {  # the page's dstLocal, same positions
    M.VSEL_TENSOR_TENSOR_MODE: {0: [35.8789, 44.0334, -50.6124, -72.3737, -33.7107, -83.4001, -59.8013, 71.1663],
                                64: [79.6631, 66.8743, 52.7964, -0.932984, -67.0339, -68.1249, 85.895, 25.4119]},
    M.VSEL_TENSOR_SCALAR_MODE: {0: [0, 0, -50.6124, -72.3737, -33.7107, -83.4001, 0, 0],
                                64: [79.6631, 66.8743, 0, 0, -67.0339, 0, 0, 0]},
    M.VSEL_CMPMASK_SPR: {0: [35.8789, 44.0334, -50.6124, -72.3737, -33.7107, -83.4001, -59.8013, 71.1663],
                         64: [-74.3328, 77.2781, 18.1016, -27.7082, -67.0339, -11.9576, 85.895, 25.4119]},
}


def _example_data():
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-100, 100, 256).astype(np.float32), rng.uniform(-100, 100, 256).astype(np.float32)
    for k in (0, 64):
        a[k:k + 8], b[k:k + 8] = S0[k], S1[k]
    return a, b


@pytest.mark.parametrize("mode", list(M))
def test_vendor_example_mask_64_repeat_4(core, mode):
    a, b = _example_data()
    s0, s1 = core.t(asc.float, 256, 0).load(a), core.t(asc.float, 256, 1024).load(b)
    m = core.t(asc.uint8_t, 128, 2048).load(np.array(MASK + [0] * 96))
    d = core.t(asc.float, 256, 4096).load(np.zeros(256))
    src1 = 0.0 if mode is M.VSEL_TENSOR_SCALAR_MODE else s1
    asc.Select(d, m, s0, src1, mode, 64, 4, P8)
    for k in (0, 64):
        np.testing.assert_array_equal(d.numpy()[k:k + 8], np.float32(OUT[mode][k]))
    bits = np.unpackbits(np.array(MASK, np.uint8), bitorder="little").astype(bool)
    if mode is M.VSEL_CMPMASK_SPR:
        bits = np.tile(bits[:64], 4)                  # every repeat reuses the first 64 bits
    other = np.float32(0) if mode is M.VSEL_TENSOR_SCALAR_MODE else b
    np.testing.assert_array_equal(d.numpy(), np.where(bits, a, other))


@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(list(M)), R=st.integers(1, 6), lo=st.integers(0, 2 ** 64 - 1),
       hi=st.integers(0, 2 ** 64 - 1), strides=st.tuples(*[st.integers(1, 3)] * 3, *[st.integers(8, 20)] * 3),
       seed=st.integers(0, 99))
def test_level0_geometry_against_a_per_element_reference(mode, R, lo, hi, strides, seed):
    """Half, bit mask, block and repeat strides: lanes the mask leaves out keep dst's old value."""
    E, bpb = 128, 16
    rng = np.random.default_rng(seed)
    with asc.core_context("Ascend910B1"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 160 * 1024)
        n = 32 * 1024 // 2
        ts = [buf.GetWithOffset(asc.half, n, k * 32 * 1024) for k in range(4)]
        vals = [rng.uniform(-9, 9, n).astype(np.float16) for _ in range(4)]
        for t, v in zip(ts, vals):
            t.load(v)
        d, s0, s1, _ = ts
        mbytes = rng.integers(0, 256, 128).astype(np.uint8)
        m = buf.GetWithOffset(asc.uint8_t, 128, 128 * 1024).load(mbytes)
        p = asc.BinaryRepeatParams(*strides)
        src1 = 2.5 if mode is M.VSEL_TENSOR_SCALAR_MODE else s1
        asc.Select(d, m, s0, src1, mode, [lo, hi], R, p)
        want = vals[0].copy()
        lanes = [(lo >> i) & 1 for i in range(64)] + [(hi >> i) & 1 for i in range(64)]
        bits = np.unpackbits(mbytes, bitorder="little")
        (db, s0b, s1b, dr, s0r, s1r) = strides

        def at(rep, blk, r, i):
            return r * rep * bpb + (i // bpb) * blk * bpb + i % bpb
        for r in range(R):
            for i in range(E):
                if lanes[i]:
                    bit = bits[i] if mode is M.VSEL_CMPMASK_SPR else bits[r * E + i]
                    other = np.float16(2.5) if mode is M.VSEL_TENSOR_SCALAR_MODE else vals[2][at(s1r, s1b, r, i)]
                    want[at(dr, db, r, i)] = vals[1][at(s0r, s0b, r, i)] if bit else other
        np.testing.assert_array_equal(d.numpy(), want)


def test_mode0_loads_the_compare_mask_register(core):
    s0, s1 = core.t(asc.half, 128, 0).load(np.ones(128)), core.t(asc.half, 128, 256).load(np.zeros(128))
    m = core.t(asc.uint8_t, 32, 512).load(np.arange(32))
    d, reg = core.t(asc.half, 128, 1024), core.t(asc.uint8_t, 32, 2048)
    asc.Select(d, m, s0, s1, M.VSEL_CMPMASK_SPR, 128, 1, P8)
    asc.GetCmpMask(reg)
    np.testing.assert_array_equal(reg.numpy()[:16], np.arange(16))


def test_repeat_zero_mask_zero_and_cost(core):
    # src1 starts in bank group 8 so no bank group holds more than two blocks: the plain two-source fit.
    s0, s1 = core.t(asc.float, 512, 0).load(np.ones(512)), core.t(asc.float, 512, 2304).load(np.zeros(512))
    m = core.t(asc.uint8_t, 64, 4608).load(np.full(64, 255))
    d = core.t(asc.float, 512, 8192).load(np.full(512, 3.0))
    asc.Select(d, m, s0, s1, M.VSEL_TENSOR_TENSOR_MODE, 64, 0, P8)
    asc.Select(d, m, s0, s1, M.VSEL_TENSOR_TENSOR_MODE, 0, 4, P8)
    assert (d.numpy() == 3).all()
    asc.Select(d, m, s0, s1, M.VSEL_TENSOR_TENSOR_MODE, 64, 8, P8)
    assert (d.numpy() == 1).all()
    ev = [e for e in core.context.timeline.trace.events if e.name == "Select"][-1]
    from npusim.ascendc import cost
    assert ev.cycles == cost.vector_cycles("two", 8, "float32")


def test_level0_rules(core):
    s0, s1 = core.t(asc.half, 256, 0), core.t(asc.half, 256, 512)
    m, d = core.t(asc.uint8_t, 32, 1024), core.t(asc.half, 256, 2048)
    TT = M.VSEL_TENSOR_TENSOR_MODE
    cases = [
        (lambda: asc.Select(d, m, s0, s1, TT, 128, 2, (1, 1, 1, 8, 8, 8)), "repeatParams"),
        (lambda: asc.Select(d, core.t(asc.int8_t, 32, 1024), s0, s1, TT, 128, 2, P8), "selMask"),
        (lambda: asc.Select(d, m, s0, s1, TT, 128, 3, P8), "dstLocal"),           # footprint beyond 256
        (lambda: asc.Select(d, m, s0, s1, TT, 128, 256, P8), "repeatTime"),
        (lambda: asc.Select(d, m, s0, s1, TT, 129, 1, P8), "mask"),
        (lambda: asc.Select(d, core.t(asc.uint8_t, 16, 1024), s0, s1, TT, 128, 2, P8), "selMask"),  # 32 B needed
        (lambda: asc.Select(d, m, s0, s1, M.VSEL_TENSOR_SCALAR_MODE, 128, 1, P8), "src1"),
        (lambda: asc.Select(d, m, s0, s1, TT, 128, 1, asc.BinaryRepeatParams(0, 1, 1, 8, 8, 8)), "dstBlkStride"),
        (lambda: asc.Select(core.t(asc.half, 256, 32), m, s0, s1, TT, 128, 1, P8), "src0Local"),   # partial overlap
        (lambda: asc.Select(d, m, s0, s1, TT, 128, 1), "arguments"),
    ]
    for call, param in cases:
        with pytest.raises(ConstraintError) as e:
            call()
        assert e.value.param == param, (param, e.value)


def test_910a_supports_mode_0_only():
    # Select.md: Atlas 训练系列产品，仅支持模式0.
    with asc.core_context("Ascend910A"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        a = buf.GetWithOffset(asc.half, 128, 0).load(np.ones(128))
        b = buf.GetWithOffset(asc.half, 128, 256).load(np.zeros(128))
        m = buf.GetWithOffset(asc.uint8_t, 32, 512).load(np.full(32, 0x0F))
        d = buf.GetWithOffset(asc.half, 128, 1024)
        for mode, src1 in ((M.VSEL_TENSOR_TENSOR_MODE, b), (M.VSEL_TENSOR_SCALAR_MODE, 0.0)):
            for tail in ((128,), (128, 1, P8)):
                with pytest.raises(ConstraintError) as e:
                    asc.Select(d, m, a, src1, mode, *tail)
                assert (e.value.param, e.value.value) == ("selMode", mode.name)
        asc.Select(d, m, a, b, M.VSEL_CMPMASK_SPR, 128, 1, P8)
        np.testing.assert_array_equal(d.numpy(), np.tile([1, 1, 1, 1, 0, 0, 0, 0], 16))
