"""matmul, conv2d, depthwise2d, pooling, bias/scale: float64 references, the documented accumulation
orders written independently, Sophgo's cost formulas, and every documented limit."""
import numpy as np
import pytest

from npusim import okk
from npusim.core.errors import ConstraintError
from okk_ref import d, fl

LANE = 0x80000


def _put(dev, addr, x, stride=None):
    from npusim.okk.layout import LocalTensor
    t = LocalTensor(dev.local, "t", "x", addr, okk.dim4(*x.shape), stride, np.float32, 4)
    t.write(x.astype(np.float32))


def _get(dev, addr, shape, stride=None):
    from npusim.okk.layout import LocalTensor
    return LocalTensor(dev.local, "t", "x", addr, okk.dim4(*shape), stride, np.float32, 4).read().copy()


def _put_matrix(dev, addr, a, cpc):
    from npusim.okk.matrix import Matrix
    Matrix(dev.local, "t", "m", addr, a.shape[0], a.shape[1], cpc).write(a.astype(np.float32))


def _get_matrix(dev, addr, rows, cols, cpc):
    from npusim.okk.matrix import Matrix
    return Matrix(dev.local, "t", "m", addr, rows, cols, cpc).read()


def test_matmul_even_odd_accumulators_bias_result_add_and_cost():
    r = np.random.default_rng(0)
    m, k, n, lc, rc = 5, 9, 7, 3, 2
    L = r.standard_normal((m, k)).astype(np.float32)
    R = r.standard_normal((k, n)).astype(np.float32)
    b = r.standard_normal((1, n)).astype(np.float32)
    o = r.standard_normal((m, n)).astype(np.float32)
    with okk.Device() as dev:
        _put_matrix(dev, 0x0, L, lc); _put_matrix(dev, 0x10000, R, rc)
        _put_matrix(dev, 0x20000, b, rc); _put_matrix(dev, 0x30000, o, rc)
        okk.okk_bdc_matmul(0x30000, 0x0, 0x10000, 0x20000, m, k, n, lc, rc, True, True)
        got = _get_matrix(dev, 0x30000, m, n, rc)
        ev = dev.events[-1]
    acc = [np.zeros((m, n)), np.zeros((m, n))]
    for i in range(k):
        acc[i % 2] = fl(acc[i % 2] + fl(np.outer(d(L[:, i]), d(R[i]))))
    want = fl(d(o) + fl(fl(acc[0] + acc[1]) + d(b)))
    np.testing.assert_array_equal(got, want)
    assert ev.args["instruction"] == "FC_FP32"
    assert ev.args["cycles"] == m * 1 * 1 * (k + 6 + 2 + 2)          # okkernel_cycles.md §3
    np.testing.assert_allclose(got, o + L.astype(np.float64) @ R + b, rtol=1e-5, atol=1e-5)


def test_matmul_documented_cost_example():
    with okk.Device() as dev:
        _put_matrix(dev, 0, np.ones((100, 200), np.float32), 2)
        _put_matrix(dev, 0x20000, np.ones((200, 150), np.float32), 3)
        okk.okk_bdc_matmul(0x40000, 0, 0x20000, 0, 100, 200, 150, 2, 3, False, False)
        assert dev.events[-1].args["cycles"] == 20600                  # okkernel_cycles.md §3


def _conv_ref(x, w, pad, st, dil):
    n, ic, h, ww = x.shape
    oc, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    oh = (h + pad[0] + pad[1] - ((kh - 1) * dil[0] + 1)) // st[0] + 1
    ow = (ww + pad[2] + pad[3] - ((kw - 1) * dil[1] + 1)) // st[1] + 1
    out = np.zeros((n, oc, oh, ow))
    for i in range(kh):
        for j in range(kw):
            t = xp[:, :, i * dil[0]:i * dil[0] + st[0] * (oh - 1) + 1:st[0], j * dil[1]:j * dil[1] + st[1] * (ow - 1) + 1:st[1]]
            out += np.einsum("nchw,oc->nohw", t, w[:, :, i, j].astype(np.float64))
    return out


