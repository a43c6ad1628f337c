"""Memories and views: strided values against numpy's own stride arithmetic, bounds, lanes, init tracking."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure
from npusim.core import (Allocator, ConstraintError, Memory, OutOfBoundsError, TensorView,
                         UninitializedReadError, UninitializedReadWarning, views_overlap)


def filled(mem: Memory) -> np.ndarray:
    raw = (np.arange(mem.size) * 7 % 251).astype(np.uint8)
    mem.write_bytes(0, raw)
    return raw


def ref_gather(raw: np.ndarray, offset, shape, strides, dtype) -> np.ndarray:
    """Element i reads bytes [offset + sum(i_k * s_k), +itemsize): built element by element."""
    dt = np.dtype(dtype)
    out = np.empty(shape, dt)
    for idx in np.ndindex(*shape):
        at = offset + sum(i * s for i, s in zip(idx, strides))
        out[idx] = raw[at:at + dt.itemsize].view(dt)[0]
    return out


@pytest.mark.parametrize("offset,shape,strides", [
    (0, (4, 8), (32, 4)),            # dense
    (124, (4, 8), (-32, 4)),         # negative outer stride
    (28, (4, 8), (32, -4)),          # negative inner stride
    (16, (3, 5), (0, 4)),            # broadcast (zero stride)
    (3, (5, 7), (36, 4)),            # odd start, padded rows
    (1, (6,), (5,)),                 # odd stride: unaligned elements
    (0, (2, 3, 4), (0, 0, 4)),       # two zero strides
])
def test_view_values_match_byte_arithmetic(offset, shape, strides):
    mem = Memory("gm", 4096)
    raw = filled(mem)
    v = TensorView(mem, offset, shape, strides, "int32")
    assert np.array_equal(v.read(), ref_gather(raw, offset, shape, strides, np.int32))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 200), st.lists(st.tuples(st.integers(1, 5), st.integers(-40, 40)), min_size=1, max_size=3),
       st.sampled_from(["int8", "int16", "float32", "bfloat16"]))
def test_strided_views_in_bounds_read_the_right_bytes(offset, dims, dt):
    mem = Memory("gm", 1024)
    raw = filled(mem)
    shape = tuple(n for n, _ in dims)
    strides = tuple(s for _, s in dims)
    lo = offset + sum(min(0, s * (n - 1)) for n, s in dims)
    hi = offset + sum(max(0, s * (n - 1)) for n, s in dims) + np.dtype(TensorView(mem, 0, (1,), None, dt).dtype.np).itemsize
    if lo < 0 or hi > mem.size:
        with pytest.raises(OutOfBoundsError):
            TensorView(mem, offset, shape, strides, dt)
        return
    v = TensorView(mem, offset, shape, strides, dt)
    assert (v.footprint.lo, v.footprint.hi) == (lo, hi)
    got = v.read().view(f"u{v.dtype.itemsize}")
    want = ref_gather(raw, offset, shape, strides, f"u{v.dtype.itemsize}")
    assert np.array_equal(got, want)


def test_out_of_bounds_names_memory_and_ranges():
    mem = Memory("global", 256, base=0x1_0000_0000)
    with pytest.raises(OutOfBoundsError) as e:
        TensorView(mem, 200, (16,), None, "float32", api="okk_gdma_32bit_cpy_S2L")
    msg = str(e.value)
    assert "okk_gdma_32bit_cpy_S2L" in msg and "global" in msg
    assert "[0x1000000c8, 0x100000108)" in msg and "[0x100000000, 0x100000100)" in msg
    with pytest.raises(OutOfBoundsError):
        TensorView(mem, 8, (4,), (-4,), "float32")            # negative stride walks below byte 0
    assert isinstance(e.value, IndexError)


def test_laned_memory_bounds_and_stride_rule():
    mem = Memory("sbuf", lane_bytes=1024, lanes=128)
    v = TensorView(mem, 5 * 1024 + 16, (4, 8), (1024, 4), "float32")
    fp = v.footprint
    assert (fp.lane_lo, fp.lane_hi, fp.lo, fp.hi) == (5, 9, 16, 48)
    with pytest.raises(OutOfBoundsError, match="lanes"):
        TensorView(mem, 126 * 1024, (4, 8), (1024, 4), "float32")
    with pytest.raises(OutOfBoundsError, match="bytes of each lane"):
        TensorView(mem, 1000, (2, 8), (1024, 4), "float32")   # runs off the end of lane 0
    with pytest.raises(ConstraintError, match="multiple of its lane size"):
        TensorView(mem, 0, (2, 2), (1536, 4), "float32")


def test_uninitialised_reads_poison_or_raise():
    mem = Memory("ub", 1024, int_poison=4)
    f = TensorView(mem, 0, (4,), None, "float32")
    i = TensorView(mem, 64, (4,), None, "int16")
    f.write(np.array([1, 9, 2, 9], np.float32), where=np.array([True, False, True, False]))
    with pytest.warns(UninitializedReadWarning, match=r"8 never-written byte\(s\) of ub, the first at byte 0x4"):
        got = f.read(api="Add")
    assert got[0] == 1 and np.isnan(got[1]) and got[2] == 2 and np.isnan(got[3])
    with pytest.warns(UninitializedReadWarning):
        assert i.read().tolist() == [4, 4, 4, 4]
    g = TensorView(mem, 128, (2,), None, "float32")
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError, match=r"8 never-written byte\(s\) of ub, the first at byte 0x80"):
            g.read(api="Add")
        g.write(np.ones(2, np.float32))
        assert g.read().tolist() == [1.0, 1.0]
    with configure(strict=True):
        with pytest.raises(UninitializedReadError):
            TensorView(mem, 256, (2,), None, "float32").read()


def test_partly_written_element_is_uninitialised():
    mem = Memory("m", 64)
    mem.write_bytes(0, np.array([1, 2, 3], np.uint8))        # 3 of the 4 bytes of one float
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            TensorView(mem, 0, (1,), None, "float32").read()


def test_masked_write_leaves_other_elements():
    mem = Memory("m", 64)
    v = TensorView(mem, 0, (8,), None, "int16")
    v.write(np.arange(8, dtype=np.int16))
    v.write(np.full(8, -1, np.int16), where=np.arange(8) % 3 == 0)
    assert v.read().tolist() == [-1, 1, 2, -1, 4, 5, -1, 7]
    assert mem.data[16:].sum() == 0                          # nothing written past the view


def test_four_gib_memory_costs_nothing_until_touched():
    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4
    before = rss_kib()
    mem = Memory("global", 4 << 30, base=0x1_0000_0000)
    v = TensorView(mem, (4 << 30) - 4096, (1024,), None, "float32")
    v.write(np.ones(1024, np.float32))
    assert rss_kib() - before < 64 * 1024                     # far below 4 GiB (or even 64 MiB)
    assert mem.read_bytes((4 << 30) - 4, 4).view(np.float32)[0] == 1.0


def test_raw_bytes_and_bounds():
    mem = Memory("gm", 16, base=0x100)
    mem.write_bytes(4, np.array([1.5], np.float32))
    assert mem.read_bytes(4, 4).view(np.float32)[0] == 1.5
    with pytest.raises(OutOfBoundsError, match=re.escape("[0x10e, 0x112)")):
        mem.write_bytes(14, np.zeros(4, np.uint8))


def test_exact_overlap_of_interleaved_views():
    mem = Memory("m", 1024)
    even = TensorView(mem, 0, (16,), (8,), "float32")        # bytes 0-3, 8-11, ...
    odd = TensorView(mem, 4, (16,), (8,), "float32")         # bytes 4-7, 12-15, ...
    assert even.footprint.overlaps(odd.footprint)            # the boxes meet
    assert not views_overlap(even, odd)                      # the bytes do not
    assert views_overlap(even, TensorView(mem, 8, (2,), None, "float32"))
    assert not views_overlap(even, TensorView(mem, 512, (2,), None, "float32"))


def test_reinterpret_and_contiguity():
    mem = Memory("m", 64)
    v = TensorView(mem, 0, (2, 4), None, "float32")
    v.write(np.full((2, 4), 1.0, np.float32))
    assert v.with_dtype("int32").read()[0, 0] == 0x3F800000
    assert v.is_contiguous() and not TensorView(mem, 0, (2, 2), (16, 4), "float32").is_contiguous()
    with pytest.raises(ConstraintError, match="same size"):
        v.with_dtype("int16")


def test_allocator_first_fit_alignment_and_capacity():
    a = Allocator("UB", 1024, align=32)
    x = a.alloc(100, "x")
    y = a.alloc(64, "y")
    assert (x.offset, y.offset) == (0, 128)
    a.free(x)
    z = a.alloc(96, "z")                                      # reuses the hole
    assert z.offset == 0
    with pytest.raises(ConstraintError) as e:
        a.alloc(900, "big", api="TPipe.InitBuffer")
    msg = str(e.value)
    assert "TPipe.InitBuffer" in msg and "UB holds at most 1024 bytes" in msg and "y@0x80+64" in msg
    with pytest.raises(ConstraintError, match="size"):
        a.alloc(0)
