"""The level-0 prototypes of ReduceSum / ReduceMax / ReduceMin (audit finding 5) and their dtypes per product
(finding 9). Vendor pages: ReduceSum.md, ReduceMax.md, ReduceMin.md (mirror-cann/asc-devkit)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

FULL = 2 ** 64 - 1


class BigCore:
    """A 910B1 core with a 180 KiB scratch buffer (the vendor examples need up to 130 KB of source)."""
    def __enter__(self):
        self.cm = asc.core_context("Ascend910B1")
        self.context = self.cm.__enter__()
        pipe = asc.TPipe(); self.buf = asc.TBuf(); pipe.InitBuffer(self.buf, 180 * 1024)
        return self

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc)

    def t(self, dtype, n, off):
        return self.buf.GetWithOffset(dtype, n, off)


def tensors(core, dtype, n_src, n_tmp, n_dst=16):
    s = dtype.itemsize
    src = core.t(dtype, n_src, 0)
    tmp = core.t(dtype, n_tmp, (n_src * s + 31) // 32 * 32)
    dst = core.t(dtype, n_dst, (n_src * s + 31) // 32 * 32 + (n_tmp * s + 31) // 32 * 32)
    return dst, src, tmp


def tree_sum_ref(rows, np_t):
    """Float64 reference of the documented order: adjacent pairs, each addition rounded to T."""
    x = rows.astype(np_t)
    while x.shape[1] > 1:
        x = (x[:, 0::2].astype(np.float64) + x[:, 1::2].astype(np.float64)).astype(np_t)
    return x[:, 0]


def test_vendor_reduce_sum_example_8320_ones(core):
    # ReduceSum.md: ReduceSum<half>(dst, src, tmp, 128, 65, 8) over 8320 ones gives 8320.
    dst, src, tmp = tensors(core, asc.half, 8320, 80)
    src.load(np.ones(8320))
    asc.ReduceSum(dst, src, tmp, 128, 65, 8)
    assert float(dst.numpy()[0]) == 8320.0
    dst.load(np.zeros(16))
    asc.ReduceSum(dst, src, tmp, [FULL, FULL], 65, 8)
    assert float(dst.numpy()[0]) == 8320.0


def test_vendor_reduce_max_example_with_index(core):
    # ReduceMax.md: ReduceMax<half>(dst, src, tmp, 128, 65, 8, true); tmp needs 176 elements (example 1).
    x = np.random.default_rng(1).uniform(-100, 100, 8320).astype(np.float16)
    x[5000] = 1000.0
    x[7000] = 1000.0                                   # equal maxima: the smaller index wins
    dst, src, tmp = tensors(core, asc.half, 8320, 176)
    src.load(x)
    asc.ReduceMax(dst, src, tmp, 128, 65, 8, True)
    assert float(dst.numpy()[0]) == 1000.0
    assert dst.ReinterpretCast(asc.uint16_t).numpy()[1] == 5000
    asc.ReduceMin(dst, src, tmp, 128, 65, 8, calIndex=True)
    assert float(dst.numpy()[0]) == float(x.min())
    assert dst.ReinterpretCast(asc.uint16_t).numpy()[1] == int(np.argmin(x))


@pytest.mark.parametrize("kind,R,dtype,idx,need", [
    ("max", 65, asc.half, True, 176), ("max", 255, asc.half, True, 544), ("max", 4, asc.half, True, 32),
    ("max", 511, asc.half, False, 1024), ("max", 130, asc.float, True, 288), ("sum", 65, asc.half, False, 80),
    ("sum", 130, asc.float, False, 136)])
def test_shared_tmp_buffer_size_follows_the_vendor_formula(kind, R, dtype, idx, need):
    # ReduceMax.md 关键特性说明 examples 1, 2, 4, 5 and 6 (float: 264 + 16 + 8); ReduceSum.md 方式二.
    with BigCore() as core:
        _tmp_size_case(core, kind, R, dtype, idx, need)


def _tmp_size_case(core, kind, R, dtype, idx, need):
    E = 256 // dtype.itemsize
    dst, src, tmp = tensors(core, dtype, R * E, need)
    src.load(np.ones(R * E))
    call = (lambda t: asc.ReduceSum(dst, src, t, E, R, 8)) if kind == "sum" else \
        (lambda t: asc.ReduceMax(dst, src, t, E, R, 8, idx))
    call(tmp)                                            # exactly the documented size is enough
    short = core.t(dtype, need - 32 // dtype.itemsize, tmp.addr)
    with pytest.raises(ConstraintError) as e:
        call(short)
    assert e.value.param == "sharedTmpBuffer" and str(need) in e.value.rule


@settings(max_examples=25, deadline=None)
@given(R=st.integers(1, 40), rep=st.integers(0, 12), lo=st.integers(0, 2 ** 64 - 1), hi=st.integers(0, 2 ** 64 - 1),
       seed=st.integers(0, 1000), f32=st.booleans())
def test_level0_matches_a_float64_reference(R, rep, lo, hi, seed, f32):
    """Strided repeats and a bit mask: sum by the documented tree (方式二), max/min with the index
    r * E + lane (first among equals)."""
    dtype, np_t = (asc.float, np.float32) if f32 else (asc.half, np.float16)
    E, s = 256 // dtype.itemsize, dtype.itemsize
    if f32:
        hi = 0
    lanes = np.array([(lo >> i) & 1 for i in range(64)] + [(hi >> i) & 1 for i in range(64)], bool)[:E]
    if not lanes.any():
        lo, lanes[0] = lo | 1, True
    n_src = max((R - 1) * rep * 32 // s + E, 1)
    x = np.random.default_rng(seed).integers(-50, 50, n_src).astype(np_t) / np_t(4)
    with asc.core_context("Ascend910B1"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 96 * 1024)
        src = buf.GetWithOffset(dtype, n_src, 0).load(x)
        base = (n_src * s + 31) // 32 * 32
        tmp = buf.GetWithOffset(dtype, 512, base)
        dst = buf.GetWithOffset(dtype, 16, base + 512 * s)
        rows = np.stack([x[r * rep * 32 // s:r * rep * 32 // s + E] for r in range(R)])
        asc.ReduceSum(dst, src, tmp, [lo, hi], R, rep)
        v = tree_sum_ref(np.where(lanes, rows, 0), np_t)
        while v.size > 1:
            v = tree_sum_ref(np.pad(v, (0, -v.size % E)).reshape(-1, E), np_t)
        np.testing.assert_array_equal(dst.numpy()[:1], v)
        it = asc.uint16_t if s == 2 else asc.uint32_t
        for api, fill, pick in ((asc.ReduceMax, -np.inf, np.argmax), (asc.ReduceMin, np.inf, np.argmin)):
            api(dst, src, tmp, [lo, hi], R, rep, True)
            flat = np.where(lanes, rows.astype(np.float64), fill).reshape(-1)
            i = int(pick(flat))
            assert dst.numpy()[0] == rows.reshape(-1)[i]
            assert dst.ReinterpretCast(it).numpy()[1] == i


def test_repeat_zero_and_mask_zero_are_nops(core):
    dst, src, tmp = tensors(core, asc.float, 64, 64)
    src.load(np.arange(64.0))
    dst.load(np.full(16, 7.0))
    asc.ReduceSum(dst, src, tmp, 64, 0, 8)
    asc.ReduceMax(dst, src, tmp, 0, 1, 8)
    assert (dst.numpy() == 7).all()


def test_level0_rules(core):
    dst, src, tmp = tensors(core, asc.half, 256, 64)
    src.load(np.ones(256))
    cases = [
        (lambda: asc.ReduceSum(dst, src, tmp, 128, -1, 8), "repeatTime", -1),
        (lambda: asc.ReduceSum(dst, src, tmp, 128, 1, 65536), "srcRepStride", 65536),
        (lambda: asc.ReduceMax(dst, src, tmp, 129, 1, 8), "mask", 129),
        (lambda: asc.ReduceMax(dst, src, tmp, 128, 3, 8), "src", 768),            # 3 repeats > 256 elements
        (lambda: asc.ReduceMax(dst, src, tmp, 128, 1, 8, True, True), "arguments", 8),
        (lambda: asc.ReduceMax(core.t(asc.half, 1, dst.addr), src, tmp, 128, 1, 8, True), "dst", 1),
        (lambda: asc.ReduceMax(dst, src, core.t(asc.float, 64, tmp.addr), 128, 1, 8), "dstLocal", None),
    ]
    for call, param, value in cases:
        with pytest.raises(ConstraintError) as e:
            call()
        assert e.value.param == param, (param, e.value)
        if value is not None:
            assert e.value.value == value


def test_half_index_limit():
    # ReduceMax.md: with half the index is at most 65535 (uint16_t).
    with BigCore() as core:
        src, tmp, dst = core.t(asc.half, 16, 0), core.t(asc.half, 16, 32), core.t(asc.half, 16, 64)
        with pytest.raises(ConstraintError) as e:
            asc.ReduceMax(dst, src, tmp, 128, 513, 0, True)
        assert (e.value.param, e.value.value) == ("repeatTime", 513)
        big = core.t(asc.half, 65537, 1024)
        with pytest.raises(ConstraintError) as e:
            asc.ReduceMin(dst, big, tmp, 65537, True)
        assert (e.value.param, e.value.value) == ("count", 65537)
        big.load(np.zeros(65537))
        asc.ReduceMin(dst, big, tmp, 65536, True)                 # 65535 is still an index


def test_counter_mode_is_refused(core):
    dst, src, tmp = tensors(core, asc.half, 128, 64)
    asc.SetMaskCount()
    with pytest.raises(ConstraintError, match="Normal mode"):
        asc.ReduceSum(dst, src, tmp, 128, 1, 8)
    asc.SetMaskNorm()


def test_cost_is_one_event_per_call_with_the_pass_fits(core):
    dst, src, tmp = tensors(core, asc.half, 8320, 176)
    src.load(np.ones(8320))
    asc.ReduceMax(dst, src, tmp, 128, 65, 8, True)
    ev = [e for e in core.context.timeline.trace.events if e.name == "ReduceMax"][-1]
    # passes: 65 repeats, then the 130 (value, index) halves in 2 repeats, then 4 in 1 -> VCMAX 7r each.
    assert ev.args["passes"] == 3
    from npusim.ascendc import cost
    assert ev.cycles == sum(cost.vector_cycles("reduce_maxmin", r, "float16") for r in (65, 2, 1))


@pytest.mark.parametrize("api", ["ReduceSum", "ReduceMax", "ReduceMin"])
def test_910a_reduces_half_only(api):
    # ReduceSum.md / ReduceMax.md / ReduceMin.md: Atlas 训练系列产品 supports half only.
    with asc.core_context("Ascend910A"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s, w, d = (buf.GetWithOffset(asc.float, 64, off) for off in (0, 512, 1024))
        s.load(np.ones(64))
        for args in ((64,), (64, 1, 8)):
            with pytest.raises(ConstraintError) as e:
                getattr(asc, api)(d, s, w, *args)
            assert (e.value.param, e.value.value) == ("srcLocal", "float")
        h, hw, hd = (buf.GetWithOffset(asc.half, 128, off) for off in (0, 512, 1024))
        h.load(np.full(128, 2.0))
        getattr(asc, api)(hd, h, hw, 128)
        assert float(hd.numpy()[0]) == (256.0 if api == "ReduceSum" else 2.0)
