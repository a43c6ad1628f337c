"""Cast pair / roundMode tables per product, checked against an independent transcription of the vendor
Cast page (mirror-cann/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/类型转换/Cast.md), audit finding 1."""
import itertools

import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError

R = asc.RoundMode
N5 = "NONE RINT FLOOR CEIL ROUND TRUNC"
F5 = "RINT FLOOR CEIL ROUND TRUNC"
ANY = "NONE RINT FLOOR CEIL ROUND TRUNC ODD"     # int32 -> half: roundMode has no effect (SetDeqScale)

# "src dst modes" rows, copied by hand from Cast.md's per-product tables (int4b_t rows left out).
A2 = f"""int8_t half NONE | uint8_t half NONE | int16_t half {N5} | int16_t float NONE | half int8_t {N5} |
half uint8_t {N5} | half int16_t {F5} | half int32_t {F5} | half float NONE | bfloat16_t int32_t {F5} |
bfloat16_t float NONE | int32_t int16_t NONE | int32_t half {ANY} | int32_t float {N5} | int32_t int64_t NONE |
float int16_t {F5} | float half {N5} ODD | float bfloat16_t {F5} | float int32_t {F5} | float float {F5} |
float int64_t {F5} | int64_t int32_t NONE | int64_t float {F5}"""
B310 = A2.replace(f"int32_t half {ANY}", "int32_t half NONE")
P310 = """int8_t half NONE | uint8_t half NONE | int16_t half NONE | half int8_t FLOOR CEIL ROUND TRUNC NONE |
half uint8_t FLOOR CEIL ROUND TRUNC NONE | half int16_t RINT | half int32_t RINT FLOOR CEIL ROUND TRUNC |
half float NONE | int32_t int16_t NONE | int32_t half NONE RINT FLOOR CEIL ROUND TRUNC ODD | int32_t float NONE |
float half ODD NONE | float int64_t RINT FLOOR CEIL ROUND TRUNC"""
A910 = """int8_t half NONE | uint8_t half NONE | int16_t half NONE | half int8_t FLOOR CEIL ROUND TRUNC NONE |
half uint8_t FLOOR CEIL ROUND TRUNC NONE | half int32_t RINT FLOOR CEIL ROUND TRUNC | half float NONE |
int32_t float NONE | float half ODD NONE | float int64_t RINT FLOOR CEIL ROUND TRUNC"""
TABLES = {"Ascend910B1": A2, "Ascend910_9391": A2, "Ascend310B1": B310, "Ascend310P3": P310, "Ascend910A": A910}
TYPES = ["half", "float", "bfloat16_t", "int8_t", "uint8_t", "int16_t", "int32_t", "int64_t"]


def parse(table):
    out = {}
    for row in table.split("|"):
        s, d, *modes = row.split()
        out[(s, d)] = {"CAST_" + m for m in modes}
    return out


@pytest.mark.parametrize("soc", sorted(TABLES))
def test_every_pair_and_mode_follows_the_vendor_table(soc):
    want = parse(TABLES[soc])
    with asc.core_context(soc):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 8192)
        for s, d in itertools.product(TYPES, TYPES):
            src = buf.GetWithOffset(getattr(asc, s), 32, 0).load(np.ones(32))
            dst = buf.GetWithOffset(getattr(asc, d), 32, 4096)
            for mode in R:
                if mode is R.CAST_HYBRID:
                    continue
                if mode.name in want.get((s, d), ()):
                    asc.Cast(dst, src, mode, 32)
                    assert (dst.numpy() == 1).all(), (soc, s, d, mode)
                else:
                    with pytest.raises(ConstraintError) as e:
                        asc.Cast(dst, src, mode, 32)
                    assert e.value.api == "Cast" and e.value.param in ("dtype", "round_mode"), (soc, s, d, mode)


