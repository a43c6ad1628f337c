"""Fixed-point packed add/sub/mul/mac (and _C / C_ forms) with the op types whose unsigned sources name a
signed destination: U16_OP_U16_TO_S16 (16), U8_OP_U8_TO_S16 (17), U16_OP_U16_TO_S8 (24),
U8_OP_U8_TO_S8 (25). okk.h enumerators the docs' examples leave out; Sophgo's C-model computes them
(issue 4 audit). Rules pinned by the C-model sweep (docs/okk.md): add / mul / mac ignore op_type's
destination-sign bit (the result is signed exactly when a source is, so here it saturates to the
unsigned range), sub saturates to the signed range; mul asserts 8-bit sources (mac: not modelled)."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import okk
from npusim.core.errors import ConstraintError
from npusim.okk.bdc_fixed_point import Packed

U16_OP_U16_TO_S16, U8_OP_U8_TO_S16, U16_OP_U16_TO_S8, U8_OP_U8_TO_S8 = 16, 17, 24, 25
SRC0, SRC1, DST = 0x0, 0x1000, 0x2000
SHAPE = (6, 3, 1, 5)


def _widths(op_type):
    """(source bits, destination bits), from okk.h's bit layout (bit 0 src 8-bit, bit 3 dst 8-bit)."""
    return (8 if op_type & 1 else 16), (8 if op_type & 8 else 16)


def _saturate(v, bits, signed):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return np.clip(v, lo, hi)


def _round(v, r):
    return (v + (1 << (r - 1))) >> r if r else v


def _device_with(dev, a, b, sbits, sh):
    for q in (0, 1, 2):
        dev.write_local(q, 0, np.zeros(0x3000, np.uint8))
    Packed(dev, "t", "x", SRC0, sh, None, sbits, False).write(a)
    Packed(dev, "t", "x", SRC1, sh, None, sbits, False).write(b)


def test_audit_repro_u8_minus_u8_to_s16():
    """The auditor's repro, in raw bytes: 4 u8 lanes in one word each side, 2 s16 lanes per result word."""
    with okk.Device() as dev:
        dev.write_local(0, 0, np.zeros(0x30000, np.uint8))
        dev.write_local(0, 0x0, np.array([200, 10, 255, 0], np.uint8))
        dev.write_local(0, 0x10000, np.array([100, 20, 0, 255], np.uint8))
        okk.okk_bdc_fixed_point_packed_sub(0x20000, 0, 0x10000, okk.dim4(4, 1, 1, 1), None, None, None,
                                          U8_OP_U8_TO_S16, 0)
        # 128-byte aligned stride for the 2 result words: element n is lane n % 2 of word n // 2
        first = np.asarray(dev.read_local(0, 0x20000, 4)).view(np.int16)
        second = np.asarray(dev.read_local(0, 0x20000 + 128, 4)).view(np.int16)
    np.testing.assert_array_equal(np.concatenate([first, second]), [100, -10, 255, -255])


BINARY = [("add", np.add, False), ("sub", np.subtract, True), ("mul", np.multiply, False)]


@settings(max_examples=25, deadline=None)
@given(op=st.sampled_from(BINARY), op_type=st.sampled_from([16, 17, 24, 25]), rshift=st.integers(0, 12),
       seed=st.integers(0, 2 ** 31))
def test_binary_matches_integer_reference(op, op_type, rshift, seed):
    name, fn, signed_dst = op
    sbits, dbits = _widths(op_type)
    if name == "mul" and sbits == 16:
        return                                      # rejected: test_mul_mac_16bit_sources_rejected
    r = np.random.default_rng(seed)
    a = r.integers(0, 1 << sbits, SHAPE)
    b = r.integers(0, 1 << sbits, SHAPE)
    a.flat[:2], b.flat[:2] = (1 << sbits) - 1, ((1 << sbits) - 1, 0)    # the extremes
    sh = okk.dim4(*SHAPE)
    with okk.Device() as dev:
        _device_with(dev, a, b, sbits, sh)
        getattr(okk, f"okk_bdc_fixed_point_packed_{name}")(DST, SRC0, SRC1, sh, None, None, None, op_type, rshift)
        got = Packed(dev, "t", "x", DST, sh, None, dbits, signed_dst).read()
    want = _saturate(_round(fn(a.astype(np.int64), b), rshift), dbits, signed_dst)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("form", ["add_C", "sub_C", "C_sub", "mul_C"])
