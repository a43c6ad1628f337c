"""Cycle costs against msKPP's measured 910B1 rows (ascendc_costs.md §2.2, §1.4) and the documented
bank-group rule; timing on the pipes."""
import math

import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.ascendc import cost

# measured total cycles per repeat count r = 1..16 (resource910b.cpp rows quoted in ascendc_costs.md)
VADDRELUCONV_F16_S8 = [3.0673, 4.04632, 6.035625, 8.03381, 10.036435, 12.03388, 14.030955, 16.03062, 18.0338,
                       20.031245, 22.029615, 24.04038, 26.031165, 28.039895, 30.029755, 32.041075]
VDIV_F32 = [4.0404, 8.04121, 12.034435, 16.040795, 20.03624, 24.03446, 28.04082, 32.03793, 36.04281, 40.03474,
            44.04221, 48.034325, 52.034765, 56.04612, 60.034535, 64.046075]
VEXP_F16 = [3.96468, 7.85628, 11.75076, 15.63804, 19.52496, 23.42196, 27.3222, 31.21596, 35.09136, 38.9844,
            42.87528, 46.77156, 50.67396, 54.54828, 58.46292, 62.3376]


@pytest.mark.parametrize("kind,dtype,rows", [("two", "float16", VADDRELUCONV_F16_S8), ("div", "float32", VDIV_F32),
                                             ("exp_ln", "float16", VEXP_F16)])
def test_vector_cycles_match_measured_rows(kind, dtype, rows):
    for r, measured in enumerate(rows, start=1):
        assert cost.vector_cycles(kind, r, dtype) == round(measured), (kind, r)   # max(L, s*r): issue 7


def test_bank_group_conflict_costs_eight_cycles_per_repeat(core):
    s = core.t(asc.half, 8192, 0).load(np.zeros(8192))
    d = core.t(asc.half, 1024, 32768)
    asc.Adds(d, s, 1.0, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.Adds(d, s, 1.0, 128, 2, asc.UnaryRepeatParams(1, 16, 8, 8))   # 8 blocks 512 B apart: one bank group
    ev = [e for e in core.context.timeline.trace.events if e.name == "Adds"]
    # 8 reads in bank 0, and d's first block (32768 B) is in bank 0 too: 8 + 1 cycles per repeat
    assert [e.cycles for e in ev] == [3, 2 * 9]


def test_copy_cycles_follow_the_fits():
    # GM->UB 192 KiB: msKPP's own worked number is 4319 cycles; the fit max(240.2 + B/81.9, B/45.19)
    assert abs(cost.copy_cycles("in", 192 * 1024) - 4319) / 4319 < 0.02
    assert cost.copy_cycles("in", 32) == math.ceil(240.2 + 32 / 81.9)          # latency floor kept
    assert cost.copy_cycles("out", 64 * 1024) == math.ceil(max(143.0 + 65536 / 91.8, 65536 / 63.76))


def test_chip_bandwidth_is_shared_by_active_cores():
    bpc = 1600e9 / 1.85e9
    one = cost.copy_cycles("in", 64 * 1024, bpc, 1)
    many = cost.copy_cycles("in", 64 * 1024, bpc, 48)
    assert many == math.ceil(max(240.2 + 65536 / (bpc / 48), 65536 / (bpc / 48))) and many > 2 * one


def test_count_form_on_910a_splits_at_255_repeats():
    with asc.core_context("Ascend910A"):
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 128 * 1024)
        t = b.Get(asc.half).load(np.zeros(65536))
        asc.Adds(t, t, 1.0, 300 * 128 + 5)
        ev = [e for e in asc.context.current().timeline.trace.events if e.name == "Adds"][-1]
    # 255 full repeats, 45 full repeats, a 5-element tail: three instructions each paying at least L
    assert ev.cycles == cost.vector_cycles("one", 255) + cost.vector_cycles("one", 45) + cost.vector_cycles("one", 1)


def test_pipes_are_engines_and_flags_cost_one_cycle():
    def k(x):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 128)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 256)
        t = b.Get(asc.half)
        asc.DataCopy(t, g, 128)
        asc.SetFlag(asc.HardEvent.MTE2_V, 0)
        asc.WaitFlag(asc.HardEvent.MTE2_V, 0)
        asc.Adds(t, t, 1.0, 128)
    res = asc.launch(k, 1, np.zeros(128, np.float16))
    ev = {e.name: e for e in res.trace.events}
    assert ev["DataCopy"].engine == "PIPE_MTE2" and ev["Adds"].engine == "PIPE_V"
    assert ev["SetFlag"].engine == "PIPE_MTE2" and ev["WaitFlag"].engine == "PIPE_V"
    assert ev["SetFlag"].cycles == 1 and ev["WaitFlag"].start_ns >= ev["SetFlag"].end_ns
    assert ev["Adds"].start_ns == pytest.approx(ev["WaitFlag"].end_ns)


def test_two_sources_sharing_bank_groups_add_up(core):
    a = core.t(asc.half, 4096, 0).load(np.zeros(4096))
    b = core.t(asc.half, 4096, 8192 + 64).load(np.zeros(4096))     # other groups than a's
    d = core.t(asc.half, 1024, 32768)
    p_contig = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    asc.Add(d, a, b, 128, 4, p_contig)                              # msKPP's s = 2 stays the floor
    asc.Add(d, a, a[0], 128, 4, asc.BinaryRepeatParams(1, 16, 16, 8, 8, 8))   # 16 blocks in one group
    ev = [e for e in core.context.timeline.trace.events if e.name == "Add"]
    assert [e.cycles for e in ev] == [8, 64]


def test_read_write_same_bank_conflict():
    """A source row and a destination row in one bank (bank = 16 * (addr // 64 KiB) + (addr / 32) % 16)
    serialise: 8 sources in groups 0..7 and 8 destinations in the same 8 banks need 2 cycles per repeat;
    the same destination 64 KiB higher (other banks, same groups) or written in place costs 1."""
    src = [k * 32 for k in range(8)]
    assert cost.bank_factor(src, [2048 + k * 32 for k in range(8)]) == 2          # 2048 B: groups 0..7, bank 0..7
    assert cost.bank_factor(src, [65536 + k * 32 for k in range(8)]) == 1         # banks 16..23
    assert cost.bank_factor(src, src) == 1                                        # in place
    assert cost.bank_of(0x10000) == 16 and cost.bank_of(0x10020) == 17 and cost.bank_of(0x20020) == 33
    assert cost.bank_of(0x10E20) == 17                                            # the reference's checks


def test_read_write_conflict_on_a_strided_one_source_op(core):
    s = core.t(asc.half, 2048, 0).load(np.zeros(2048))
    d_same_bank = core.t(asc.half, 1024, 8192)                    # 8192 B: banks 0..7, as the sources
    d_other_bank = core.t(asc.half, 1024, 16384 + 256)            # banks 8..15
    p = asc.UnaryRepeatParams(1, 1, 16, 16)                       # strided repeats: the banked (non-flat) path
    asc.Adds(d_same_bank, s, 1.0, 128, 4, p)
    asc.Adds(d_other_bank, s, 1.0, 128, 4, p)
    ev = [e for e in core.context.timeline.trace.events if e.name == "Adds"]
    assert [e.cycles for e in ev] == [cost.vector_cycles("one", 4, "float16", 2), cost.vector_cycles("one", 4)]
