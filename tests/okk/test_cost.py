"""Cycle counts against the worked numbers of okkernel_cycles.md (measured on Sophgo's libbackend)."""
import numpy as np
import pytest

from npusim import okk
from npusim.okk import cost

G = okk.okk_global_mem_start_addr()


def cycles_of(fn, *args):
    with okk.Device() as dev:
        okk.okk_initialize()
        before = dev.total_cycles
        fn(*args)
        return dev.total_cycles - before, [e.args for e in dev.events]


def test_bdc_formula_by_hand():
    # N * ceil((q + C)/64) * ceil(H*W/16): (2, 70, 3, 5) at q = 62 -> 2 * 3 * 1
    assert cost.bdc_blocks(62, 2, 70, 3, 5) == 6
    assert cost.bdc_blocks(0, 1, 64, 1, 1024) == 64
    assert cost.bdc_blocks(0, 1, 1, 1, 1) == 1


@pytest.mark.parametrize("fn,work,extra,cycles", [
    (okk.okk_bdc_exp, True, (), 11648),
    (okk.okk_bdc_sigmoid, True, (), 13696),
    (okk.okk_bdc_tanh, True, (), 15808),
    (okk.okk_bdc_reciprocal, False, (None, None), 1920),
    (okk.okk_bdc_rsqrt, False, (), 27 * 64),
    (okk.okk_bdc_sqrt, False, (), 57 * 64),
    (okk.okk_bdc_lookup_exp, False, (), 24 * 64),
    (okk.okk_bdc_taylor_exp, False, (32,), (4 * 32 + 3) * 64),
    (okk.okk_bdc_neg, False, (None, None), 64),
])
def test_documented_bdc_costs_on_1x64x1x1024(fn, work, extra, cycles):
    sh = okk.dim4(1, 64, 1, 1024)
    args = (0x8000, 0, 0x10000, sh) if work else (0x8000, 0, sh)
    got, _ = cycles_of(fn, *args, *extra)
    assert got == cycles


def test_exp_is_seven_instructions_with_documented_split():
    sh = okk.dim4(1, 64, 1, 1024)
    _, evs = cycles_of(okk.okk_bdc_exp_tunable, 0x10000, 0, 0x18000, sh, 32)
    assert [e["cycles"] for e in evs] == [64, 1536, 64, 64, 1536, 8320, 64]
    assert [e["instruction"] for e in evs] == ["MD_SFU", "TABLE_LOOKUP", "MD_SCALAR", "MD_SFU",
                                               "TABLE_LOOKUP", "MD_SFU", "MD_SCALAR"]


@pytest.mark.parametrize("n,cycles", [(1, 58), (8, 86), (32, 182), (64, 310)])
def test_exp_tunable_small_shape(n, cycles):
    got, _ = cycles_of(okk.okk_bdc_exp_tunable, 0x1000, 0, 0x2000, okk.dim4(1, 64, 1, 16), n)
    assert got == cycles


def test_neg_with_stride_is_tensor_arith():
    sh = okk.dim4(1, 64, 1, 1024)
    st = okk.okk_128_byte_aligned_stride_for_32bit(None, 0, sh)
    got, evs = cycles_of(okk.okk_bdc_neg, 0x8000, 0, sh, st, None)
    assert got == 128 and evs[0]["instruction"] == "TENSOR_ARITH"


S2L_W = [172, 172, 172, 175, 214, 290, 444, 751, 1365, 2593, 5049, 9961, 19785]
L2S_W = [80, 80, 80, 83, 122, 198, 352, 659, 1273, 2501, 4957, 9869, 19693]


@pytest.mark.parametrize("k", range(13))
def test_gdma_s2l_l2s_table(k):
    w = 1 << k
    sh = okk.dim4(1, 64, 1, w)
    got, _ = cycles_of(okk.okk_gdma_32bit_cpy_S2L, 0, G, sh, None, None)
    assert got == S2L_W[k]
    got, _ = cycles_of(okk.okk_gdma_32bit_cpy_L2S, G, 0, sh, None, None)
    assert got == L2S_W[k]


def test_gdma_other_documented_numbers():
    assert cycles_of(okk.okk_gdma_32bit_cpy_L2L, 0x20000, 0, okk.dim4(1, 64, 1, 1024))[0] == 8195
    assert cycles_of(okk.okk_gdma_32bit_cpy_S2S, G + (1 << 20), G, okk.dim4(1, 64, 1, 1024))[0] == 5049
    assert cycles_of(okk.okk_gdma_32bit_cpy_S2S, G + (1 << 20), G, okk.dim4(1, 64, 1, 4))[0] == 156
    assert cycles_of(okk.okk_gdma_32bit_cpy_S2L, 0, G, okk.dim4(1, 64, 4, 4))[0] == 214
    col = okk.dim4(1, 1, 4096, 1)
    assert cycles_of(okk.okk_gdma_32bit_cpy_S2S, G + (1 << 20), G, col, None, okk.dim4(8192, 8192, 2, 1))[0] == 2406
    assert cycles_of(okk.okk_gdma_32bit_cpy_S2L, 0, G, okk.dim4(1, 64, 1, 4096))[0] == 19785


def test_gdma_matrix_runs_of_cols_per_channel():
    assert cycles_of(okk.okk_gdma_32bit_matrix_S2L, 0, G, 256, 256, 1, 256)[0] == 36442
    assert cycles_of(okk.okk_gdma_32bit_matrix_S2L, 0, G, 256, 256, 4, 256)[0] == 9213


def test_gdma_formula_by_hand():
    # S2L 1 MiB: (1048576 / (29.565 * 2) + 124) * 1.1079546 = 19785.6 -> 19785
    assert cost.gdma_cycles("S2L", 1 << 20, 4096) == 19785
    # S2L 1 KiB in 16-byte runs: (1024 / 32 + 124) * 1.1079546 = 172.8 -> 172
    assert cost.gdma_cycles("S2L", 1024, 16) == 172
    # L2L 256 KiB: 262144 / 32 + 3 = 8195
    assert cost.gdma_cycles("L2L", 1 << 18, 4096) == 8195
    # set_C_local 256 KiB: 262144 / 64 + 7 = 4103
    assert cost.gdma_cycles("set_C_local", 1 << 18, 4096) == 4103


def test_event_per_instruction_and_nanoseconds():
    sh = okk.dim4(1, 64, 1, 1024)
    with okk.Device() as dev:
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
        okk.okk_bdc_exp(0x8000, 0, 0x10000, sh)
        okk.okk_poll()
        assert dev.total_cycles == 5049 + 11648
        assert len(dev.events) == 8
        gd, bd = dev.events[0], dev.events[1]
        assert gd.engine == "GDMA" and bd.engine == "BDC"
        assert gd.dur_ns == pytest.approx(5049 / 575e6 * 1e9)
        assert bd.start_ns == pytest.approx(gd.end_ns)          # serial outside parallel regions
        assert dev.total_ns == pytest.approx(5049 / 0.575 + 11648 / 0.55)
        assert [e.args["start_cycle"] for e in dev.events[:3]] == [0, 5049, 5113]