@pytest.mark.parametrize("op_type", [16, 17, 24, 25])
def test_c_forms_match_integer_reference(form, op_type):
    sbits, dbits = _widths(op_type)
    if form == "mul_C" and sbits == 16:
        pytest.skip("mul takes 8-bit sources only")
    r = np.random.default_rng(op_type)
    a = r.integers(0, 1 << sbits, SHAPE)
    k = (1 << sbits) - 3
    sh = okk.dim4(*SHAPE)
    with okk.Device() as dev:
        _device_with(dev, a, a, sbits, sh)
        getattr(okk, f"okk_bdc_fixed_point_packed_{form}")(DST, SRC0, k, sh, None, None, op_type, 2)
        signed = "sub" in form
        got = Packed(dev, "t", "x", DST, sh, None, dbits, signed).read()
    x = a.astype(np.int64)
    exact = {"add_C": x + k, "sub_C": x - k, "C_sub": k - x, "mul_C": x * k}[form]
    np.testing.assert_array_equal(got, _saturate(_round(exact, 2), dbits, signed))


@pytest.mark.parametrize("with_c", [False, True])
@pytest.mark.parametrize("op_type", [U8_OP_U8_TO_S16, U8_OP_U8_TO_S8])
def test_mac_accumulates_unsigned(with_c, op_type):
    """mac: dst (a 16-bit accumulator) = ((dst << lshift) + src0 * src1 + round) >> rshift; with unsigned
    sources the accumulator is read and saturated as u16 whatever the destination-sign bit says."""
    r = np.random.default_rng(with_c * 100 + op_type)
    a = r.integers(0, 256, SHAPE)
    b = r.integers(0, 256, SHAPE)
    acc = r.integers(0, 1 << 16, SHAPE)
    acc.flat[0], a.flat[0], b.flat[0] = 0xFFFF, 255, 255         # saturates high (>= 0x8000: unsigned)
    k = 201
    sh = okk.dim4(*SHAPE)
    with okk.Device() as dev:
        _device_with(dev, a, b, 8, sh)
        Packed(dev, "t", "x", DST, sh, None, 16, False).write(acc)
        if with_c:
            okk.okk_bdc_fixed_point_packed_mac_C(DST, SRC0, k, sh, None, None, False, op_type, 2, 1)
        else:
            okk.okk_bdc_fixed_point_packed_mac(DST, SRC0, SRC1, sh, None, None, None, False, op_type, 2, 1)
        got = Packed(dev, "t", "x", DST, sh, None, 16, False).read()
    prod = a.astype(np.int64) * (k if with_c else b)
    np.testing.assert_array_equal(got, _saturate(_round((acc.astype(np.int64) << 2) + prod, 1), 16, False))
    assert got.flat[0] == 0xFFFF


@pytest.mark.parametrize("op_type", [U16_OP_U16_TO_S16, U16_OP_U16_TO_S8])
@pytest.mark.parametrize("fn", ["mul", "mul_C"])
def test_mul_16bit_sources_rejected(fn, op_type):
    """mul / mul_C: the C-model asserts ``Int8[0]==1 && Int8[1]==1`` (atomic_tensor_arithmetic_fix8b_gen_cmd.c
    line 51). (mac / mac_C read 16-bit-source op types as their 8-bit twins: test_fixed_point_mac16.)"""
    sh = okk.dim4(*SHAPE)
    args = {"mul": (DST, SRC0, SRC1, sh, None, None, None, op_type, 0),
            "mul_C": (DST, SRC0, 3, sh, None, None, op_type, 0)}[fn]
    with okk.Device() as dev:
        dev.write_local(0, 0, np.zeros(0x3000, np.uint8))
        with pytest.raises(ConstraintError, match="8-bit"):
            getattr(okk, f"okk_bdc_fixed_point_packed_{fn}")(*args)


# ---- the C-model sweep restricted to these op types (skipped without the libraries) ----

ORACLE_CASES = int(os.environ.get("NPUSIM_ORACLE_CASES", 60))


@pytest.mark.parametrize("func", ["add", "sub", "mul", "add_C", "sub_C", "C_sub", "mul_C", "mac", "mac_C"])
def test_sign_change_sweep_matches_cmodel(func):
    from npusim.okk.oracle.fetch import available
    if not available():
        pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)")
    from npusim.okk.oracle.differential import check, run_batches
    from npusim.okk.oracle.part_two_sweep import FX, Batches
    f = FX + func
    sizes = [250] * (ORACLE_CASES // 250) + ([ORACLE_CASES % 250] if ORACLE_CASES % 250 else [])
    out = run_batches(Batches("signchange", f, tuple(sizes), "SIGN_CHANGE_SPECS"), len(sizes))
    assert out.cases == ORACLE_CASES
    check(out, "dst", "cycles")
