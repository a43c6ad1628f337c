"""Fixed-point packed max/min with an op type whose destination differs from the sources (C-model probes,
docs/okk.md part two): the result keeps the sources' width and sign; 16-bit sources with an 8-bit
destination write the 16-bit results' byte stream; 8-bit sources with a 16-bit destination are rejected."""
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import okk
from npusim.core.errors import ConstraintError
from npusim.okk.bdc_fixed_point import Packed

SRC0, SRC1, DST = 0x0, 0x1000, 0x2000
S16_OP_S16_TO_S8, U16_OP_U16_TO_S8, U16_OP_U16_TO_U8, U16_OP_U16_TO_S16 = 30, 24, 8, 16
U8_OP_U8_TO_U16, S8_OP_S8_TO_S16, U8_OP_U8_TO_S8 = 1, 23, 25


def _zero(dev, npus=(0, 1)):
    for q in npus:
        dev.write_local(q, 0, np.zeros(0x4000, np.uint8))


def test_probe_example_16bit_sources_8bit_destination():
    """The C-model probe verbatim: shape (5, 1, 1, 2), strides (4, 2, 2, 1) words everywhere, src0 bytes
    1, 2, 3, ..., src1 zero, U16_OP_U16_TO_U8 max. Expected bytes copied from the C-model's output."""
    st4 = okk.dim4(4, 2, 2, 1)
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, SRC0, np.arange(1, 65, dtype=np.uint8))
        dev.write_local(0, DST, np.full(32, 0xCC, np.uint8))
        okk.okk_bdc_fixed_point_packed_max(DST, SRC0, SRC1, okk.dim4(5, 1, 1, 2), st4, st4, st4, U16_OP_U16_TO_U8)
        want = bytes.fromhex("01 05 03 07 02 06 04 08 cc cc cc cc cc cc cc cc 11 cc cc cc 12 cc cc cc")
        assert bytes(dev.read_local(0, DST, 24)) == want
        assert dev.events[-1].args["cycles"] == 2     # ceil(5/4) blocks x factor 1 (C-model records)


def _reference(a16, b16, op, signed, shape):
    """Independent reference: per-element Python ints packed with struct, then the first N*C*H*W bytes."""
    fmt = "<h" if signed else "<H"
    stream = b"".join(struct.pack(fmt, op(int(x), int(y))) for x, y in zip(a16.ravel(), b16.ravel()))
    return np.frombuffer(stream[:a16.size], np.uint8).reshape(shape)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 9), c=st.integers(1, 70), w=st.integers(1, 5), seed=st.integers(0, 2**31),
       ot=st.sampled_from([S16_OP_S16_TO_S8, U16_OP_U16_TO_S8, U16_OP_U16_TO_U8]), is_max=st.booleans())
