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
