"""Parallel regions: Sophgo's two-stream schedule, the join, and races the C-model cannot see."""
import numpy as np
import pytest

import npusim
from npusim import RaceError, okk

G = okk.okk_global_mem_start_addr()
SH = okk.dim4(1, 64, 1, 1024)          # 256 KiB: S2L 5049, L2S 4957, exp 11648 cycles


def test_documented_parallel_schedule():
    """okkernel_cycles.md §2: S2L; parallel {S2L, exp, L2S}; then the join. 5049 + max(5049 + 4957, 11648)."""
    with okk.Device() as dev:
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        okk.okk_parallel_start()
        assert okk.okk_is_parallel_state()
        okk.okk_gdma_32bit_cpy_S2L(0x10000, G + (1 << 20), SH)
        okk.okk_bdc_exp(0x20000, 0, 0x30000, SH)
        okk.okk_gdma_32bit_cpy_L2S(G + (2 << 20), 0x40000, SH)
        assert dev.total_cycles == 5049 + 11648            # the longer stream so far
        okk.okk_parallel_end()
        assert not okk.okk_is_parallel_state()
        assert dev.total_cycles == 5049 + 11648
        starts = [(e.engine, e.args["start_cycle"]) for e in dev.events]
        assert starts[1] == ("GDMA", 5049) and starts[2] == ("BDC", 5049) and starts[-1] == ("GDMA", 10098)
        # the timeline overlaps the two engines: the exp's BDC events run while the GDMA events do
        bd = [e for e in dev.events[1:] if e.engine == "BDC"]
        assert bd[0].start_ns == pytest.approx(dev.events[0].end_ns)
        assert dev.events[-1].start_ns < bd[-1].end_ns
        okk.okk_gdma_32bit_cpy_S2L(0x50000, G, SH)          # after the join: starts at the max
        assert dev.events[-1].args["start_cycle"] == 5049 + 11648
        assert dev.events[-1].start_ns == pytest.approx(max(e.end_ns for e in dev.events[:-1]))


def test_gdma_serial_bdc_longer():
    with okk.Device() as dev:
        okk.okk_initialize()
        okk.okk_parallel_start()
        for i in range(3):
            okk.okk_gdma_32bit_cpy_S2L(0x10000 * i, G, SH)
        okk.okk_parallel_end()
        assert dev.total_cycles == 3 * 5049


def test_race_gdma_write_then_bdc_read():
    with okk.Device():
        okk.okk_initialize()
        okk.okk_parallel_start()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        with pytest.raises(RaceError, match="read-after-write"):
            okk.okk_bdc_exp(0x10000, 0, 0x20000, SH)


def test_race_bdc_write_then_gdma_read():
    with okk.Device():
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        okk.okk_parallel_start()
        okk.okk_bdc_exp(0x10000, 0, 0x20000, SH)
        with pytest.raises(RaceError):
            okk.okk_gdma_32bit_cpy_L2S(G, 0x10000, SH)


def test_race_gdma_overwrites_what_bdc_reads():
    with okk.Device():
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        okk.okk_parallel_start()
        okk.okk_bdc_neg(0x10000, 0, SH, None, None)
        with pytest.raises(RaceError, match="write-after-read"):
            okk.okk_gdma_32bit_cpy_S2L(0, G, SH)


def test_no_race_when_ordered_by_regions_or_disjoint():
    with okk.Device() as dev:
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)                 # before the region: ordered
        okk.okk_parallel_start()
        okk.okk_bdc_exp(0x10000, 0, 0x20000, SH)
        okk.okk_gdma_32bit_cpy_S2L(0x30000, G, SH)           # disjoint buffers
        okk.okk_gdma_32bit_cpy_L2S(G + (1 << 20), 0, SH)     # both only read buffer 0
        okk.okk_parallel_end()
        okk.okk_parallel_start()
        okk.okk_gdma_32bit_cpy_L2S(G, 0x10000, SH)           # the previous region's result: joined
        okk.okk_bdc_neg(0x40000, 0x30000, SH, None, None)
        okk.okk_parallel_end()
        okk.okk_poll()
        assert dev.total_cycles > 0


def test_race_check_can_be_switched_off():
    with okk.Device(), npusim.configure(check_races=False):
        okk.okk_initialize()
        okk.okk_parallel_start()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        okk.okk_bdc_exp(0x10000, 0, 0x20000, SH)
        okk.okk_parallel_end()


def test_results_are_eager_like_the_c_model():
    """Data moves at issue time, as in the C-model: a consumer inside the region sees the producer."""
    x = np.arange(8, dtype=np.float32).reshape(1, 8, 1, 1)
    with okk.Device() as dev, npusim.configure(check_races=False):
        dev.write_system(G, x)
        okk.okk_parallel_start()
        okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 8, 1, 1))
        okk.okk_bdc_neg(0x1000, 0, okk.dim4(1, 8, 1, 1), None, None)
        okk.okk_parallel_end()
        okk.okk_gdma_32bit_cpy_L2S(G + 64, 0x1000, okk.dim4(1, 8, 1, 1))
        np.testing.assert_array_equal(dev.read_system(G + 64, (1, 8, 1, 1)), -x)


def test_initialize_starts_a_new_section():
    with okk.Device() as dev:
        okk.okk_initialize()
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        okk.okk_poll()
        assert dev.total_cycles == 5049
        okk.okk_initialize()
        assert dev.total_cycles == 0
        okk.okk_gdma_32bit_cpy_S2L(0, G, SH)
        assert dev.total_cycles == 5049 and len(dev.events) == 2