def test_16bit_sources_8bit_destination_write_the_result_bytes(n, c, w, seed, ot, is_max):
    shape = (n, c, 1, w)
    signed = bool(ot & 2)
    rng = np.random.default_rng(seed)
    lo, hi = (-32768, 32768) if signed else (0, 65536)
    a, b = rng.integers(lo, hi, shape), rng.integers(lo, hi, shape)
    fn = okk.okk_bdc_fixed_point_packed_max if is_max else okk.okk_bdc_fixed_point_packed_min
    with okk.Device() as dev:
        _zero(dev, range(2))
        Packed(dev, "t", "x", SRC0, okk.dim4(*shape), None, 16, signed).write(a)
        Packed(dev, "t", "x", SRC1, okk.dim4(*shape), None, 16, signed).write(b)
        fn(DST, SRC0, SRC1, okk.dim4(*shape), None, None, None, ot)
        got = Packed(dev, "t", "x", DST, okk.dim4(*shape), None, 8, False).read()
        want = _reference(a, b, max if is_max else min, signed, shape)
        np.testing.assert_array_equal(got, want)
        assert dev.events[-1].args["cycles"] == -(-n // 4) * -(-c // 64) * -(-w // 16)


def test_sign_only_changes_keep_the_sources_type_and_cost():
    """U8_OP_U8_TO_S8 compares unsigned and writes the unsigned bytes (no saturation to int8);
    U16_OP_U16_TO_S16 likewise in 16 bits, at the 16-bit factor (max 3)."""
    sh = okk.dim4(4, 1, 1, 1)
    with okk.Device() as dev:
        _zero(dev)
        Packed(dev, "t", "x", SRC0, sh, None, 8, False).write(np.array([0x80, 0x7F, 0xFF, 1]).reshape(4, 1, 1, 1))
        Packed(dev, "t", "x", SRC1, sh, None, 8, False).write(np.array([0x7F, 0x80, 0x01, 0xFF]).reshape(4, 1, 1, 1))
        okk.okk_bdc_fixed_point_packed_max(DST, SRC0, SRC1, sh, None, None, None, U8_OP_U8_TO_S8)
        assert bytes(dev.read_local(0, DST, 4)) == bytes([0x80, 0x80, 0xFF, 0xFF])
        okk.okk_bdc_fixed_point_packed_max_C(DST, SRC0, 0x1FF, sh, None, None, U16_OP_U16_TO_S16)   # C -> 0x01FF
        got = Packed(dev, "t", "x", DST, sh, None, 16, False).read().ravel()
        assert list(got) == [max(0x7F80, 0x1FF), max(0x01FF, 0x1FF), 0x1FF, 0x1FF]  # words 0x7F80, 0x01FF
        assert dev.events[-1].args["cycles"] == 3


@pytest.mark.parametrize("ot", [U8_OP_U8_TO_U16, S8_OP_S8_TO_S16, 17])
@pytest.mark.parametrize("name", ["max", "min", "max_C", "min_C"])
def test_8bit_sources_16bit_destination_is_rejected(ot, name):
    """The C-model fills the second half of such a destination from past its result buffer (heap bytes
    that change from run to run), so there is no defined result to reproduce."""
    sh = okk.dim4(4, 1, 1, 1)
    fn = getattr(okk, "okk_bdc_fixed_point_packed_" + name)
    with okk.Device() as dev:
        _zero(dev)
        with pytest.raises(ConstraintError, match="8-bit destination"):
            if name.endswith("_C"):
                fn(DST, SRC0, 3, sh, None, None, ot)
            else:
                fn(DST, SRC0, SRC1, sh, None, None, None, ot)


def test_n_stride_zero_broadcasts_element_0_for_the_first_operand_only():
    """C-model probe (split_high, then add with src1 broadcast): src0 with N stride 0 repeats element 0
    (lane 0 of word 0) along N; src1 with N stride 0 repeats the whole word (elements n % 4)."""
    sh = okk.dim4(8, 1, 1, 2)
    dst_st, bc, dense = okk.dim4(8, 8, 8, 1), okk.dim4(0, 2, 2, 1), okk.dim4(8, 8, 8, 1)
    with okk.Device() as dev:
        _zero(dev)
        dev.write_local(0, SRC0, np.arange(1, 129, dtype=np.uint8))
        okk.okk_bdc_fixed_point_packed_16bit_split_high_8bit(DST, SRC0, sh, dst_st, bc)
        assert bytes(dev.read_local(0, DST, 8)) == bytes.fromhex("02 02 02 02 06 06 06 06")
        U8_OP_U8_TO_U8 = 9
        okk.okk_bdc_fixed_point_packed_add(DST, SRC1, SRC0, sh, dst_st, dense, bc, U8_OP_U8_TO_U8, 0)
        assert bytes(dev.read_local(0, DST, 8)) == bytes.fromhex("01 02 03 04 05 06 07 08")
        okk.okk_bdc_fixed_point_packed_add(DST, SRC0, SRC1, sh, dst_st, bc, dense, U8_OP_U8_TO_U8, 0)
        assert bytes(dev.read_local(0, DST, 8)) == bytes.fromhex("01 01 01 01 05 05 05 05")
