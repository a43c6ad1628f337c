"""16-bit <-> 8-bit fixed-point functions (split_high / split_low / 16bit_mul_8bit) against integer
references; layouts and arithmetic as probed on Sophgo's C-model (docs/okk.md, part two)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim
from npusim import okk
from npusim.core.errors import ConstraintError
from npusim.okk.bdc_fixed_point import Packed

SRC, DST, WORK, LO, S1 = 0x0, 0x1000, 0x2000, 0x3000, 0x4000
S16_MUL_S8_TO_S16, U16_MUL_S8_TO_S16, U16_MUL_U8_TO_U16, S16_MUL_U8_TO_S16 = 7, 6, 0, 5


def _zero(dev, npus=(0, 1, 2)):
    for q in npus:
        dev.write_local(q, 0, np.zeros(0x8000, np.uint8))


def test_split_high_and_low_raw_bytes():
    """Documented-by-probe layout: src element n is lane n % 2 of word n // 2 (2N), dst element n is
    lane n % 4 of word n // 4 (4N); shape (4, 1, 1, 1) with the C-model's 128-byte-aligned N stride."""
    sh = okk.dim4(4, 1, 1, 1)
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, SRC, np.array([0x1020, 0x1121], np.uint16).view(np.uint8))        # n = 0, 1
        dev.write_local(0, SRC + 128, np.array([0x5060, 0xA1B2], np.uint16).view(np.uint8))  # n = 2, 3
        dev.write_local(0, DST, np.full(8, 0xEE, np.uint8))
        okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST, SRC, sh, None, None)
        assert bytes(dev.read_local(0, DST, 8)) == bytes([0x10, 0x11, 0x50, 0xA1, 0xEE, 0xEE, 0xEE, 0xEE])
        assert dev.events[-1].args["cycles"] == 4              # one block x factor 4 (backend records)
        okk.okk_bdc_fixed_point_packed_16bit_split_low_8bit(DST, SRC, WORK, sh, None, None, None)
        assert bytes(dev.read_local(0, DST, 4)) == bytes([0x20, 0x21, 0x60, 0xB2])
        # work keeps each element's low byte as a 16-bit value: src & 0x00FF
        assert list(np.frombuffer(bytes(dev.read_local(0, WORK, 4)), np.uint16)) == [0x20, 0x21]
        assert [e.args["cycles"] for e in dev.events[-2:]] == [4, 4]  # AND over 2 words x 2, FIX8B x 4


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 9), c=st.integers(1, 70), hw=st.integers(1, 6), seed=st.integers(0, 2**31))
def test_split_matches_integer_reference(n, c, hw, seed):
    sh = okk.dim4(n, c, 1, hw)
    x = np.random.default_rng(seed).integers(-32768, 32768, (n, c, 1, hw))
    with okk.Device() as dev:
        _zero(dev)
        Packed(dev, "t", "x", SRC, sh, None, 16, True).write(x)
        okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST, SRC, sh)
        hi = Packed(dev, "t", "x", DST, sh, None, 8, True).read()
        okk.okk_bdc_fixed_point_packed_16bit_split_low_8bit(DST, SRC, WORK, sh)
        lo = Packed(dev, "t", "x", DST, sh, None, 8, False).read()
    np.testing.assert_array_equal(hi * 256 + lo, x)                 # x = signed high * 256 + unsigned low
    np.testing.assert_array_equal(lo, np.mod(x, 256))


def test_split_partial_word_keeps_dummy_lanes():
    sh = okk.dim4(3, 1, 1, 2)            # 3 elements: one dummy lane in the 4N destination word
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, DST, np.full(8, 0xAB, np.uint8))
        Packed(dev, "t", "x", SRC, sh, None, 16, True).write(np.full((3, 1, 1, 2), 0x0102))
        okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST, SRC, sh)
        assert bytes(dev.read_local(0, DST, 8)) == bytes([1, 1, 1, 0xAB] * 2)


def _mul_ref(x, y, r):
    v = x * y
    if r:
        v = np.floor_divide(v + 2 ** (r - 1), 2 ** r)
    return v


@pytest.mark.parametrize("mul_type,s0,s1,lo_d,hi_d", [
    (S16_MUL_S8_TO_S16, True, True, -32768, 32767),
    (U16_MUL_S8_TO_S16, False, True, -32768, 32767),
    (U16_MUL_U8_TO_U16, False, False, 0, 65535)])
@pytest.mark.parametrize("rshift", [0, 3, 8, 15])
def test_16bit_mul_8bit_is_the_exact_product_rounded_once(mul_type, s0, s1, lo_d, hi_d, rshift):
    sh = okk.dim4(6, 5, 2, 3)
    r = np.random.default_rng(rshift + mul_type)
    x = r.integers(-32768 if s0 else 0, 32768 if s0 else 65536, sh.tuple())
    y = r.integers(-128 if s1 else 0, 128 if s1 else 256, sh.tuple())
    with okk.Device() as dev:
        _zero(dev)
        Packed(dev, "t", "x", SRC, sh, None, 8, s0).write(np.floor_divide(x, 256))
        Packed(dev, "t", "x", LO, sh, None, 8, False).write(np.mod(x, 256))
        Packed(dev, "t", "x", S1, sh, None, 8, s1).write(y)
        okk.okk_bdc_fixed_point_packed_16bit_mul_8bit(DST, SRC, LO, S1, sh, None, None, None, None, mul_type, rshift)
        got = Packed(dev, "t", "x", DST, sh, None, 16, mul_type != U16_MUL_U8_TO_U16).read()
        # two FIX8B instructions: mul (factor 2) then mac (factor 4), ceil(6/4) = 2 blocks each
        assert [e.args["cycles"] for e in dev.events[-2:]] == [2 * 2, 2 * 4]
    np.testing.assert_array_equal(got, np.clip(_mul_ref(x, y, rshift), lo_d, hi_d))


