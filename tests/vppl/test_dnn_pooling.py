"""DNN_poolingLayer: max pooling against an explicit float64 reference (bit-exact: a max does not
round), every kernel/stride, the no-border 2x2/2 form, and every limit."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError
from npusim.vppl import dm_read

sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the helpers module sits beside us
from dnn_helpers import f16, out_block, put, work  # noqa: E402


def pool_ref(x, k, s):
    """Max over windows that may hang over the border (cells outside never count); k=2 s=2: no border."""
    h, w = x.shape
    if (k, s) == (2, 2):
        return np.array([[x[2 * i:2 * i + 2, 2 * j:2 * j + 2].max() for j in range(w // 2)] for i in range(h // 2)])
    p = (k - 1) // 2
    oh, ow = -(-h // s), -(-w // s)
    out = np.empty((oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - p, j * s - p
            out[i, j] = x[max(r0, 0):max(r0 + k, 0), max(c0, 0):max(c0 + k, 0)].max()
    return out


def run_pool(x_real, k, s):
    x = f16(x_real)
    h, w = x.shape
    oh, ow = (h // 2, w // 2) if (k, s) == (2, 2) else (-(-h // s), -(-w // s))
    p_in, p_out = put(x), out_block(oh * ow * 2)
    t = work("vT")
    t.DNN_poolingLayer(k, s, w, h, ow, oh, work("vIn"), p_in, p_out)
    return x, dm_read(p_out, np.int16, oh * ow, (oh, ow)), t


@pytest.mark.parametrize("k", [2, 3, 5, 7])
@pytest.mark.parametrize("s", [1, 2])
def test_pooling_matches_reference(k, s):
    rng = np.random.default_rng(10 * k + s)
    x_real = rng.uniform(-4, 4, (13, 17))
    x, y, t = run_pool(x_real, k, s)
    ref = pool_ref(x.astype(np.float64) / 4096, k, s)
    np.testing.assert_array_equal(y / 4096.0, ref)
    assert np.array_equal(t.a[:y.shape[1]], y[-1])


def test_two_by_two_stride_two_has_no_border():
    x_real = np.arange(5 * 7, dtype=np.float64).reshape(5, 7) / 64
    x, y, _ = run_pool(x_real, 2, 2)
    assert y.shape == (2, 3)                                    # floor: the odd last row/column is dropped
    assert y.tolist() == [[x[1, 1], x[1, 3], x[1, 5]], [x[3, 1], x[3, 3], x[3, 5]]]


@pytest.mark.parametrize("args,param", [
    ((4, 1, 8, 8, 8, 8), "kernel size"), ((3, 3, 8, 8, 3, 3), "stride"),
    ((3, 1, 8, 8, 7, 8), "output width"), ((3, 2, 8, 8, 4, 5), "output height"),
    ((2, 2, 9, 9, 5, 4), "output width"),                       # no border: 9 // 2 = 4
    ((3, 1, 0, 8, 0, 8), "input width"),
])
def test_limits(args, param):
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_poolingLayer(*args, work("vIn"), p, out_block(256))
    assert e.value.param == param and e.value.api == "DNN_poolingLayer"


def test_work_vectors_must_be_allocated():
    from npusim import vppl
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_poolingLayer(3, 1, 8, 8, 8, 8, vppl.Vector("i16", 16), p, out_block(128))
    assert e.value.param == "work vector"
    with pytest.raises(ConstraintError) as e:
        vppl.Vector("i16", 16).DNN_poolingLayer(3, 1, 8, 8, 8, 8, work(), p, out_block(128))
    assert e.value.param == "target"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3, 5, 7]), st.sampled_from([1, 2]), st.integers(2, 24), st.integers(2, 24),
       st.integers(0, 10 ** 6))
def test_property_matches_reference(k, s, h, w, seed):
    from npusim import vppl
    vppl.reset()
    x_real = np.random.default_rng(seed).uniform(-8, 8, (h, w))
    x, y, _ = run_pool(x_real, k, s)
    np.testing.assert_array_equal(y / 4096.0, pool_ref(x.astype(np.float64) / 4096, k, s))