def test_conv2d_2ic_weights_against_float64():
    r = np.random.default_rng(1)
    n, ic, h, w, oc, kh, kw = 2, 5, 9, 8, 6, 3, 2
    pad, st, dil = (1, 0, 2, 1), (2, 1), (1, 2)
    x = r.uniform(-1, 1, (n, ic, h, w)).astype(np.float32)
    wt = r.uniform(-1, 1, (oc, ic, kh, kw)).astype(np.float32)
    bias = r.uniform(-1, 1, (1, oc, 1, 1)).astype(np.float32)
    ic2 = 3
    w2 = np.zeros((ic2, oc, kh, kw, 2), np.float32)           # 2IC: pairs of input channels
    for c in range(ic):
        w2[c // 2, :, :, :, c % 2] = wt[:, c]
    with okk.Device() as dev:
        _put(dev, 0x0, x)
        kst = okk.okk_compact_stride(None, 0, okk.dim4(ic2, oc, kh, kw))
        _put(dev, 0x20000, w2.reshape(ic2, oc, kh, kw * 2), okk.dim4(2 * kst.n, 2 * kst.c, 2 * kst.h, 1))
        _put(dev, 0x30000, bias, okk.okk_compact_stride(None, 0, okk.dim4(1, oc, 1, 1)))
        okk.okk_bdc_conv2d(0x10000, 0x0, 0x20000, 0x30000, okk.dim4(n, ic, h, w), oc, kh, kw, None, kst,
                           True, False, okk.Padding(*pad), okk.dim2(*st), okk.dim2(*dil))
        ref = _conv_ref(x, wt, pad, st, dil) + bias
        got = _get(dev, 0x10000, ref.shape)
        ev = dev.events[-1]
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5 * max(1, np.abs(ref).max()))
    oh, ow = ref.shape[2:]
    assert ev.args["cycles"] == n * 1 * -(-(oh * ow) // 16) * (kh * kw * ic2 + 3 + 2)


def test_depthwise_even_odd_taps_and_pools():
    r = np.random.default_rng(2)
    n, c, h, w, kh, kw = 1, 70, 7, 6, 3, 2
    x = r.uniform(-1, 1, (n, c, h, w)).astype(np.float32)
    wt = r.uniform(-1, 1, (1, c, kh, kw)).astype(np.float32)
    with okk.Device() as dev:
        _put(dev, 0x0, x)
        _put(dev, 0x20000, wt, okk.okk_compact_stride(None, 0, okk.dim4(1, c, kh, kw)))
        okk.okk_bdc_depthwise2d(0x10000, 0x0, 0x20000, 0, okk.dim4(n, c, h, w), kh, kw, False, None, None, None)
        got = _get(dev, 0x10000, (n, c, h - kh + 1, w - kw + 1))
        acc = [0.0, 0.0]
        for i in range(kh):
            for j in range(kw):
                t = i * kw + j
                acc[t % 2] = fl(acc[t % 2] + fl(d(x[:, :, i:i + h - kh + 1, j:j + w - kw + 1]) * d(wt[0, :, i, j])[None, :, None, None]))
        np.testing.assert_array_equal(got, fl(acc[0] + acc[1]))
        assert dev.events[-1].args["cycles"] == 2 * -(-(5 * 5) // 16) * ((1 + 1) * kh * kw - kh + 5)
        pad = okk.Padding(1, 1, 1, 1)
        okk.okk_bdc_max_pool2d(0x10000, 0x0, okk.dim4(n, c, h, w), 3, 3, pad, okk.dim2(2, 2))
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.finfo(np.float32).max)
        want = np.max([xp[:, :, i:i + 7:2, j:j + 6:2][:, :, :4, :3] for i in range(3) for j in range(3)], axis=0)
        np.testing.assert_array_equal(_get(dev, 0x10000, (n, c, 4, 3)), want)
        okk.okk_bdc_avg_pool2d(0x10000, 0x0, okk.dim4(n, c, h, w), 3, 3, pad, okk.dim2(2, 2))
        xp0 = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        mean = np.sum([xp0[:, :, i:i + 7:2, j:j + 6:2][:, :, :4, :3] for i in range(3) for j in range(3)], axis=0) / 9
        np.testing.assert_allclose(_get(dev, 0x10000, (n, c, 4, 3)), mean, atol=1e-6)


def test_bias_scale_per_channel():
    r = np.random.default_rng(3)
    x = r.standard_normal((2, 5, 3, 4)).astype(np.float32)
    s = r.standard_normal((1, 5, 1, 1)).astype(np.float32)
    b = r.standard_normal((1, 5, 1, 1)).astype(np.float32)
    cst = okk.okk_compact_stride(None, 0, okk.dim4(1, 5, 1, 1))
    with okk.Device() as dev:
        _put(dev, 0x0, x); _put(dev, 0x1000, s, cst); _put(dev, 0x2000, b, cst)
        okk.okk_bdc_scale_bias(0x3000, 0x0, 0x1000, 0x2000, okk.dim4(2, 5, 3, 4))
        np.testing.assert_array_equal(_get(dev, 0x3000, x.shape), fl(fl(d(x) * d(s)) + d(b)))
        assert dev.events[-1].args["instruction"] == "MD_LINEAR"
        okk.okk_bdc_bias(0x3000, 0x0, 0x2000, okk.dim4(2, 5, 3, 4))
        np.testing.assert_array_equal(_get(dev, 0x3000, x.shape), fl(d(x) + d(b)))


@pytest.mark.parametrize("call,match", [
    (lambda: okk.okk_bdc_matmul(0x40000, 0, 0x20000 + LANE, 0, 4, 4, 4, 4, 4, False, False), "same NPU"),
    (lambda: okk.okk_bdc_matmul(0x40000, 0, 0x20000, 0, 4, 4, 4, 4, 5, False, False), r"min\(128, cols\)"),
    # right_cols_per_channel > 128 (left_cols_per_channel > 128 is only a warning: the C-model computes it)
    (lambda: okk.okk_bdc_matmul(0x40000, 0, 0x20000, 0, 4, 4, 300, 4, 129, False, False), r"min\(128, cols\)"),
    (lambda: okk.okk_bdc_matmul(0x40004, 0, 0x20000, 0, 4, 4, 4, 4, 4, False, False), "divisible by 128"),
    (lambda: okk.okk_bdc_matmul(0x40000, 0, 0x20000, 0, 70000, 4, 4, 4, 4, False, False), r"\[1, 65535\]"),
    (lambda: okk.okk_bdc_depthwise2d(0x10000, 0, 0x20000, 0, okk.dim4(1, 4, 8, 8), 3, 3, False,
                                     okk.Padding(16, 0, 0, 0), None, None), r"pads are in \[0, 15\]"),
    (lambda: okk.okk_bdc_max_pool2d(0x10000, 0, okk.dim4(1, 4, 8, 8), 3, 3, None, okk.dim2(16, 1)),
     r"\[1, 15\]"),
    (lambda: okk.okk_bdc_avg_pool2d(0x10000, 0, okk.dim4(1, 4, 2048, 8), 3, 3, None, None), "2047"),
    (lambda: okk.okk_bdc_depthwise2d(0x10000, 0, 0x20000, 0, okk.dim4(1, 4, 8, 8), 3, 3, False, None, None,
                                     okk.dim2(1, 0)), r"\[1, 15\]"),
    (lambda: okk.okk_bdc_conv2d(0x10000, 0, 0x20000 + LANE, 0, okk.dim4(1, 4, 8, 8), 4, 3, 3, None, None,
                                False, False, None, None, None), "same NPU"),
    (lambda: okk.okk_bdc_conv2d(0x10000, 0, 0x20000, 0, okk.dim4(1, 4, 8, 8), 4, 9, 3, None, None,
                                False, False, None, None, None), "fits in the padded input"),
    (lambda: okk.okk_bdc_avg_pool2d(0x10000, 0, okk.dim4(1, 4, 2040, 8), 3, 3, okk.Padding(5, 5, 0, 0), None),
     "padded H and W"),
    (lambda: okk.okk_bdc_scale(0x10000, 0, 0x20000 + LANE, okk.dim4(1, 4, 8, 8)), "same NPU"),
])
def test_nn_limits(call, match):
    with okk.Device():
        with pytest.raises(ConstraintError, match=match):
            call()


def test_fastsum_path_is_bit_identical_to_the_ftz_path():
    from npusim.okk import bdc_matmul, fastsum
    r = np.random.default_rng(9)
    L = r.uniform(-1, 1, (7, 33)).astype(np.float32)
    R = r.uniform(-1, 1, (33, 20)).astype(np.float32)
    R[0, 0] = 1e-30             # tiny but the products stay >= 2^-102 only if |L| is not tiny either
    assert fastsum.products_stay_normal(L, R) == (fastsum.smallest_nonzero(L) * 1e-30 >= fastsum.LIMIT)
    Rn = R.copy()
    Rn[0, 0] = 0.5
    assert fastsum.products_stay_normal(L, Rn)
    fast = bdc_matmul._even_odd_dot_fast(L, Rn)
    # force the FTZ path with one row whose products can be subnormal; the other rows must agree bit for bit
    Lt = L.copy()
    Lt[0, 0] = 1e-38 * 4
    assert not fastsum.products_stay_normal(Lt, Rn)
    slow = bdc_matmul.even_odd_dot(Lt, Rn)
    np.testing.assert_array_equal(slow[1:], fast[1:])


def test_pools_are_not_held_to_the_bdc_work_limit():
    """Sophgo's pool demos on contest-S1 case 7 pool 4,280,640 inputs in one call and the C-model computes
    it (benchmarks/okk_contest_sweep.py): a pool's compact input, bounds-checked in local memory, bounds
    its work. Other BDC calls keep the 2^22-element limit."""
    n, c, h, w = 2, 4000, 24, 24                     # 4,608,000 inputs > 2^22; 63 channels x 2 x 576 floats a lane
    assert n * c * h * w > 2 ** 22
    x = np.random.default_rng(7).uniform(-1, 1, (n, c, h, w)).astype(np.float32)
    out = 0x50000
    with okk.Device() as dev:
        _put(dev, 0x0, x)
        okk.okk_bdc_max_pool2d(out, 0x0, okk.dim4(n, c, h, w), h, w, None, None)
        np.testing.assert_array_equal(_get(dev, out, (n, c, 1, 1))[..., 0, 0], x.max(axis=(2, 3)))
        okk.okk_bdc_avg_pool2d(out, 0x0, okk.dim4(n, c, h, w), h, w, None, None)
        np.testing.assert_allclose(_get(dev, out, (n, c, 1, 1))[..., 0, 0], x.astype(np.float64).mean(axis=(2, 3)),
                                   rtol=0, atol=1e-6)
        with pytest.raises(ConstraintError, match="computes at most"):
            okk.okk_bdc_neg(out, 0x0, okk.dim4(n, c, h, w), None, None)
