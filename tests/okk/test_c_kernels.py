"""npusim's own C kernels (tests/okk/c/nn.c): conv2d with bias, depthwise with bias, avg + max pooling in two
sections, and unions / selects, against float64 numpy."""
import os

import numpy as np
import pytest

from npusim import okk
from npusim.okk.c import CompileError, find_compiler

from c_drivers import HERE, avg_pool_ref, close, conv2d_ref, depthwise_ref, max_pool_ref, out_hw, run, weights_2ic

try:
    find_compiler()
except CompileError as e:          # pragma: no cover
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)

rng = np.random.default_rng(11)
BASE = dict(N=2, IC=5, OC=70, H=13, W=11, kh=3, kw=3, pad_top=1, pad_bottom=2, pad_left=0, pad_right=1,
            stride_h=2, stride_w=1, dilation_h=1, dilation_w=2, output2_addr=0)


@pytest.fixture(scope="module")
def nn():
    return okk.load_c(os.path.join(HERE, "nn.c"))


def U(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _geometry(p):
    pads = (p["pad_top"], p["pad_bottom"], p["pad_left"], p["pad_right"])
    return pads, (p["stride_h"], p["stride_w"]), (p["dilation_h"], p["dilation_w"])


@pytest.mark.parametrize("change", [{}, dict(IC=4, OC=3, stride_w=3, dilation_h=3), dict(IC=1, kh=1, kw=1)])
def test_conv2d_with_bias(nn, change):
    p = dict(BASE, **change)
    pads, st, dl = _geometry(p)
    x, w, b = U(p["N"], p["IC"], p["H"], p["W"]), U(p["OC"], p["IC"], p["kh"], p["kw"]), U(p["OC"])
    oh, ow = out_hw(p["H"], p["W"], p["kh"], p["kw"], pads, st, dl)
    got, r, _ = run(nn, "conv2d_bias", p, dict(input_addr=x, weight_addr=weights_2ic(w), bias_addr=b),
                    dict(output_addr=(p["N"], p["OC"], oh, ow)))
    assert close(got["output_addr"], conv2d_ref(x, w, pads, st, dl) + b[None, :, None, None], 1e-4)


def test_depthwise_with_bias(nn):
    p = BASE
    pads, st, dl = _geometry(p)
    x, w, b = U(2, 5, 13, 11), U(5, 3, 3), U(5)
    oh, ow = out_hw(13, 11, 3, 3, pads, st, dl)
    got, _, _ = run(nn, "depthwise_bias", p, dict(input_addr=x, weight_addr=w, bias_addr=b),
                    dict(output_addr=(2, 5, oh, ow)))
    assert close(got["output_addr"], depthwise_ref(x, w, pads, st, dl) + b[None, :, None, None], 1e-4)


def test_pools_in_two_sections(nn):
    p = dict(BASE, IC=70, dilation_h=1, dilation_w=1, kh=2, kw=3, stride_w=2)
    pads, st, _ = _geometry(p)
    x = U(2, 70, 13, 11)
    oh, ow = out_hw(13, 11, 2, 3, pads, st)
    got, r, _ = run(nn, "pools", dict(p, weight_addr=0, bias_addr=0), dict(input_addr=x),
                    dict(output_addr=(2, 70, oh, ow), output2_addr=(2, 70, oh, ow)))
    assert close(got["output_addr"], avg_pool_ref(x, 2, 3, pads, st), 1e-4)     # padding counted
    mx = max_pool_ref(x, 2, 3, pads, st)
    assert np.array_equal(got["output2_addr"], mx.astype(np.float32))
    assert len(r.sections) == 2 and r.cycles == sum(r.sections) and r.calls["okk_initialize"] == 2


def test_unions_and_selects(nn):
    x = U(1, 66, 3, 5)
    got, _, _ = run(nn, "unions", dict(BASE, N=1, IC=66, H=3, W=5, weight_addr=0, bias_addr=0),
                    dict(input_addr=x), dict(output_addr=x.shape, output2_addr=x.shape))
    assert np.array_equal(got["output_addr"], np.where(x > 0.5, x, np.float32(-1)))
    bits = got["output2_addr"].view(np.uint32)
    assert np.array_equal(bits, np.where(x > 0, 0x3F800001, 1).astype(np.uint32))


@pytest.mark.parametrize("shape", [(1, 370, 13, 13), (6132, 21, 1, 1), (3, 5, 7, 11), (200, 33, 1, 1)])
def test_softmax_pipelined_parallel_regions(shape):
    """Load i / compute i-1 / store i-2 in one parallel region: numpy-exact to 1e-3, no race reported, and
    fewer cycles than the serial twin (examples/okk/c/softmax.c) whenever there are several tiles."""
    from c_drivers import softmax_ref
    x = rng.uniform(-5, 5, shape).astype(np.float32)
    N, C, H, W = shape
    pipelined = okk.load_c(os.path.join(HERE, "softmax_pipelined.c"))
    got, r, dev = run(pipelined, "softmax_pipelined", dict(N=N, C=C, H=H, W=W), dict(input_addr=x),
                      dict(output_addr=shape))
    assert close(got["output_addr"], softmax_ref(x), 1e-3)
    serial = okk.load_c(os.path.join(HERE, "..", "..", "..", "examples", "okk", "c", "softmax.c"))
    _, rs, _ = run(serial, "softmax", dict(N=N, C=C, H=H, W=W), dict(input_addr=x), dict(output_addr=shape))
    tiles = r.calls["okk_gdma_32bit_cpy_S2L"]
    assert r.calls["okk_parallel_start"] == tiles + 2
    if tiles > 1:
        assert r.cycles < rs.cycles
