"""AddReluCast: the seed's example in all three prototypes, masks, strides, saturation, rules."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim
from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

FULL = 2 ** 64 - 1


def seed_inputs():
    # The seed: src0 [1 1 3 ... 512], src1 [0 0.5 -4 ... -513] -> dst [1 2 0 ... 0]
    a = np.arange(1, 513, dtype=np.float64)
    a[1] = 1
    b = -np.arange(2, 514, dtype=np.float64)
    b[:3] = [0, 0.5, -4]
    return a.astype(np.float16), b.astype(np.float16)


def reference_half_int8(a, b):
    """Independent float64 golden: exact sum, rounded to half (RNE), relu, RNE to int, saturate."""
    s = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16).astype(np.float64)
    s = np.maximum(s, 0)
    return np.clip(np.rint(s), -128, 127).astype(np.int8)


def add_relu_cast_kernel(x, y, z, form):
    pipe = asc.TPipe()
    xGm = asc.GlobalTensor(asc.half); xGm.SetGlobalBuffer(x, 512)
    yGm = asc.GlobalTensor(asc.half); yGm.SetGlobalBuffer(y, 512)
    zGm = asc.GlobalTensor(asc.int8_t); zGm.SetGlobalBuffer(z, 512)
    inX = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(inX, 1, 1024)
    inY = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(inY, 1, 1024)
    outQ = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(outQ, 1, 512)
    a = inX.AllocTensor(asc.half); asc.DataCopy(a, xGm, 512); inX.EnQue(a)
    b = inY.AllocTensor(asc.half); asc.DataCopy(b, yGm, 512); inY.EnQue(b)
    a = inX.DeQue(asc.half); b = inY.DeQue(asc.half)
    c = outQ.AllocTensor(asc.int8_t)
    if form == "count":
        asc.AddReluCast(c, a, b, 512)
    elif form == "continuous":
        asc.AddReluCast(c, a, b, 128, 4, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    else:
        asc.AddReluCast(c, a, b, [FULL, FULL], 4, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    outQ.EnQue(c)
    inX.FreeTensor(a); inY.FreeTensor(b)
    c = outQ.DeQue(asc.int8_t)
    asc.DataCopy(zGm, c, 512)
    outQ.FreeTensor(c)


@pytest.mark.parametrize("form", ["count", "continuous", "bits"])
def test_seed_example_all_three_prototypes(form):
    x, y = seed_inputs()
    z = np.full(512, 99, np.int8)
    res = asc.launch(add_relu_cast_kernel, 1, x, y, z, form, soc="Ascend910B1")
    assert z[:3].tolist() == [1, 2, 0]
    assert (z[3:] == 0).all()
    np.testing.assert_array_equal(z, reference_half_int8(x, y))
    names = [e.name for e in res.trace.events]
    assert "AddReluCast" in names and names.count("DataCopy") == 3
    ev = next(e for e in res.trace.events if e.name == "AddReluCast")
    assert ev.engine == "PIPE_V" and ev.cycles == 8        # max(L = 3, s = 2 * 4 repeats), issue 7


@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 512))
@settings(max_examples=25, deadline=None)
def test_half_to_int8_matches_float64_reference(seed, n):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(512) * 100).astype(np.float16)
    b = (rng.standard_normal(512) * 100).astype(np.float16)
    with asc.core_context():
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s0 = buf.GetWithOffset(asc.half, 512, 0).load(a)
        s1 = buf.GetWithOffset(asc.half, 512, 1024).load(b)
        d = buf.GetWithOffset(asc.int8_t, 512, 2048).load(np.full(512, 77))
        asc.AddReluCast(d, s0, s1, n)
        got = d.numpy()
        np.testing.assert_array_equal(got[:n], reference_half_int8(a, b)[:n])
        assert (got[n:] == 77).all()


def _ref_level0(x0, x1, old, masklo, maskhi, repeat, p):
    """Per-element reference of the level-0 addressing (ascendc.md §1.2 formula), half -> int8."""
    out = old.copy()
    bits = [(masklo >> i) & 1 for i in range(64)] + [(maskhi >> i) & 1 for i in range(64)]
    golden = reference_half_int8
    for r in range(repeat):
        for i in range(128):
            if not bits[i]:
                continue
            a = x0[r * p[4] * 16 + (i // 16) * p[1] * 16 + i % 16]
            b = x1[r * p[5] * 16 + (i // 16) * p[2] * 16 + i % 16]
            out[r * p[3] * 32 + (i // 32) * p[0] * 32 + i % 32] = golden(np.array([a]), np.array([b]))[0]
    return out


@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 64 - 1), st.integers(0, 4),
       st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 12), st.integers(0, 12),
                 st.integers(0, 12)))
@settings(max_examples=30, deadline=None)
def test_level0_geometry_matches_per_element_reference(seed, lo, hi, repeat, p):
    rng = np.random.default_rng(seed)
    x0 = (rng.standard_normal(4096) * 60).astype(np.float16)
    x1 = (rng.standard_normal(4096) * 60).astype(np.float16)
    old = rng.integers(-128, 128, 4096).astype(np.int8)
    with asc.core_context():
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 32768)
        s0 = buf.GetWithOffset(asc.half, 4096, 0).load(x0)
        s1 = buf.GetWithOffset(asc.half, 4096, 8192).load(x1)
        d = buf.GetWithOffset(asc.int8_t, 4096, 16384).load(old)
        asc.AddReluCast(d, s0, s1, [lo, hi], repeat, asc.BinaryRepeatParams(*p))
        np.testing.assert_array_equal(d.numpy(), _ref_level0(x0, x1, old, lo, hi, repeat, p))


def test_saturation_half_to_int8(core):
    a = core.t(asc.half, 128, 0).load([127.5, 300, 128.5, -5, 126.5, 0.5, 1.5, 2.5] * 16)
    b = core.t(asc.half, 128, 256).load(np.zeros(128))
    d = core.t(asc.int8_t, 128, 512)
    asc.AddReluCast(d, a, b, 128)
    assert d.numpy()[:8].tolist() == [127, 127, 127, 0, 126, 0, 2, 2]


@pytest.mark.parametrize("soc,mode,want", [("Ascend910B1", None, np.inf), ("Ascend910B1", "saturate", 65504.0),
                                           ("Ascend310P3", None, 65504.0), ("Ascend310P3", "inf", 65504.0)])
def test_float_to_half_overflow_by_soc_mode(soc, mode, want):
    opts = {} if mode is None else {"float_overflow": mode}
    with npusim.configure(**opts), asc.core_context(soc):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 2048)
        a = buf.GetWithOffset(asc.float, 64, 0).load(np.full(64, 70000.0))
        b = buf.GetWithOffset(asc.float, 64, 256).load(np.full(64, 1.5))
        d = buf.GetWithOffset(asc.half, 64, 512)
        asc.AddReluCast(d, a, b, 64)
        assert d.numpy()[0] == np.float16(want)


def test_int16_to_int8_saturates_and_relus(core):
    a = core.t(asc.int16_t, 128, 0).load([100, 200, -50, 32767, 1000, -1] * 21 + [0, 0])
    b = core.t(asc.int16_t, 128, 256).load([27, 0, 10, 1, -990, 0] * 21 + [0, 0])
    d = core.t(asc.int8_t, 128, 512)
    asc.AddReluCast(d, a, b, 128)
    # 32767 + 1 wraps to -32768 in the int16 add (ascendc.md §2.4, open question 2), then relu -> 0
    assert d.numpy()[:6].tolist() == [127, 127, 0, 0, 10, 0]


def test_bit_mask_holes_keep_old_destination(core):
    x = np.linspace(-10, 100, 256).astype(np.float16)
    s0 = core.t(asc.half, 256, 0).load(x)
    s1 = core.t(asc.half, 256, 1024).load(np.ones(256))
    d = core.t(asc.int8_t, 256, 2048).load(np.full(256, -7))
    m = 0xFFFFFFFFFFFFFFF5                             # elements 1 and 3 (and 65, 67) off
    asc.AddReluCast(d, s0, s1, [m, m], 2, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    want = reference_half_int8(x, np.ones(256, np.float16))
    off = np.array([1, 3, 65, 67, 129, 131, 193, 195])
    keep = np.setdiff1d(np.arange(256), off)
    got = d.numpy()
    np.testing.assert_array_equal(got[keep], want[keep])
    assert (got[off] == -7).all()


def test_continuous_mask_126_and_count_tail(core):
    x = np.arange(256).astype(np.float16)
    s0 = core.t(asc.half, 256, 0).load(x)
    s1 = core.t(asc.half, 256, 1024).load(np.zeros(256))
    d = core.t(asc.int8_t, 256, 2048).load(np.full(256, -1))
    asc.AddReluCast(d, s0, s1, 126, 2, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    got = d.numpy()
    want = np.clip(x, 0, 127).astype(np.int8)
    active = np.r_[0:126, 128:254]
    np.testing.assert_array_equal(got[active], want[active])
    assert got[[126, 127, 254, 255]].tolist() == [-1, -1, -1, -1]
    d.load(np.full(256, -1))
    asc.AddReluCast(d, s0, s1, 255)
    got = d.numpy()
    np.testing.assert_array_equal(got[:255], want[:255])
    assert got[255] == -1


def test_strided_repeat_params(core):
    # {2,2,2,8,16,16}: every other datablock; dst blocks of int8 32 elements each, dst repeat stride 8 blocks
    x = np.arange(1024).astype(np.float16) % 200
    s0 = core.t(asc.half, 1024, 0).load(x)
    s1 = core.t(asc.half, 1024, 4096).load(np.full(1024, -50))
    d = core.t(asc.int8_t, 1024, 8192).load(np.zeros(1024))
    asc.AddReluCast(d, s0, s1, 128, 2, asc.BinaryRepeatParams(2, 2, 2, 8, 16, 16))
    got = d.numpy()
    ref = reference_half_int8(x, np.full(1024, -50, np.float16))
    for r in range(2):
        for i in range(128):
            src_el = r * 16 * 16 + (i // 16) * 2 * 16 + i % 16
            dst_el = r * 8 * 32 + (i // 32) * 2 * 32 + i % 32
            assert got[dst_el] == ref[src_el], (r, i)
    written = {r * 256 + (i // 32) * 64 + i % 32 for r in range(2) for i in range(128)}
    untouched = np.setdiff1d(np.arange(1024), sorted(written))
    assert (got[untouched] == 0).all()


def test_repeat_zero_and_mask_zero_are_nops(core):
    s0 = core.t(asc.half, 128, 0).load(np.ones(128))
    s1 = core.t(asc.half, 128, 256).load(np.ones(128))
    d = core.t(asc.int8_t, 128, 512).load(np.full(128, 5))
    asc.AddReluCast(d, s0, s1, 128, 0, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    asc.AddReluCast(d, s0, s1, 0, 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    asc.AddReluCast(d, s0, s1, 0)
    assert (d.numpy() == 5).all()


def test_count_form_side_effect_resets_mask_and_mode(core):
    ctx = core.context
    s0 = core.t(asc.half, 128, 0).load(np.ones(128))
    d = core.t(asc.int8_t, 128, 512)
    asc.SetVectorMask(asc.half, 0, 7)
    asc.AddReluCast(d, s0, s0, 100)
    assert (ctx.mask_high, ctx.mask_low, ctx.counter_mode) == (2 ** 64 - 1, 2 ** 64 - 1, False)


def test_is_set_mask_false_uses_the_register(core):
    s0 = core.t(asc.half, 128, 0).load(np.full(128, 3))
    d = core.t(asc.int8_t, 128, 512).load(np.zeros(128))
    asc.SetVectorMask(asc.half, 0, 0b1011)
    asc.AddReluCast(d, s0, s0, asc.MASK_PLACEHOLDER, 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8), isSetMask=False)
    assert d.numpy()[:5].tolist() == [6, 6, 0, 6, 0]


def test_counter_mode_level0(core):
    s0 = core.t(asc.half, 512, 0).load(np.full(512, 2))
    d = core.t(asc.int8_t, 512, 2048).load(np.zeros(512))
    asc.SetMaskCount()
    asc.SetVectorMask(asc.half, 0, 130, mode=asc.MaskMode.COUNTER)
    asc.AddReluCast(d, s0, s0, asc.MASK_PLACEHOLDER, 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8), isSetMask=False)
    asc.SetMaskNorm()
    got = d.numpy()
    assert (got[:130] == 4).all() and (got[130:] == 0).all()


# ---- rules (CPU debug mode checks) ----

def test_misaligned_tensor_raises(core):
    s0 = core.t(asc.half, 256, 0)[1]
    s1 = core.t(asc.half, 256, 1024)
    d = core.t(asc.int8_t, 256, 2048)
    with pytest.raises(ConstraintError, match="align with 32B"):
        asc.AddReluCast(d, s0, s1, 128)


def test_out_of_footprint_raises(core):
    s0 = core.t(asc.half, 256, 0).load(np.zeros(256))
    s1 = core.t(asc.half, 256, 1024).load(np.zeros(256))
    d = core.t(asc.int8_t, 256, 2048)
    with pytest.raises(ConstraintError, match="check instr failed"):
        asc.AddReluCast(d, s0, s1, 128, 3, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    with pytest.raises(ConstraintError, match="calcount"):
        asc.AddReluCast(d, s0, s1, 257)


def test_mask_and_repeat_ranges(core):
    s0 = core.t(asc.half, 256, 0)
    d = core.t(asc.int8_t, 256, 2048)
    p = asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)
    with pytest.raises(ConstraintError, match="mask <= 128"):
        asc.AddReluCast(d, s0, s0, 129, 1, p)
    with pytest.raises(ConstraintError, match="repeatTime"):
        asc.AddReluCast(d, s0, s0, 128, 256, p)
    with pytest.raises(ConstraintError, match="uint8_t"):
        asc.BinaryRepeatParams(1, 1, 1, 256, 8, 8)
    with pytest.raises(ConstraintError, match="undefined"):
        asc.AddReluCast(d, s0, s0, 128, 1, asc.BinaryRepeatParams(0, 1, 1, 4, 8, 8))


def test_float_mask_high_word_must_be_zero(core):
    s0 = core.t(asc.float, 64, 0)
    d = core.t(asc.half, 64, 1024)
    with pytest.raises(ConstraintError, match=r"mask\[1\] == 0"):
        asc.AddReluCast(d, s0, s0, [FULL, 1], 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    with pytest.raises(ConstraintError, match="mask <= 64"):
        asc.AddReluCast(d, s0, s0, 65, 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))


def test_position_must_be_vector(core):
    s0 = core.t(asc.half, 256, 0)
    bad = asc.LocalTensor(core.context, 0, asc.half, 256, asc.TPosition.A1)
    with pytest.raises(ConstraintError, match="VECIN / VECCALC / VECOUT"):
        asc.AddReluCast(core.t(asc.int8_t, 256, 2048), bad, s0, 128)


@pytest.mark.parametrize("soc,src,dst,err", [
    ("Ascend310B1", asc.int16_t, asc.int8_t, ConstraintError),
    ("Ascend910B1", asc.half, asc.half, ConstraintError),
    ("Ascend910A", asc.half, asc.int8_t, ConstraintError),   # not supported on 910A: no dtype pair passes
])
def test_unsupported_dtype_pairs(soc, src, dst, err):
    with asc.core_context(soc):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s = buf.GetWithOffset(src, 128, 0)
        d = buf.GetWithOffset(dst, 128, 2048)
        with pytest.raises(err, match="AddReluCast"):
            asc.AddReluCast(d, s, s, 128)


def test_partial_overlap_raises(core):
    s0 = core.t(asc.half, 512, 0).load(np.zeros(512))
    d = core.t(asc.int8_t, 256, 64)
    with pytest.raises(ConstraintError, match="overlap"):
        asc.AddReluCast(d, s0, s0, 128, 1, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))


def test_repeated_calls_replay_the_same_semantics(core):
    """The call cache: a second identical call gives the same result and the same side effects; a changed
    mask register (isSetMask=False) is a different call."""
    ctx = core.context
    s0 = core.t(asc.half, 128, 0).load(np.full(128, 3))
    d = core.t(asc.int8_t, 128, 512).load(np.zeros(128))
    p = asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)
    for _ in range(2):
        asc.SetVectorMask(asc.half, 0, 0b1)
        asc.AddReluCast(d, s0, s0, 100)
        assert (ctx.mask_high, ctx.mask_low, ctx.counter_mode) == (2 ** 64 - 1, 2 ** 64 - 1, False)
    assert (d.numpy()[:100] == 6).all() and (d.numpy()[100:] == 0).all()
    d.load(np.zeros(128))
    for lo, want in ((0b1, [6, 0, 0]), (0b110, [0, 6, 6])):
        d.load(np.zeros(128))
        asc.SetVectorMask(asc.half, 0, lo)
        asc.AddReluCast(d, s0, s0, asc.MASK_PLACEHOLDER, 1, p, isSetMask=False)
        assert d.numpy()[:3].tolist() == want
    with pytest.raises(ConstraintError, match="align"):
        asc.AddReluCast(d, s0[1], s0[1], 64)
    with pytest.raises(ConstraintError, match="align"):
        asc.AddReluCast(d, s0[1], s0[1], 64)


@pytest.mark.parametrize("src", [np.float16, np.float32])
@pytest.mark.parametrize("dst", ["int8", "uint8", "int16"])
def test_relu_to_int_equals_core_cast(src, dst):
    from npusim.ascendc.vector_binary import relu_to_int
    from npusim.core.dtypes import DTYPES, cast
    special = [0.5, 1.5, 2.5, -0.5, 0.0, -0.0, 126.5, 127.5, 128.5, 254.5, 255.5, 300.0, 32766.5, 32767.5,
               1e9, -1e9, np.inf, -np.inf, np.nan, -np.nan, 1e-8, 65504.0]
    rng = np.random.default_rng(5)
    x = np.concatenate([special, rng.standard_normal(2000) * 200, np.round(rng.standard_normal(500) * 100) + 0.5])
    y = x.astype(src).astype(np.float32)
    d = DTYPES[dst]
    want = cast(np.maximum(y, np.float32(0)), d, saturate=True)
    np.testing.assert_array_equal(relu_to_int(y, d), want)


@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(["inf", "saturate"]))
@settings(max_examples=20, deadline=None)
def test_float_to_half_matches_float64_reference(seed, mode):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(256) * rng.choice([1.0, 1e3, 1e5], 256)).astype(np.float32)
    b = (rng.standard_normal(256) * 1e4).astype(np.float32)
    s = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(np.float64)   # fp32 add
    s = np.maximum(s, 0)
    want = s.astype(np.float16)                                    # RNE; overflow -> inf
    if mode == "saturate":
        want = np.where(np.isinf(want), np.float16(65504), want).astype(np.float16)
    with npusim.configure(float_overflow=mode), asc.core_context():
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s0 = buf.GetWithOffset(asc.float, 256, 0).load(a)
        s1 = buf.GetWithOffset(asc.float, 256, 1024).load(b)
        d = buf.GetWithOffset(asc.half, 256, 2048)
        asc.AddReluCast(d, s0, s1, 256)
        np.testing.assert_array_equal(d.numpy(), want)


def test_fast_half_round_equals_core_cast():
    """vector_binary.to's float32 -> half shortcut (inf overflow mode) equals core.cast bit for bit."""
    from types import SimpleNamespace
    from npusim.ascendc.vector_binary import to
    from npusim.core.dtypes import cast
    rng = np.random.default_rng(11)
    special = np.array([65504.0, 65519.99, 65520.0, 1e9, -1e9, np.inf, -np.inf, np.nan, 0.0, -0.0, 2.0 ** -25,
                        2.0 ** -24 * 1.5, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11], np.float32)
    x = np.concatenate([special, (rng.standard_normal(4000) * rng.choice([1e-6, 1.0, 1e3, 1e5], 4000))
                        .astype(np.float32)])
    got = to(SimpleNamespace(float_overflow="inf"), x, asc.half)
    want = cast(x, asc.half, saturate=True, overflow="inf")
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dst", ["int8", "uint8", "int16"])
def test_half_relu_table_equals_relu_to_int(dst):
    """The lookup table AddReluCast uses for half sources equals the whole-array relu + cast on all 65536
    half bit patterns (and relu_to_int is checked against core.cast above)."""
    from npusim.ascendc.vector_binary import half_relu_table, relu_to_int
    from npusim.core.dtypes import DTYPES
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    d = DTYPES[dst]
    np.testing.assert_array_equal(half_relu_table(d), relu_to_int(every.astype(np.float32), d))


