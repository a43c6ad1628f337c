"""The GDMA init-map fast path (initmap): same values, same uninitialized-read reports as the slow path."""
import numpy as np
import pytest

from npusim import configure, okk
from npusim.core.errors import UninitializedReadError
from npusim.okk import initmap

G = okk.okk_global_mem_start_addr()


def test_byte_box_merges_contiguous_runs():
    dev = okk.Device(global_mem_bytes=1 << 24)
    t = dev.local_tensor("t", "a", 0x100, okk.dim4(2, 70, 3, 5), None, np.uint32, 4)
    boxes = t.init_boxes()
    assert len(boxes) == 2                      # 64 channels in row 0 (from NPU 0), 6 in row 1
    assert boxes[0].shape[-1] == 3 * 5 * 4      # h*w fp32 contiguous bytes as one run
    assert sum(b.size for b in boxes) == 2 * 70 * 3 * 5 * 4


def test_copy_round_trip_with_strides_is_bit_exact():
    x = np.random.default_rng(1).integers(0, 1 << 32, (2, 70, 3, 5), dtype=np.uint64).astype(np.uint32)
    dev = okk.Device(global_mem_bytes=1 << 24)
    with dev:
        dev.write_system(G, x)
        sh = okk.dim4(2, 70, 3, 5)
        okk.okk_gdma_32bit_cpy_S2L(0x40, G, sh)
        okk.okk_gdma_32bit_cpy_L2S(G + 0x10000, 0x40, sh)
        okk.okk_gdma_32bit_cpy_L2S(G + 0x10000, 0x40, sh)   # second time: both tensors known written
    np.testing.assert_array_equal(dev.read_system(G + 0x10000, x.shape, np.uint32), x)


def test_forget_after_a_checked_copy_is_reported_again():
    dev = okk.Device(global_mem_bytes=1 << 24)
    sh = okk.dim4(1, 4, 2, 8)
    with dev, configure(uninitialized="error"):
        dev.write_system(G, np.ones(64, np.float32))
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)            # source checked and remembered as written
        dev.system.forget(8, 4)                          # one element of the source freed
        with pytest.raises(UninitializedReadError):
            okk.okk_gdma_32bit_cpy_S2L(0, G, sh)


def test_partly_written_source_still_reported_and_dst_marked_only_on_success():
    dev = okk.Device(global_mem_bytes=1 << 24)
    sh = okk.dim4(1, 2, 1, 16)
    with dev, configure(uninitialized="error"):
        dev.write_system(G, np.ones(31, np.float32))     # the last element never written
        with pytest.raises(UninitializedReadError):
            okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
        t = dev.local_tensor("t", "a", 0, sh, None, np.uint32, 4)
        assert not initmap.is_written(t)


def test_poison_mode_matches_the_core_path():
    dev = okk.Device(global_mem_bytes=1 << 24)
    sh = okk.dim4(1, 1, 1, 8)
    with dev, pytest.warns(Warning):
        dev.write_system(G, np.arange(7, dtype=np.float32))
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
    got = dev.read_local(0, 0, 32).view(np.float32)
    np.testing.assert_array_equal(got[:7], np.arange(7, dtype=np.float32))
    assert got.view(np.uint32)[7] == dev.system.int_poison   # the core poisons uint views with it


def test_neg_from_zero_equals_sub_of_dazd_input_bit_for_bit():
    from npusim.okk import fp32
    specials = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F800000, 0xFF800000,
                         0x7FC00001, 0xFFA00000, 0x7F7FFFFF, 0x3F800000], np.uint32)
    rand = np.random.default_rng(3).integers(0, 1 << 32, 4096, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([specials, rand]).view(np.float32)
    with np.errstate(all="ignore"):
        want = fp32.sub(np.float32(0), fp32.daz(x))
        got = fp32.neg_from_zero(x)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
