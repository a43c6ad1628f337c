"""Behaviours found by running Sophgo's C-model (tpu-mlir 1.30.2 libbackend) beside npusim, pinned here
so they hold without the libraries."""
import math

import numpy as np

import okk_ref as R
from npusim import okk

G = okk.okk_global_mem_start_addr()


def _run(fn, x, dst, src, work=None, extra=()):
    x = np.asarray(x, np.float32).reshape(1, 1, 1, -1)
    sh = okk.dim4(*x.shape)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(src, G, sh)
        fn(dst, src, *(() if work is None else (work,)), sh, *extra)
        out = {}
        for name, a in (("dst", dst), ("work", work)):
            if a is not None:
                okk.okk_gdma_32bit_cpy_L2S(G + 4096, a, sh)
                out[name] = dev.read_system(G + 4096, x.size)
        return out, dev


def test_nan_converts_to_int_by_sign():
    """In-place exp of +NaN is EXP[i8(INT32_MAX)] = e^-1; of -NaN, EXP[i8(INT32_MIN)] = 1."""
    pos, neg = np.float32(np.nan), -np.float32(np.nan)
    out, _ = _run(okk.okk_bdc_exp, [pos, neg, np.inf, -np.inf], 0, 0, 0x1000)
    R.assert_bits_equal(out["dst"], np.array([math.exp(-1), 1.0, math.exp(-1), 1.0], np.float32))


def test_rsqrt_of_negative_flips_sign():
    """The magic constant subtracts an arithmetic shift of the int32 bits: the first guess and the
    result of a negative input carry the opposite sign of the logical-shift version."""
    x = np.array([-4.0, -1.0, -1e-30], np.float32)
    out, _ = _run(okk.okk_bdc_rsqrt, x, 0x1000, 0)
    R.assert_bits_equal(out["dst"], R.rsqrt_nr(x))
    bits = x.view(np.uint32).astype(np.int64)
    logical = R.fl(((0x5F3759DF - (bits >> 1)) & 0xFFFFFFFF).astype(np.uint32).view(np.float32))
    arith = R.fl(((0x5F3759DF - (x.view(np.int32).astype(np.int64) >> 1)) & 0xFFFFFFFF)
                 .astype(np.uint32).view(np.float32))
    assert (np.signbit(logical) != np.signbit(arith)).all()


def test_sigmoid_and_tanh_leave_the_c_model_values_in_work():
    x = np.array([0.0, 1.0, -56.0, 3.0], np.float32)
    out, _ = _run(okk.okk_bdc_sigmoid, x, 0x1000, 0, 0x2000)
    with np.errstate(all="ignore"):
        R.assert_bits_equal(out["work"], R.fl(R.d(R.exp_chain(R.fl(0.0 - R.d(x)), 32)) + 1.0))   # 1 + e^-x
    out, _ = _run(okk.okk_bdc_tanh, x, 0x1000, 0, 0x2000)
    e = R.exp_chain(x, 32)
    r = R.div(np.float32(1), e)
    with np.errstate(all="ignore"):
        q = R.div(r, R.fl(R.d(e) + R.d(r)))
    R.assert_bits_equal(out["work"], q)                     # q = r / (e + r)
    assert out["work"][0] == np.float32(0.4999999)


def test_unaligned_plain_calls_are_tensor_arith():
    """NULL strides but an address not divisible by 128: TENSOR_ARITH, not MD_SCALAR."""
    sh = okk.dim4(1, 64, 1, 1024)
    for fn, plain, other in ((okk.okk_bdc_neg, 64, 128), (okk.okk_bdc_reciprocal, 1920, 1920)):
        with okk.Device() as dev:
            fn(0x40000, 0, sh, None, None)
            fn(0x40004, 0, sh, None, None)
            fn(0x40000, 0x40, sh, None, None)
            got = [(e.args["instruction"], e.args["cycles"]) for e in dev.events]
        assert got == [("MD_SCALAR", plain), ("TENSOR_ARITH", other), ("TENSOR_ARITH", other)]