@pytest.mark.parametrize("dst", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("op", [np.add, np.subtract])
def test_half_relu_cast_fast_path(dst, op):
    """The half-source, integer-destination AddReluCast / SubReluCast compute (numpy's half op + table)
    equals a float64 golden: exact op, RNE to half (overflow to inf), relu, RNE, saturate; NaN -> 0.
    Every half bit pattern meets specials (ties, +-0, +-inf, NaN, +-65504) and random halves."""
    from types import SimpleNamespace
    from npusim.ascendc.vector_binary import _relu_cast
    from npusim.core.dtypes import DTYPES
    d = DTYPES[dst]
    f = _relu_cast(op)(SimpleNamespace(float_overflow="inf"), asc.half, d)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    rng = np.random.default_rng(3)
    others = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 65504, -65504, np.inf, -np.inf, np.nan, 127.5, 255.5,
                       2.0 ** -24], np.float16)
    a = np.concatenate([np.tile(every, len(others)), (rng.standard_normal(20000) * 300).astype(np.float16)])
    b = np.concatenate([np.repeat(others, every.size), (rng.standard_normal(20000) * 300).astype(np.float16)])
    with np.errstate(all="ignore"):
        y = op(a.astype(np.float64), b.astype(np.float64)).astype(np.float16).astype(np.float64)
        want = np.clip(np.rint(np.nan_to_num(np.maximum(y, 0), nan=0.0)), d.min, d.max).astype(d.np)
        got = f(a, b)
    np.testing.assert_array_equal(got, want)
