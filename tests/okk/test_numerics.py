"""Every seed function against the reference's algorithm (okk_ref, float64 + per-step fp32 rounding),
against the ideal function within the documented error, and at the reference's documented edge values."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import okk_ref as R
from npusim import okk

RNG = np.random.default_rng(1684)
EDGE = np.array([0.0, -0.0, 1e-40, -1e-40, 1.17549435e-38, np.inf, -np.inf, np.nan, -103.0, 88.0,
                 1.0, -1.0, 0.5, 2.0 ** -20, 3.4e38], np.float32)


def sample(shape, lo, hi):
    x = RNG.uniform(lo, hi, shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[:EDGE.size] = EDGE[:flat.size]
    return x


def ulps(a, b):
    ia = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, np.float32).astype(np.float32).view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


SHAPE = (2, 70, 3, 5)      # crosses a row of 64 NPUs


@pytest.mark.parametrize("q", [0, 62])
def test_rsqrt_sqrt_reciprocal_bit_exact(q):
    x = np.abs(sample(SHAPE, 0, 1e6))
    x.reshape(-1)[-5:] = [1e-30, 1e30, 4.0, 1.6458e-38, 2.0]
    y, _ = R.run_unary(okk.okk_bdc_rsqrt, x, start_npu=q)
    R.assert_bits_equal(y, R.rsqrt_nr(x))
    y, _ = R.run_unary(okk.okk_bdc_sqrt, x, start_npu=q)
    R.assert_bits_equal(y, R.div(np.float32(1), R.rsqrt_nr(x)))
    xs = sample(SHAPE, -1e6, 1e6)
    y, _ = R.run_unary(okk.okk_bdc_reciprocal, xs, False, None, None, start_npu=q)
    R.assert_bits_equal(y, R.div(np.float32(1), xs))


def test_division_family_within_documented_ulps():
    x = RNG.uniform(1e-3, 1e3, (1, 64, 4, 16)).astype(np.float32)
    y, _ = R.run_unary(okk.okk_bdc_rsqrt, x)
    assert ulps(y, 1 / np.sqrt(x.astype(np.float64))).max() <= 2
    y, _ = R.run_unary(okk.okk_bdc_reciprocal, x, False, None, None)
    assert ulps(y, 1 / x.astype(np.float64)).max() <= 4
    y, _ = R.run_unary(okk.okk_bdc_sqrt, x)
    assert ulps(y, np.sqrt(x.astype(np.float64))).max() <= 6


@pytest.mark.parametrize("fn,vals,want", [
    (okk.okk_bdc_reciprocal, [1.0, 0.0, 1.6458e-38, 5.0], [0.99999988, np.inf, np.inf, 0.2]),
    (okk.okk_bdc_rsqrt, [1.0, 0.0, np.inf], [0.99999994, 4.46e19, -np.inf]),
    (okk.okk_bdc_sqrt, [0.0, np.inf], [2.24e-20, -np.inf]),
])
def test_documented_division_edges(fn, vals, want):
    extra = (None, None) if fn is okk.okk_bdc_reciprocal else ()
    y, _ = R.run_unary(fn, np.array(vals, np.float32).reshape(1, 1, 1, -1), False, *extra)
    np.testing.assert_allclose(y.ravel(), want, rtol=3e-3)


def test_neg_is_zero_minus_x():
    x = sample(SHAPE, -10, 10)
    y, _ = R.run_unary(okk.okk_bdc_neg, x, False, None, None)
    R.assert_bits_equal(y, R.fl(0.0 - R.d(x)))
    assert R.bits(y).ravel()[1] == 0            # neg(-0) = 0 - (-0) = +0
    assert R.bits(y).ravel()[2] == 0            # a subnormal reads as zero: +0


@pytest.mark.parametrize("n", [1, 2, 8, 32, 33, 34, 64])
def test_taylor_exp_bit_exact(n):
    x = sample((1, 64, 2, 16), -1, 1)
    y, _ = R.run_unary(okk.okk_bdc_taylor_exp, x, False, n)
    with np.errstate(all="ignore"):
        want = R.fl(R.d(R.taylor_sum(x, n)) + 1.0)
    R.assert_bits_equal(y, want)


def test_taylor_exp_degree_and_inf():
    x = np.array([0.5, np.inf], np.float32).reshape(1, 1, 1, 2)
    y1, _ = R.run_unary(okk.okk_bdc_taylor_exp, x, False, 1)
    assert y1.ravel()[0] == np.float32(1.5)                  # N = 1 gives 1 + x
    y33, _ = R.run_unary(okk.okk_bdc_taylor_exp, x, False, 33)
    y34, _ = R.run_unary(okk.okk_bdc_taylor_exp, x, False, 34)
    assert y33.ravel()[1] == np.inf and np.isnan(y34.ravel()[1])     # inf * c_34 (= 0) is NaN
    assert y33.ravel()[0] == y34.ravel()[0]
    assert abs(float(y33.ravel()[0]) - math.exp(0.5)) < 2e-7


def test_lookup_exp_wraps_int8():
    i = np.array([5, 261, -251, 0, -103, 88, 89, -104, 127, -128], np.int32)
    xi = i.view(np.float32).reshape(1, 1, 1, -1)
    y, _ = R.run_unary(okk.okk_bdc_lookup_exp, xi)
    want = np.array([math.exp(5)] * 3 + [1.0, math.exp(-103), math.exp(88), 0, 0, 0, 0], np.float32)
    R.assert_bits_equal(y.ravel(), want)
    assert y.ravel()[4] != 0                       # the table keeps the subnormal e^-103


@pytest.mark.parametrize("n", [1, 8, 32, 64])
@pytest.mark.parametrize("q", [0, 37])
def test_exp_tunable_bit_exact(n, q):
    x = sample(SHAPE, -103, 88)
    y, _ = R.run_unary(okk.okk_bdc_exp_tunable, x, True, n, start_npu=q)
    R.assert_bits_equal(y, R.exp_chain(x, n))


def test_exp_documented_out_of_range_results():
    x = np.array([-86.29, 89.5, 100, -104.5, 88.9, 130, 200, -103], np.float32).reshape(1, 1, 1, -1)
    y, _ = R.run_unary(okk.okk_bdc_exp, x, True)
    y = y.ravel()
    assert y[0] == np.float32(math.exp(-86))
    assert list(y[1:4]) == [0, 0, 0] and y[4] == np.inf and np.isnan(y[5]) and y[6] == np.inf and y[7] == 0


def test_exp_accuracy_in_range():
    x = RNG.uniform(-60, 88, (1, 64, 1, 256)).astype(np.float32)
    y, _ = R.run_unary(okk.okk_bdc_exp, x, True)
    assert ulps(y, np.exp(x.astype(np.float64))).max() <= 8


def test_exp_small_fraction_underflow_quirk():
    """e*s flushes whenever it is below 2^-126, not only below -86.3: exp(-79.000114) is EXP[-79]."""
    x = np.array([-79.000114, -79.5], np.float32).reshape(1, 1, 1, 2)
    y, _ = R.run_unary(okk.okk_bdc_exp, x, True)
    assert y.ravel()[0] == np.float32(math.exp(-79))
    assert y.ravel()[1] != np.float32(math.exp(-79))


def test_exp_in_place_is_table_of_trunc():
    """Reference §4.4: dst == src silently computes EXP[i8(trunc(x))]."""
    x = np.array([1.5, -2.7, 3.99, 0.3], np.float32).reshape(1, 1, 1, 4)
    sh = okk.dim4(1, 1, 1, 4)
    with okk.Device() as dev:
        G = okk.okk_global_mem_start_addr()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
        okk.okk_bdc_exp(0, 0, 0x1000, sh)
        okk.okk_gdma_32bit_cpy_L2S(G + 64, 0, sh)
        y = dev.read_system(G + 64, 4)
    R.assert_bits_equal(y, np.array([math.exp(1), math.exp(-2), math.exp(3), 1.0], np.float32))


@pytest.mark.parametrize("n", [4, 32])
def test_sigmoid_tanh_bit_exact(n):
    x = sample(SHAPE, -20, 20)
    y, _ = R.run_unary(okk.okk_bdc_sigmoid_tunable, x, True, n, start_npu=5)
    R.assert_bits_equal(y, R.sigmoid(x, n))
    y, _ = R.run_unary(okk.okk_bdc_tanh_tunable, x, True, n, start_npu=5)
    R.assert_bits_equal(y, R.tanh(x, n))


def test_sigmoid_tanh_documented_values_and_accuracy():
    x = np.array([0.0, -90.0], np.float32).reshape(1, 1, 1, 2)
    s, _ = R.run_unary(okk.okk_bdc_sigmoid, x, True)
    t, _ = R.run_unary(okk.okk_bdc_tanh, x, True)
    assert s.ravel()[0] == np.float32(0.50000006)
    assert abs(float(t.ravel()[0]) - 1.79e-7) < 1e-9 and t.ravel()[1] == -np.inf
    x = RNG.uniform(-10, 10, (1, 64, 1, 64)).astype(np.float32)
    s, _ = R.run_unary(okk.okk_bdc_sigmoid, x, True)
    t, _ = R.run_unary(okk.okk_bdc_tanh, x, True)
    x64 = x.astype(np.float64)
    assert np.abs(s - 1 / (1 + np.exp(-x64))).max() < 1e-6
    assert np.abs(t - np.tanh(x64)).max() < 1e-5


def test_in_place_sigmoid_is_correct():
    x = sample((1, 8, 1, 8), -5, 5)
    sh = okk.dim4(*x.shape)
    with okk.Device() as dev:
        G = okk.okk_global_mem_start_addr()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
        okk.okk_bdc_sigmoid(0, 0, 0x1000, sh)
        okk.okk_gdma_32bit_cpy_L2S(G + 4096, 0, sh)
        y = dev.read_system(G + 4096, x.shape)
    R.assert_bits_equal(y, R.sigmoid(x))


_DEV = okk.Device()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 130), h=st.integers(1, 4), w=st.integers(1, 20),
       q=st.integers(0, 63), ns=st.integers(1, 64), seed=st.integers(0, 2 ** 31))
def test_exp_any_shape_any_start_npu(n, c, h, w, q, ns, seed):
    x = np.random.default_rng(seed).uniform(-103, 88, (n, c, h, w)).astype(np.float32)
    y, dev = R.run_unary(okk.okk_bdc_exp_tunable, x, True, ns, start_npu=q, dev=_DEV)
    R.assert_bits_equal(y, R.exp_chain(x, ns))
