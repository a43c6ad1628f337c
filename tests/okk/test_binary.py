"""fp32 binary, select, bitwise and conversion ops against float64 / integer references."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import okk
from npusim.core.errors import ConstraintError
from okk_ref import d, fl

SH = okk.dim4(2, 5, 3, 7)
A, B, OUT = 0x0, 0x8000, 0x10000


def _load(dev, addr, x, shape=SH, stride=None):
    """Write an (N, C, H, W) array into local memory through the layout (a GDMA-free helper)."""
    from npusim.okk.layout import LocalTensor
    t = LocalTensor(dev.local, "test", "x", addr, shape, stride, np.float32, 4)
    t.write(np.asarray(x).reshape(shape.tuple()).view(np.float32))


def _read(dev, addr, shape=SH, dtype=np.float32, stride=None):
    from npusim.okk.layout import LocalTensor
    return LocalTensor(dev.local, "test", "x", addr, shape, stride, np.float32, 4).read().copy().view(dtype)


def _pair(seed=0):
    r = np.random.default_rng(seed)
    n = int(np.prod(SH.tuple()))
    x = (r.standard_normal(n) * 3).astype(np.float32).reshape(SH.tuple())
    y = (r.standard_normal(n) * 3).astype(np.float32).reshape(SH.tuple())
    x.flat[:4] = [1e-40, -0.0, np.inf, np.nan]
    y.flat[:4] = [1.0, 0.0, 2.0, 1.0]
    return x, y


@pytest.mark.parametrize("name,ref", [
    ("okk_bdc_add", lambda a, b: a + b), ("okk_bdc_sub", lambda a, b: a - b),
    ("okk_bdc_mul", lambda a, b: a * b)])
@pytest.mark.parametrize("strided", [False, True])
def test_arith_is_daz_ftz_ieee(name, ref, strided):
    x, y = _pair()
    with okk.Device() as dev:
        _load(dev, A, x)
        _load(dev, B, y)
        s = okk.dim4(32, 32, 7, 1) if strided else None
        getattr(okk, name)(OUT, A, B, SH, s, s, s)
        got = _read(dev, OUT)
        with np.errstate(all="ignore"):
            want = fl(ref(d(x), d(y)))
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        ev = dev.events[-1]
        blocks = 2 * 1 * 2     # N * ceil(C/64) * ceil(HW/16)
        assert ev.args["instruction"] == ("TENSOR_ARITH" if strided else "MD_SCALAR")
        assert ev.args["cycles"] == blocks * (2 if strided else 1)


def test_mac_unfused_and_cost():
    x, y = _pair(1)
    z = np.full(SH.tuple(), 0.5, np.float32)
    with okk.Device() as dev:
        _load(dev, A, x); _load(dev, B, y); _load(dev, OUT, z)
        okk.okk_bdc_mac(OUT, A, B, SH, None, okk.dim4(32, 32, 7, 1), None)
        with np.errstate(all="ignore"):
            want = fl(d(z) + fl(d(x) * d(y)))
        np.testing.assert_array_equal(_read(dev, OUT).view(np.uint32), want.view(np.uint32))
        assert dev.events[-1].args["cycles"] == 4 * 5


def test_max_min_ties_nan_and_raw_output():
    x = np.array([-0.0, 0.0, np.nan, 1.0, 1e-40, 5.0, 2.0] * 30, np.float32)[:210].reshape(SH.tuple())
    y = np.array([0.0, -0.0, 1.0, np.nan, 0.0, 1e-40, 2.0] * 30, np.float32)[:210].reshape(SH.tuple())
    with okk.Device() as dev:
        _load(dev, A, x); _load(dev, B, y)
        okk.okk_bdc_max(OUT, A, B, SH)
        mx = _read(dev, OUT).ravel()[:7]
        okk.okk_bdc_min(OUT, A, B, SH)
        mn = _read(dev, OUT).ravel()[:7]
    # max: a > b ? a : b on DAZ'd values (ties and NaN take b)
    assert [np.signbit(v) for v in mx[:2]] == [False, True]
    assert mx[2] == 1.0 and np.isnan(mx[3]) and mx[4] == 0 and mx[5] == 5.0
    # min: a <= b ? a : b, raw (the subnormal survives)
    assert np.signbit(mn[0]) and not np.signbit(mn[1]) and mn[2] == 1.0 and np.isnan(mn[3])
    assert mn[4] == np.float32(1e-40) and mn[5] == np.float32(1e-40)


def test_relu_and_c_forms():
    x, _ = _pair(2)
    with okk.Device() as dev:
        _load(dev, A, x)
        okk.okk_bdc_relu(OUT, A, SH)
        r = _read(dev, OUT)
        assert np.all(r.view(np.uint32)[~(d(x) > 0)] == 0)
        np.testing.assert_array_equal(r[d(x) > 0], x[d(x) > 0])
        okk.okk_bdc_C_sub(OUT, A, 1.5, SH)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(_read(dev, OUT).view(np.uint32), fl(1.5 - d(x)).view(np.uint32))
        okk.okk_bdc_mul_C(OUT, A, -2.0, SH)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(_read(dev, OUT).view(np.uint32), fl(-2.0 * d(x)).view(np.uint32))


def test_div_matches_unary_reciprocal_path():
    x, y = _pair(3)
    with okk.Device() as dev:
        _load(dev, A, x); _load(dev, B, y)
        okk.okk_bdc_div(OUT, A, B, SH)
        got = _read(dev, OUT)
        ok = np.isfinite(x) & np.isfinite(y) & (np.abs(y) > 1e-3) & (np.abs(x) > 1e-30)
        np.testing.assert_allclose(got[ok], (x / y)[ok], rtol=6e-7)
        assert dev.events[-1].args["cycles"] == 4 * 30


def test_stride_zero_broadcast_per_channel():
    x, _ = _pair(4)
    bias = np.arange(5, dtype=np.float32).reshape(1, 5, 1, 1)
    with okk.Device() as dev:
        _load(dev, A, x)
        _load(dev, B, bias, okk.dim4(1, 5, 1, 1))
        okk.okk_bdc_sub(OUT, A, B, SH, None, None, okk.dim4(0, 32, 0, 0))
        with np.errstate(all="ignore"):
            want = fl(d(x) - bias)
        np.testing.assert_array_equal(_read(dev, OUT).view(np.uint32), want.view(np.uint32))


def test_select_value_family():
    x = np.array([1.0, 2.0, -0.0, np.nan, 1e-40, 3.0] * 35, np.float32).reshape(SH.tuple())
    y = np.array([2.0, 2.0, 0.0, np.nan, 0.0, 1.0] * 35, np.float32).reshape(SH.tuple())
    with okk.Device() as dev:
        _load(dev, A, x); _load(dev, B, y)
        okk.okk_bdc_greater_select_value(OUT, A, B, okk.x32(s32=7), SH)
        assert list(_read(dev, OUT, dtype=np.int32).ravel()[:6]) == [0, 0, 0, 0, 0, 7]
        okk.okk_bdc_equal_select_value(OUT, A, B, okk.x32(s32=7), SH)
        assert list(_read(dev, OUT, dtype=np.int32).ravel()[:6]) == [0, 7, 0, 7, 0, 0]  # bitwise equality
        okk.okk_bdc_C_greater_select_value(OUT, A, 1.5, 9, SH)
        assert list(_read(dev, OUT, dtype=np.int32).ravel()[:6]) == [9, 0, 9, 0, 9, 0]
        okk.okk_bdc_greater_select(OUT, okk.fp32_or_addr_t(True, A), okk.fp32_or_addr_t(False, 1.5),
                                   okk.x32_or_addr_t(True, B), okk.x32_or_addr_t(False, 5), SH)
        got = _read(dev, OUT, dtype=np.int32).ravel()[:6]
        assert list(got[[0, 2, 3, 4]]) == [5] * 4 and got[1] == np.float32(2).view(np.int32) \
            and got[5] == np.float32(1).view(np.int32)
        okk.okk_bdc_equal_select(OUT, okk.fp32_or_addr_t(True, A), okk.fp32_or_addr_t(True, B),
                                 okk.x32_or_addr_t(False, 1), okk.x32_or_addr_t(False, 0), SH)
        assert list(_read(dev, OUT, dtype=np.int32).ravel()[:6]) == [0, 1, 1, 1, 1, 0]
        assert [e.args["instruction"] for e in dev.events[-2:]] == ["MD_CMP", "MD_CMP"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**31, 2**31 - 1), min_size=8, max_size=8),
       st.lists(st.integers(-300, 300), min_size=8, max_size=8))
def test_shifts_against_python_ints(vals, shifts):
    sh = okk.dim4(1, 1, 1, 8)
    x = np.array(vals, np.int32)
    s = np.array(shifts, np.int32)
    with okk.Device() as dev:
        _load(dev, A, x.view(np.float32), sh); _load(dev, B, s.view(np.float32), sh)
        okk.okk_bdc_32bit_arithmetic_shift(OUT, A, B, sh)
        ar = _read(dev, OUT, sh, np.int32).ravel()
        okk.okk_bdc_32bit_logical_shift(OUT, A, B, sh)
        lo = _read(dev, OUT, sh, np.int32).ravel()
    for v, k, a, l in zip(vals, shifts, ar, lo):
        n = ((k & 63) ^ 32) - 32
        if n == -32:
            ea = el = v
        elif n >= 0:
            ea = el = ((v << n) + 2**31) % 2**32 - 2**31
        else:
            ea = v >> -n
            el = ((v % 2**32) >> -n)
            el = el - 2**32 if el >= 2**31 else el
        assert (a, l) == (ea, el)


def test_bitwise_cpy_set_and_conversions():
    r = np.random.default_rng(5)
    x = r.integers(-2**31, 2**31, SH.tuple(), dtype=np.int64).astype(np.int32)
    y = r.integers(-2**31, 2**31, SH.tuple(), dtype=np.int64).astype(np.int32)
    with okk.Device() as dev:
        _load(dev, A, x.view(np.float32)); _load(dev, B, y.view(np.float32))
        okk.okk_bdc_32bit_xor(OUT, A, B, SH)
        np.testing.assert_array_equal(_read(dev, OUT, dtype=np.int32), x ^ y)
        okk.okk_bdc_32bit_and_C(OUT, A, okk.x32(u32=0xF0F0F0F0), SH)
        np.testing.assert_array_equal(_read(dev, OUT, dtype=np.uint32), x.view(np.uint32) & 0xF0F0F0F0)
        okk.okk_bdc_32bit_cpy(OUT, A, SH)
        np.testing.assert_array_equal(_read(dev, OUT, dtype=np.int32), x)
        okk.okk_bdc_32bit_set_C(OUT, okk.x32(fp32=-2.5), SH)
        assert np.all(_read(dev, OUT) == -2.5)
        f = np.array([1.9, -1.9, 3e9, -3e9, 0.5, -0.5, 100.7] * 30, np.float32)[:210].reshape(SH.tuple())
        _load(dev, A, f)
        okk.okk_bdc_fp32_to_int32(OUT, A, SH)
        assert list(_read(dev, OUT, dtype=np.int32).ravel()[:7]) == [1, -1, 2**31 - 1, -2**31, 0, 0, 100]
        i = np.array([5, 127, 128, 256, -129, -128, 1000] * 30, np.int32)[:210].reshape(SH.tuple())
        _load(dev, A, i.view(np.float32))
        okk.okk_bdc_lookup_int32_to_fp32(OUT, A, SH)
        assert list(_read(dev, OUT).ravel()[:7]) == [5, 127, -128, 0, 127, -128, -24]


# ---- constraints ----

def test_rules_raise_constraint_error():
    with okk.Device():
        with pytest.raises(ConstraintError, match="same NPU"):
            okk.okk_bdc_add(OUT, A + 0x80000, B, SH)
        with pytest.raises(ConstraintError, match="divisible by 4"):
            okk.okk_bdc_mul(OUT + 2, A, B, SH)
        with pytest.raises(ConstraintError, match=r"\[1, 4095\]"):
            okk.okk_bdc_sub(OUT, A, B, okk.dim4(1, 4096, 1, 1))
        with pytest.raises(ConstraintError, match=r"\[1, 65535\]"):
            okk.okk_bdc_max(OUT, A, B, okk.dim4(1, 1, 0, 1))
        with pytest.raises(ConstraintError, match="local memory"):
            okk.okk_bdc_add(0x7FFF0, A, B, okk.dim4(1, 1, 64, 64))
        with pytest.raises(ConstraintError, match="a float"):
            okk.okk_bdc_add_C(OUT, A, "1", SH)
        with pytest.raises(ConstraintError, match="fp32_or_addr_t"):
            okk.okk_bdc_greater_select(OUT, 1.0, okk.fp32_or_addr_t(True, A), okk.x32_or_addr_t(False, 1),
                                       okk.x32_or_addr_t(False, 0), SH)
        with pytest.raises(ConstraintError, match="divisible by 128"):
            okk.okk_bdc_fp32_to_int32(OUT + 4, A, SH)
        with pytest.raises(ConstraintError, match="an integer"):
            okk.okk_bdc_32bit_arithmetic_shift_C(OUT, A, 1.5, SH)


def test_equal_select_mixed_constant_strict_mode():
    from npusim.core.options import configure
    with okk.Device() as dev, configure(strict=True):
        _load(dev, A, _pair()[0])
        with pytest.raises(ConstraintError, match="both sources"):
            okk.okk_bdc_equal_select(OUT, okk.fp32_or_addr_t(True, A), okk.fp32_or_addr_t(False, 1.0),
                                     okk.x32_or_addr_t(False, 1), okk.x32_or_addr_t(False, 0), SH)


@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize("aligned", [True, False])
def test_int8_to_fp32_layouts(signed, aligned):
    from npusim.okk.layout import LocalTensor
    r = np.random.default_rng(7)
    n, c, h, w = 6, 3, 2, 5
    vals = r.integers(-128, 128, (n, c, h, w)).astype(np.int8)
    with okk.Device() as dev:
        plane = 128 if aligned else 12                            # ALIGN(10, 128) / ALIGN(10, 4)
        for i in range(n):
            for ch in range(c):
                dev.write_local(ch, i * plane, vals[i, ch].ravel())
        okk.okk_bdc_int8_to_fp32(0x10000, 0, 0x20000, okk.dim4(n, c, h, w), signed, aligned)
        st = None if aligned else okk.okk_compact_stride(None, 0, okk.dim4(n, c, h, w))
        got = LocalTensor(dev.local, "t", "x", 0x10000, okk.dim4(n, c, h, w), st, np.float32, 4).read()
        want = vals if signed else vals.view(np.uint8)
        np.testing.assert_array_equal(got, want.astype(np.float32))
        # 4N: byte n % 4 of word (n // 4, c, h, w)
        words = np.zeros((2, c, h * w, 4), np.int8)
        for i in range(n):
            words[i // 4, :, :, i % 4] = vals[i].reshape(c, h * w)
        wst = okk.okk_128_byte_aligned_stride_for_32bit(None, 0, okk.dim4(2, c, h, w)) if aligned else \
            okk.okk_compact_stride(None, 0, okk.dim4(2, c, h, w))
        LocalTensor(dev.local, "t", "x", 0x30000, okk.dim4(2, c, h, w), wst, np.uint32, 4).write(
            words.view(np.uint32).reshape(2, c, h, w))
        okk.okk_bdc_4N_int8_to_fp32(0x10000, 0x30000, 0x20000, okk.dim4(n, c, h, w), signed, aligned)
        got = LocalTensor(dev.local, "t", "x", 0x10000, okk.dim4(n, c, h, w), st, np.float32, 4).read()
        np.testing.assert_array_equal(got, want.astype(np.float32))
        with pytest.raises(ConstraintError, match="work_addr"):
            okk.okk_bdc_int8_to_fp32(0x10000, 0, 0x10000, okk.dim4(n, c, h, w), signed, aligned)


def test_fixed_point_packed_add_rounding_saturation_and_rules():
    from npusim.okk.bdc_fixed_point import Packed
    S8_OP_S8_TO_S8, S16_OP_S16_TO_S16, U8_OP_U8_TO_S8 = 31, 22, 25
    sh = okk.dim4(5, 3, 1, 4)
    r = np.random.default_rng(8)
    a = r.integers(-128, 128, (5, 3, 1, 4))
    b = r.integers(-128, 128, (5, 3, 1, 4))
    with okk.Device() as dev:
        for addr, v in ((0x0, a), (0x1000, b), (0x2000, np.zeros_like(a))):
            dev.write_local(0, addr, np.zeros(4096, np.uint8))
            for q in (1, 2):
                dev.write_local(q, addr, np.zeros(4096, np.uint8))
            Packed(dev, "t", "x", addr, sh, None, 8, True).write(v)
        okk.okk_bdc_fixed_point_packed_add(0x2000, 0x0, 0x1000, sh, None, None, None, S8_OP_S8_TO_S8, 1)
        got = Packed(dev, "t", "x", 0x2000, sh, None, 8, True).read()
        np.testing.assert_array_equal(got, np.clip((a + b + 1) >> 1, -128, 127))   # docs: (a + b + 2^(r-1)) >> r
        okk.okk_bdc_fixed_point_packed_add(0x2000, 0x0, 0x1000, sh, None, None, None, S8_OP_S8_TO_S8, 0)
        np.testing.assert_array_equal(Packed(dev, "t", "x", 0x2000, sh, None, 8, True).read(), np.clip(a + b, -128, 127))
        assert dev.events[-1].args["cycles"] == 2 * 1 * 1 * 2        # ceil(5/4) blocks x 2
        # U8_OP_U8_TO_S8 (an okk.h enumerator outside the docs' list): the C-model adds as unsigned and
        # saturates to the unsigned range (the destination-signed bit is ignored; test_op_types_sign_change)
        okk.okk_bdc_fixed_point_packed_add(0x2000, 0x0, 0x1000, sh, None, None, None, U8_OP_U8_TO_S8, 0)
        ua, ub = a.astype(np.uint8).astype(np.int64), b.astype(np.uint8).astype(np.int64)
        np.testing.assert_array_equal(Packed(dev, "t", "x", 0x2000, sh, None, 8, False).read(), np.clip(ua + ub, 0, 255))
        with pytest.raises(ConstraintError, match="rshift"):
            okk.okk_bdc_fixed_point_packed_add(0x2000, 0x0, 0x1000, sh, None, None, None, S8_OP_S8_TO_S8, 32)
        with pytest.raises(ConstraintError, match="8-bit"):
            okk.okk_bdc_fixed_point_packed_mul(0x2000, 0x0, 0x1000, sh, None, None, None, S16_OP_S16_TO_S16, 0)
        with pytest.raises(ConstraintError, match="8-bit destination"):
            okk.okk_bdc_fixed_point_packed_max(0x2000, 0x0, 0x1000, sh, None, None, None, 23)
        with pytest.raises(ConstraintError, match="op_type_t"):
            okk.okk_bdc_fixed_point_packed_sub(0x2000, 0x0, 0x1000, sh, None, None, None, 99, 0)


def test_fixed_point_16bit_shift_amount_is_low_byte():
    from npusim.okk.bdc_fixed_point import Packed, shift16
    x = np.array([-1000, 1000, -1, 12345], np.int64)
    s = np.array([4, -3, 300, -272], np.int64)       # 300 -> int8 44 (left: 0); -272 -> int8 -16 (right 16)
    np.testing.assert_array_equal(shift16(x, s, False), [-16000, 125, 0, 0])
    np.testing.assert_array_equal(shift16(np.array([-1000]), np.array([-12]), True), [15])
    sh = okk.dim4(2, 1, 1, 8)
    with okk.Device() as dev:
        Packed(dev, "t", "x", 0x0, sh, None, 16, True).write(np.full((2, 1, 1, 8), -7))
        okk.okk_bdc_fixed_point_packed_16bit_arithmetic_shift_C(0x1000, 0x0, -1, sh)
        assert np.all(Packed(dev, "t", "x", 0x1000, sh, None, 16, True).read() == -4)
        assert dev.events[-1].args["cycles"] == 3


def test_fixed_point_mac_keeps_a_16bit_accumulator():
    from npusim.okk.bdc_fixed_point import Packed
    sh = okk.dim4(4, 1, 1, 8)
    with okk.Device() as dev:
        Packed(dev, "t", "x", 0x0, sh, None, 8, True).write(np.full((4, 1, 1, 8), 3))
        Packed(dev, "t", "x", 0x400, sh, None, 8, True).write(np.full((4, 1, 1, 8), -5))
        Packed(dev, "t", "x", 0x1000, sh, None, 16, True).write(np.full((4, 1, 1, 8), 1000))
        okk.okk_bdc_fixed_point_packed_mac(0x1000, 0x0, 0x400, sh, None, None, None, True, 31, 1, 2)
        # ((1000 << 1) + 3 * -5 + 2) >> 2 = 496: not saturated to int8, the accumulator is 16-bit
        assert np.all(Packed(dev, "t", "x", 0x1000, sh, None, 16, True).read() == 496)
        assert dev.events[-1].args["cycles"] == 4
        with pytest.raises(ConstraintError, match="lshift"):
            okk.okk_bdc_fixed_point_packed_mac(0x1000, 0x0, 0x400, sh, None, None, None, True, 31, 32, 0)


def test_nan_choice_follows_x86_operand_order_on_long_arrays():
    """numpy's SIMD add of long arrays may return the second operand's NaN; the C-model (x86) returns the
    first operand's NaN, quieted, and mac adds the product first (C-model probes)."""
    from npusim.okk.nan_payload import keep_first_nan as x86_nan
    n = 1000
    a = np.full(n, np.uint32(0xFFC00000)).view(np.float32)
    b = np.full(n, np.uint32(0x7FA00000)).view(np.float32)           # a signalling NaN
    with np.errstate(invalid="ignore"):
        got = x86_nan(np.add(a, b), a, b).view(np.uint32)
    assert (got == 0xFFC00000).all()
    with np.errstate(invalid="ignore"):
        got = x86_nan(np.add(b, a), b, a).view(np.uint32)
    assert (got == 0x7FE00000).all()                                  # b quieted
    sh = okk.dim4(1, 1, 1, 4)
    with okk.Device() as dev:
        dev.write_local(0, 0, np.array([np.inf, 1.0, 2.0, 0.0], np.float32).view(np.uint8))
        dev.write_local(0, 0x200, np.array([0.0, np.nan, 3.0, 1.0], np.float32).view(np.uint8))
        dev.write_local(0, 0x400, np.array([0xFFFF0000, 0xFFFF0000, 0x3F800000, 0x3F800000], np.uint32).view(np.uint8))
        okk.okk_bdc_mac(0x400, 0, 0x200, sh)
        got = np.frombuffer(bytes(dev.read_local(0, 0x400, 16)), np.uint32)
        # inf*0 = default NaN 0xffc00000 wins over dst's NaN; 1*NaN = 0x7fc00000 likewise; 2*3 + 1 = 7
        assert [hex(v) for v in got] == ["0xffc00000", "0x7fc00000", hex(np.float32(7).view(np.uint32)), "0x3f800000"]
