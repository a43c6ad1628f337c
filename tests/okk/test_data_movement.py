"""Data movement and its bookkeeping, against references computed here from the layout formula (reference
§2): a strided GDMA copy writes exactly the bytes the formula names and marks exactly those as written;
reading a local tensor whose channels wrap past NPU 63 (several pieces, gathered in one pass) and a
matrix give the values at the formula's bytes; local memory uses 4 KiB pages and starts zeroed."""
import mmap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure, okk
from npusim.core.errors import UninitializedReadError
from npusim.core.memory import Memory, zeroed
from npusim.okk.matrix import Matrix

G = okk.okk_global_mem_start_addr()
LANE = okk.okk_local_mem_size_per_npu()


def _local_bytes(q, r, shape, st, esize):
    """(npu, byte) of every byte of every element of a local tensor, in (n, c, h, w, byte) order."""
    n, c, h, w = (np.arange(k).reshape(*(1,) * i, k, *(1,) * (3 - i)) for i, k in enumerate(shape))
    npu = (q + c) % 64 + 0 * (n + h + w)
    elem = r + esize * (n * st[0] + ((q + c) // 64) * st[1] + h * st[2] + w * st[3])
    return (npu[..., None] + 0 * np.arange(esize), elem[..., None] + np.arange(esize))


shapes = st.tuples(st.integers(1, 3), st.integers(1, 140), st.integers(1, 4), st.integers(1, 6))


@settings(max_examples=40, deadline=None)
@given(shape=shapes, q=st.integers(0, 63), r=st.integers(0, 64).map(lambda k: 4 * k),
       gaps=st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 3)),
       esize=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2 ** 31))
