"""Layouts (reference §2): stride helpers, the channel -> NPU scatter with a start NPU, stride 0, matrix."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import okk

G = okk.okk_global_mem_start_addr()
LANE = okk.okk_local_mem_size_per_npu()


def test_helpers_constants():
    assert okk.okk_npu_num() == 64 and okk.okk_eu_num() == 32
    assert okk.okk_local_mem_size_per_npu() == 0x80000 and okk.okk_local_mem_bank_per_npu() == 8
    assert okk.okk_global_mem_start_addr() == 0x1_0000_0000
    assert okk.okk_local_mem_start_addr() == 0x08000000
    assert okk.okk_start_npu_index(5 * 0x80000 + 0x40) == 5
    assert okk.okk_channle_num_per_npu(62, 70) == 3 and okk.okk_channle_num_per_npu(0, 64) == 1


def test_stride_helpers():
    sh = okk.dim4(2, 70, 3, 5)
    s = okk.dim4()
    r = okk.okk_128_byte_aligned_stride_for_32bit(s, 62, sh)
    assert r is s and (s.n, s.c, s.h, s.w) == (3 * 32, 32, 5, 1)
    assert okk.okk_128_byte_aligned_stride_for_16bit(None, 0, sh).tuple() == (2 * 64, 64, 5, 1)
    assert okk.okk_128_byte_aligned_stride_for_8bit(None, 0, sh).tuple() == (2 * 128, 128, 5, 1)
    assert okk.okk_compact_stride(None, 62, sh).tuple() == (3 * 15, 15, 5, 1)
    assert okk.okk_continuous_stride(None, sh).tuple() == (70 * 15, 15, 5, 1)


def _scatter_ref(x, q, r, st):
    """Where each element lands, straight from the reference formula."""
    n, c, h, w = x.shape
    out = {}
    for ni in range(n):
        for ci in range(c):
            for hi in range(h):
                for wi in range(w):
                    npu = (q + ci) % 64
                    byte = r + 4 * (ni * st[0] + ((q + ci) // 64) * st[1] + hi * st[2] + wi * st[3])
                    out[(npu, byte)] = x[ni, ci, hi, wi]
    return out


@pytest.mark.parametrize("q,c", [(62, 70), (0, 64), (3, 1), (63, 130)])
def test_channel_to_npu_mapping(q, c):
    x = np.arange(2 * c * 2 * 3, dtype=np.float32).reshape(2, c, 2, 3)
    sh = okk.dim4(*x.shape)
    addr = q * LANE + 0x100
    with okk.Device() as dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(addr, G, sh, None, None)
        st = okk.okk_128_byte_aligned_stride_for_32bit(None, q, sh).tuple()
        for (npu, byte), v in _scatter_ref(x, q, 0x100, st).items():
            assert dev.read_local(npu, byte, 4).view(np.float32)[0] == v
        okk.okk_gdma_32bit_cpy_L2S(G + 0x100000, addr, sh, None, None)
        np.testing.assert_array_equal(dev.read_system(G + 0x100000, x.shape), x)


def test_stride_zero_broadcasts_on_reads():
    """A per-channel vector (N, C, 1, 1) broadcast over H, W with strides {Ns, 32, 0, 0}."""
    v = np.arange(1, 9, dtype=np.float32).reshape(1, 8, 1, 1)
    with okk.Device() as dev:
        dev.write_system(G, v)
        okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 8, 1, 1))
        sh = okk.dim4(1, 8, 4, 4)
        okk.okk_bdc_neg(0x1000, 0, sh, None, okk.dim4(32, 32, 0, 0))
        okk.okk_gdma_32bit_cpy_L2S(G + 4096, 0x1000, sh)
        y = dev.read_system(G + 4096, (1, 8, 4, 4))
    np.testing.assert_array_equal(y, -np.broadcast_to(v, (1, 8, 4, 4)))


def test_system_strides_and_compact_local():
    x = np.arange(180, dtype=np.float32)      # pick a (2, 3, 2, 5) strided sub-block
    sh = okk.dim4(2, 3, 2, 5)
    src_st = okk.dim4(3 * 30, 30, 5, 1)
    with okk.Device() as dev:
        dev.write_system(G, x)
        comp = okk.okk_compact_stride(None, 0, sh)
        okk.okk_gdma_32bit_cpy_S2L(4, G, sh, comp, src_st)         # compact local: 4-byte aligned
        okk.okk_gdma_32bit_cpy_L2S(G + 4096, 4, sh, None, comp)
        y = dev.read_system(G + 4096, (2, 3, 2, 5))
    want = x.reshape(-1)[np.add.outer(np.add.outer(np.add.outer(np.arange(2) * 90, np.arange(3) * 30),
                                                   np.arange(2) * 5), np.arange(5))]
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("cpc", [1, 3, 7, 16])
def test_matrix_layout_round_trip(cpc):
    rows, cols, row_stride = 5, 20, 23
    m = np.arange(rows * row_stride, dtype=np.float32).reshape(rows, row_stride)
    q = 60
    with okk.Device() as dev:
        dev.write_system(G, m)
        okk.okk_gdma_32bit_matrix_S2L(q * LANE, G, rows, cols, cpc, row_stride)
        nch = -(-cols // cpc)
        # the C-model's matrix N stride ignores the start NPU (test_cmodel_findings)
        st = okk.okk_128_byte_aligned_stride_for_32bit(None, 0, okk.dim4(rows, nch, 1, cpc))
        for r_ in range(rows):
            for col in (0, cols - 1, cols // 2):
                c, w = divmod(col, cpc)
                npu, row = (q + c) % 64, (q + c) // 64
                got = dev.read_local(npu, 4 * (r_ * st.n + row * st.c + w), 4).view(np.float32)[0]
                assert got == m[r_, col]
        okk.okk_gdma_32bit_matrix_L2S(G + 65536, q * LANE, rows, cols, cpc, cols)
        np.testing.assert_array_equal(dev.read_system(G + 65536, (rows, cols)), m[:, :cols])


_DEV = okk.Device()


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 200), h=st.integers(1, 5), w=st.integers(1, 40),
       q=st.integers(0, 63), extra=st.integers(0, 3), bits=st.sampled_from([8, 16, 32]))
def test_round_trip_any_shape_layout_and_width(n, c, h, w, q, extra, bits):
    """S2L with a padded local layout then L2S gives the data back; nothing outside the tensor moves."""
    dt = {8: np.uint8, 16: np.uint16, 32: np.uint32}[bits]
    x = np.random.default_rng(n * c * h * w).integers(0, 2 ** bits, (n, c, h, w), dtype=np.uint64).astype(dt)
    sh = okk.dim4(n, c, h, w)
    helper = {8: okk.okk_128_byte_aligned_stride_for_8bit, 16: okk.okk_128_byte_aligned_stride_for_16bit,
              32: okk.okk_128_byte_aligned_stride_for_32bit}[bits]
    lst = helper(None, q, sh)
    lst = okk.dim4(lst.n + extra * lst.c, lst.c + extra, lst.h, 1)      # explicit, wider strides
    s2l = getattr(okk, f"okk_gdma_{bits}bit_cpy_S2L")
    l2s = getattr(okk, f"okk_gdma_{bits}bit_cpy_L2S")
    with _DEV as dev:
        dev.write_system(G, x)
        okk.okk_gdma_8bit_set_C_local(q * LANE, 0xAB, okk.dim4(1, 64, 1, 4096), None)
        s2l(q * LANE + 128, G, sh, lst, None)
        l2s(G + (1 << 24), q * LANE + 128, sh, None, lst)
        np.testing.assert_array_equal(dev.read_system(G + (1 << 24), x.shape, dt), x)
        assert dev.read_local(q, 0, 128).tolist() == [0xAB] * 128      # bytes before the tensor untouched