def test_set_c_local_null_stride_uses_32_element_channels_for_every_width():
    """16/8-bit set_C_local with NULL stride: C and N strides ALIGN(h*w, 32) elements (not 64/128)."""
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        okk.okk_gdma_8bit_set_C_local(0x1000, 0xEE, okk.dim4(1, 1, 1, 256), None)
        okk.okk_gdma_8bit_set_C_local(0x1000, 0x12, okk.dim4(2, 7, 3, 5), None)
        row = dev.read_local(0, 0x1000, 128)
        assert row[:15].tolist() == [0x12] * 15 and row[32:47].tolist() == [0x12] * 15
        assert row[15:32].tolist() == [0xEE] * 17 and row[47:].tolist() == [0xEE] * 81
        okk.okk_gdma_16bit_set_C_local(0x2000, okk.x16(u16=0x1234), okk.dim4(2, 7, 3, 5), None)
        h = dev.read_local(3, 0x2000, 128).view(np.uint16)
        assert (h[:15] == 0x1234).all() and (h[32:47] == 0x1234).all()


def test_matrix_n_stride_ignores_the_start_npu():
    """matrix S2L at start NPU 60 with C = 70 channels: N stride ceil(70/64)*32 = 64, not ceil(130/64)*32."""
    rows, cols, cpc = 3, 140, 2
    m = np.arange(1, rows * cols + 1, dtype=np.uint32).reshape(rows, cols)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, m)
        okk.okk_gdma_32bit_matrix_S2L(60 * 0x80000 + 0x1000, G, rows, cols, cpc, cols)
        npu60 = dev.read_local(60, 0x1000, 4 * 200).view(np.uint32)
        assert npu60[64:66].tolist() == m[1, 0:2].tolist()           # row 1, channel 0
        npu53 = dev.read_local(53, 0x1000, 4 * 200).view(np.uint32)
        assert npu53[96:98].tolist() == m[1, 114:116].tolist()       # channel 57: NPU 53, row 1
        okk.okk_gdma_32bit_matrix_L2S(G + 65536, 60 * 0x80000 + 0x1000, rows, cols, cpc, cols)
        np.testing.assert_array_equal(dev.read_system(G + 65536, (rows, cols), np.uint32), m)


def test_overlapping_copy_moves_one_batch_after_another():
    """L2L whose destination channels wrap onto its source: batch 1 reads what batch 0 wrote."""
    sh = okk.dim4(2, 7, 3, 5)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        for npu in range(64):
            dev.write_local(npu, 0x1000, np.arange(64, dtype=np.uint32) + 1000 * npu)
        okk.okk_gdma_32bit_cpy_L2L(62 * 0x80000 + 0x1000, 0x1000, sh, None, None)
        # dst channel 2, n=0 went to NPU 0 row 1 (element 32), over src channel 0, n=1 (src N stride 32)
        npu0 = dev.read_local(0, 0x1000, 4 * 64).view(np.uint32)
        npu62 = dev.read_local(62, 0x1000, 4 * 128).view(np.uint32)
        assert npu0[32] == 2000                                      # src channel 2 (NPU 2), n=0
        assert npu62[64] == 2000                                     # dst n=1 channel 0 read it afterwards


def test_fill_merges_h_only_when_the_h_stride_is_w():
    """set_C with h == 1 and an h-stride != W keeps a W-element run (copies merge H there)."""
    from npusim.okk import cost
    with okk.Device(global_mem_bytes=1 << 22) as dev:
        okk.okk_gdma_32bit_set_C_system(G + (1 << 20), 7, okk.dim4(2, 30, 1, 4), okk.dim4(300, 4, 5, 1))
        okk.okk_gdma_32bit_cpy_S2S(G + (2 << 20), G, okk.dim4(2, 30, 1, 4), okk.dim4(300, 4, 5, 1), None)
        fill, copy = (e.args["cycles"] for e in dev.events)
    assert fill == cost.gdma_cycles("set_C_system", 2 * 30 * 4 * 4, 16)        # run = W only
    assert copy == cost.gdma_cycles("S2S", 2 * 30 * 4 * 4, 30 * 4 * 4)         # H (=1) and C merge


def test_matrix_l2s_costs_the_padded_columns():
    from npusim.okk import cost
    with okk.Device(global_mem_bytes=1 << 22) as dev:
        okk.okk_gdma_32bit_matrix_S2L(0, G, 5, 20, 7, 23)
        okk.okk_gdma_32bit_matrix_L2S(G + 65536, 0, 5, 20, 7, 23)
        s2l, l2s = (e.args["cycles"] for e in dev.events)
    assert s2l == cost.gdma_cycles("S2L", 5 * 20 * 4, 28) == 145
    assert l2s == cost.gdma_cycles("L2S", 5 * 21 * 4, 28) == 53