def test_rejections_name_the_rule(core):
    s = core.t(asc.half, 64, 0).load(np.ones(64))
    with pytest.raises(ConstraintError) as e:
        asc.Cast(core.t(asc.int32_t, 64, 1024), s, R.CAST_NONE, 64)
    assert (e.value.param, e.value.value) == ("round_mode", "CAST_NONE")
    assert "half->int32_t on Ascend910B1 accepts CAST_CEIL, CAST_FLOOR, CAST_RINT, CAST_ROUND, CAST_TRUNC" in e.value.rule
    with pytest.raises(ConstraintError) as e:
        asc.Cast(core.t(asc.uint16_t, 64, 1024), s, R.CAST_NONE, 64)
    assert (e.value.param, e.value.value) == ("dtype", "half->uint16_t")


def test_newly_accepted_pairs_compute_real_values(core):
    x16 = np.array([-32768, -3, 0, 7, 32767] * 13, np.int16)[:64]
    d = core.t(asc.float, 64, 1024)
    asc.Cast(d, core.t(asc.int16_t, 64, 0).load(x16), R.CAST_NONE, 64)
    np.testing.assert_array_equal(d.numpy(), x16.astype(np.float64))

    x32 = np.array([70000, -70000, 5, -5, 32767, -32768, 0, 1] * 8, np.int32)
    d = core.t(asc.int16_t, 64, 1024)
    asc.Cast(d, core.t(asc.int32_t, 64, 0).load(x32), R.CAST_NONE, 64)
    np.testing.assert_array_equal(d.numpy(), np.clip(x32, -32768, 32767))   # saturates (npusim's choice)

    xb = np.array([2.5, -2.5, 3.5, -0.5, 1e10, -1e10, 7.0, 0.0] * 8, np.float32)
    src = core.t(asc.bfloat16_t, 64, 0).load(xb)                             # all exact in bfloat16
    for mode, ref in ((R.CAST_RINT, np.rint), (R.CAST_FLOOR, np.floor), (R.CAST_TRUNC, np.trunc)):
        d = core.t(asc.int32_t, 64, 1024)
        asc.Cast(d, src, mode, 64)
        np.testing.assert_array_equal(d.numpy(), np.clip(ref(xb.astype(np.float64)), -2 ** 31, 2 ** 31 - 1))


def test_int32_to_half_uses_the_deq_scale_and_ignores_round_mode():
    x = np.array([1, 3, -5, 1000, 2049, -2049, 0, 7] * 8, np.int32)
    with asc.core_context("Ascend910B1"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s = buf.GetWithOffset(asc.int32_t, 64, 0).load(x)
        d = buf.GetWithOffset(asc.half, 64, 1024)
        asc.SetDeqScale(0.5)
        asc.Cast(d, s, R.CAST_FLOOR, 64)
        np.testing.assert_array_equal(d.numpy(), (x * 0.5).astype(np.float16))
    with asc.core_context("Ascend310B1"):                     # 310B: a plain CAST_NONE conversion
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        s = buf.GetWithOffset(asc.int32_t, 64, 0).load(x)
        d = buf.GetWithOffset(asc.half, 64, 1024)
        asc.Cast(d, s, R.CAST_NONE, 64)
        np.testing.assert_array_equal(d.numpy(), x.astype(np.float16))


def test_310p_half_to_int16_rint_only():
    with asc.core_context("Ascend310P3"):
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        x = np.array([2.5, -2.5, 1.5, 40000, -40000, 0.4, -0.6, 3] * 16, np.float16)
        s = buf.GetWithOffset(asc.half, 128, 0).load(x)
        d = buf.GetWithOffset(asc.int16_t, 128, 1024)
        asc.Cast(d, s, R.CAST_RINT, 128)
        np.testing.assert_array_equal(d.numpy(), np.clip(np.rint(x.astype(np.float64)), -32768, 32767))
        with pytest.raises(ConstraintError, match="accepts CAST_RINT"):
            asc.Cast(d, s, R.CAST_TRUNC, 128)