def test_strided_s2l_writes_and_marks_exactly_the_formula_bytes(shape, q, r, gaps, esize, seed):
    n, c, h, w = shape
    hs = w + gaps[2]
    cs = h * hs + gaps[1]
    ns = -(-(q + c) // 64) * cs + gaps[0]
    stride = (ns, cs, hs, 1)
    udt = {1: np.uint8, 2: np.uint16, 4: np.uint32}[esize]
    x = np.random.default_rng(seed).integers(0, 1 << (8 * esize), shape, dtype=np.uint64).astype(udt)
    dev = okk.Device(global_mem_bytes=1 << 22)
    with dev:
        dev.write_system(G, x)
        copy = getattr(okk, f"okk_gdma_{8 * esize}bit_cpy_S2L")
        copy(q * LANE + r, G, okk.dim4(*shape), okk.dim4(*stride), None)
    npu, byte = _local_bytes(q, r, shape, stride, esize)
    span = int(byte.max()) + 1
    want_init = np.zeros((64, span), np.uint8)
    want_init[npu, byte] = 1
    want_data = np.zeros((64, span), np.uint8)
    want_data[npu, byte] = x.view(np.uint8).reshape(*shape, esize)
    init, data = dev.local.init.reshape(64, LANE), dev.local.data.reshape(64, LANE)
    np.testing.assert_array_equal(init[:, :span], want_init)
    np.testing.assert_array_equal(data[:, :span], want_data)
    assert not init[:, span:].any() and not data[:, span:].any()


@settings(max_examples=30, deadline=None)
@given(shape=shapes, q=st.integers(0, 63), pad=st.integers(0, 5), seed=st.integers(0, 2 ** 31),
       hole=st.booleans())
def test_wrapping_local_tensor_reads_the_formula_values(shape, q, pad, seed, hole):
    """A tensor from NPU q with C channels is one piece per row run of NPUs; read gathers them. With a
    never-written element (hole) the read reports it, as before."""
    n, c, h, w = shape
    cs = h * w + pad
    stride = (-(-(q + c) // 64) * cs, cs, w, 1)
    npu, byte = _local_bytes(q, 0x40, shape, stride, 4)
    span = int(byte.max()) + 1
    raw = np.random.default_rng(seed).integers(0, 256, (64, span), dtype=np.uint8)
    dev = okk.Device(global_mem_bytes=1 << 22)
    dev.local.data.reshape(64, LANE)[:, :span] = raw
    dev.local.init.reshape(64, LANE)[:, :span] = 1
    want = raw[npu, byte].view(np.uint32)[..., 0]
    t = dev.local_tensor("t", "src_addr", q * LANE + 0x40, okk.dim4(*shape), okk.dim4(*stride), np.uint32, 4)
    if hole:
        dev.local.forget(int(npu.flat[-1]) * LANE + int(byte.flat[-1]), 1)
        with configure(uninitialized="error"), pytest.raises(UninitializedReadError):
            t.read()
        return
    got = t.read()
    assert got.shape == shape and got.dtype == np.uint32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("q,rows,cols,cpc", [(0, 3, 200, 2), (62, 2, 130, 1), (5, 4, 37, 8)])
def test_matrix_read_gathers_the_formula_values(q, rows, cols, cpc):
    """Matrix (rows x cols, cols_per_channel) = tensor (rows, ceil(cols/cpc), 1, cpc), aligned strides."""
    x = np.random.default_rng(q).standard_normal((rows, cols)).astype(np.float32)
    dev = okk.Device(global_mem_bytes=1 << 22)
    addr = q * LANE + 0x80
    with dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_matrix_S2L(addr, G, rows, cols, cpc, cols)
    m = Matrix(dev.local, "t", "src_addr", addr, rows, cols, cpc)
    np.testing.assert_array_equal(m.read(), x)
    nch = -(-cols // cpc)
    cs = -(-cpc // 32) * 32                                     # ALIGN(1 * cpc, 32) fp32 elements
    npu, byte = _local_bytes(q, 0x80, (rows, nch, 1, cpc), (-(-(q + nch) // 64) * cs, cs, cpc, 1), 4)
    # the bytes of a padded matrix hold x in its first cols columns (last channel's padding unwritten)
    flat = dev.local.data.reshape(64, LANE)[npu, byte].view(np.float32)[..., 0].reshape(rows, nch * cpc)
    np.testing.assert_array_equal(flat[:, :cols], x)


def test_local_memory_is_a_zeroed_small_page_mapping():
    dev = okk.Device(global_mem_bytes=1 << 24)
    for arr in (dev.local.data, dev.local.init):
        assert isinstance(arr.base, memoryview) and isinstance(arr.base.obj, mmap.mmap)
        assert arr.dtype == np.uint8 and arr.flags.writeable and arr.size == 64 * LANE
        assert not arr[::4093].any()
    assert dev.system.data.base is None                         # DDR: numpy's allocation


def test_zeroed_small_and_default():
    assert zeroed(100, small_pages=True).base is None          # below one huge page: plain np.zeros
    a = zeroed(1 << 22, small_pages=True)
    assert a.shape == (1 << 22,) and not a[::4096].any()
    a[5] = 7                                                   # private: writes stay in this array
    assert zeroed(1 << 22, small_pages=True)[5] == 0
    assert Memory("m", 1 << 22).data.base is None               # default unchanged: np.zeros


@settings(max_examples=30, deadline=None)
@given(shape=shapes, q=st.integers(0, 63),
       gaps=st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(0, 3)),
       seed=st.integers(0, 2 ** 31), hole=st.booleans())
def test_l2s_of_a_wrapping_tensor_to_strided_system_memory(shape, q, gaps, seed, hole):
    """L2S from NPU q (pieces per row run of NPUs, copied straight into the system view): the system
    bytes at element (n, c, h, w) * strides hold the local formula's values, the gaps stay unwritten;
    a never-written local element is reported as before."""
    n, c, h, w = shape
    x = np.random.default_rng(seed).integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)
    hs = w + gaps[2]
    cs = h * hs + gaps[1]
    sst = (c * cs + gaps[0], cs, hs, 1)
    dev = okk.Device(global_mem_bytes=1 << 22)
    addr = q * LANE + 0x200
    out = G + 0x10000
    with dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(addr, G, okk.dim4(*shape), None, None)
        if hole:
            lcs = okk.okk_128_byte_aligned_stride_for_32bit(None, q, okk.dim4(*shape)).c
            last = q + c - 1                                    # a byte of the last channel's first element
            dev.local.forget((last % 64) * LANE + 0x200 + 4 * (last // 64) * lcs, 1)
            with configure(uninitialized="error"), pytest.raises(UninitializedReadError):
                okk.okk_gdma_32bit_cpy_L2S(out, addr, okk.dim4(*shape), okk.dim4(*sst), None)
            return
        okk.okk_gdma_32bit_cpy_L2S(out, addr, okk.dim4(*shape), okk.dim4(*sst), None)
    idx = np.indices(shape).reshape(4, -1).T @ np.array(sst)
    words = dev.system.data[0x10000:0x10000 + 4 * (int(idx.max()) + 1)].view(np.uint32)
    np.testing.assert_array_equal(words[idx].reshape(shape), x)
    init = dev.system.init[0x10000:].reshape(-1)
    written = np.zeros(init.size, bool)
    written[(4 * idx[:, None] + np.arange(4)).ravel()] = True
    np.testing.assert_array_equal(init[:written.size].astype(bool), written)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["S2L", "L2S", "S2S", "L2L", "set_C_system", "set_C_local"]),
       nbytes=st.integers(1, 1 << 26), run=st.integers(1, 1 << 16))
def test_gdma_cycles_cache_keys_every_argument(kind, nbytes, run):
    """gdma_cycles is memoised: each changed argument gives the uncached formula's value."""
    from npusim.okk import cost
    formula = cost.gdma_cycles.__wrapped__
    assert cost.gdma_cycles(kind, nbytes, run) == formula(kind, nbytes, run)
    other = "L2L" if kind != "L2L" else "S2L"
    assert cost.gdma_cycles(other, nbytes, run) == formula(other, nbytes, run)
    assert cost.gdma_cycles(kind, nbytes + 4096, run) == formula(kind, nbytes + 4096, run)
    assert cost.gdma_cycles(kind, nbytes, run + 1) == formula(kind, nbytes, run + 1)