def test_16bit_mul_8bit_rules_and_the_s16_u8_no_op():
    sh = okk.dim4(4, 2, 1, 2)
    f = okk.okk_bdc_fixed_point_packed_16bit_mul_8bit
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, DST, np.full(64, 0x5A, np.uint8))
        with pytest.raises(ConstraintError, match="mul_type"):
            f(DST, SRC, LO, S1, sh, None, None, None, None, 3, 0)
        with pytest.raises(ConstraintError, match="rshift"):
            f(DST, SRC, LO, S1, sh, None, None, None, None, 7, 32)
        with pytest.raises(ConstraintError):
            f(DST, SRC, LO + 0x80000, S1, sh, None, None, None, None, 7, 0)      # another NPU
        with pytest.raises(ConstraintError):
            f(DST + 2, SRC, LO, S1, sh, None, None, None, None, 7, 0)            # not 4-byte aligned
        n = len(dev.events)
        f(DST, SRC, LO, S1, sh, None, None, None, None, S16_MUL_U8_TO_S16, 0)     # C-model: nothing at all
        assert len(dev.events) == n and bytes(dev.read_local(0, DST, 64)) == b"\x5a" * 64
        with npusim.configure(strict=True):
            with pytest.raises(ConstraintError, match="S16_MUL_U8_TO_S16"):
                f(DST, SRC, LO, S1, sh, None, None, None, None, S16_MUL_U8_TO_S16, 0)


def test_split_rules():
    sh = okk.dim4(2, 1, 1, 4)
    with okk.Device() as dev:
        with pytest.raises(ConstraintError):
            okk.okk_bdc_fixed_point_packed_16bit_split_low_8bit(DST, SRC, WORK + 0x80000, sh)
        with pytest.raises(ConstraintError):
            okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST + 1, SRC, sh)
        with pytest.raises(ConstraintError):
            okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST, SRC, okk.dim4(1, 4096, 1, 1))


@pytest.mark.parametrize("rshift", [0, 4, 8, 16])
def test_s16_mul_u8_to_s16_sign_magnitude(rshift):
    sh = okk.dim4(4, 3, 1, 5)
    r = np.random.default_rng(rshift)
    x = r.integers(-32768, 32768, sh.tuple())
    y = r.integers(0, 256, sh.tuple())
    x.flat[:3] = [-32768, 32767, -1]
    y.flat[:3] = [255, 255, 255]
    W1, W2 = 0x5000, 0x6000
    with okk.Device() as dev:
        _zero(dev)
        Packed(dev, "t", "x", SRC, sh, None, 16, True).write(x)
        Packed(dev, "t", "x", S1, sh, None, 8, False).write(y)
        okk.okk_bdc_fixed_point_packed_s16_mul_u8_to_s16(DST, SRC, S1, WORK, W1, W2, sh, *([None] * 6), rshift)
        got = Packed(dev, "t", "x", DST, sh, None, 16, True).read()
        work = Packed(dev, "t", "x", WORK, sh, None, 16, True).read()
        hi = Packed(dev, "t", "x", W1, sh, None, 8, False).read()
        assert len(dev.events) == 16 and sum(e.args["cycles"] for e in dev.events) == 52   # backend record, N=4
    # float64 reference: |x| saturates to 32767, the magnitude is rounded half up then clipped, then signed
    mag = np.minimum(np.abs(x), 32767).astype(np.float64) * y / 2.0 ** rshift
    want = np.sign(x) * np.minimum(np.floor(mag + 0.5), 32767)
    np.testing.assert_array_equal(got, want.astype(np.int64))
    np.testing.assert_array_equal(work, np.where(x < 0, -want, 0))
    np.testing.assert_array_equal(hi, np.minimum(np.abs(x), 32767) // 256)


def test_s16_mul_u8_to_s16_odd_n_dummy_lane_and_rules():
    sh = okk.dim4(1, 1, 1, 2)
    f = okk.okk_bdc_fixed_point_packed_s16_mul_u8_to_s16
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, DST, np.array([0x12345678, 0x9ABCDEF0], np.uint32).view(np.uint8))
        dev.write_local(0, SRC, np.array([0x00000003, 0x0000FFFE], np.uint32).view(np.uint8))   # 3, -2
        dev.write_local(0, S1, np.array([5, 7], np.uint32).view(np.uint8))
        f(DST, SRC, S1, WORK, 0x5000, 0x6000, sh, *([None] * 6), 0)
        words = np.frombuffer(bytes(dev.read_local(0, DST, 8)), np.uint32)
        # lane 0 the product, lane 1 (the dummy) the low byte of dst's old dummy lane (C-model)
        assert list(words) == [0x00340000 | 15, 0x00BC0000 | (-14 & 0xFFFF)]
        work = np.frombuffer(bytes(dev.read_local(0, WORK, 8)), np.uint32)
        assert list(work) == [0x00340000, 0x00BC0000 | 14]
        with pytest.raises(ConstraintError, match="rshift"):
            f(DST, SRC, S1, WORK, 0x5000, 0x6000, sh, *([None] * 6), -1)
        with pytest.raises(ConstraintError):
            f(DST, SRC, S1, WORK, 0x5000 + 0x80000, 0x6000, sh, *([None] * 6), 0)
