"""DNN_localContrastNormalizationLayer against a float64 reference of the same definition (Jarrett et
al. 2009 with a uniform 5x5xC window): within the documented bound 2^-13 + (0.5 + 2|y| + 1/d) / d, where d is
the divisor max(sigma, mean sigma) in LSBs (the 1/d: the rounded mean's half LSB seen through the floored d;
hypothesis found c=4, h=20, w=7, contrast=0.01, seed=4 at 1.01x the bound without it); limits."""
import os
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.vppl import dm_read

sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the helpers module sits beside us
from dnn_helpers import LSB, Q, f16, out_block, put, work  # noqa: E402


def lcn_ref(x, k=5):
    """float64: window means over k x k x C cells (zero border, divided by k*k*C)."""
    c, h, w = x.shape
    p = (k - 1) // 2

    def wmean(a):                          # a: (C, H, W) -> (H, W) window mean, explicit loops
        ap = np.zeros((c, h + 2 * p, w + 2 * p))
        ap[:, p:p + h, p:p + w] = a
        return np.array([[ap[:, i:i + k, j:j + k].sum() for j in range(w)] for i in range(h)]) / (k * k * c)
    v = x - wmean(x)[None]
    sigma = np.sqrt(wmean(v * v))
    d = np.maximum(sigma, sigma.mean())
    return v / d[None], d


def run_lcn(x):
    c, h, w = x.shape
    t = work("vT")
    acc1, acc2 = work("vA1"), work("vA2")
    p_out = out_block(x.nbytes)
    t.DNN_localContrastNormalizationLayer(5, w, h, w, h, work("vIn"), acc1, acc2, put(x), p_out, c, Q)
    return dm_read(p_out, np.int16, x.size, x.shape), t, acc1, acc2


@pytest.mark.parametrize("c", [1, 3])
def test_lcn_within_bound(c):
    rng = np.random.default_rng(c)
    base = rng.uniform(0.2, 0.8, (c, 14, 18))
    base[:, :, 9:] *= 0.3                                      # two contrast regions
    x = f16(base)
    y, t, a1, a2 = run_lcn(x)
    ref, d = lcn_ref(x * LSB)
    bound = 0.5 * LSB + (0.5 + 2 * np.abs(ref) + LSB / d[None]) / (d[None] / LSB)
    err = np.abs(y * LSB - ref)
    assert (err <= bound).all(), float((err / bound).max())
    assert np.abs(ref).max() > 1                               # normalisation really happened
    assert t.valid and a1.valid and a2.valid


def test_flat_input_gives_zero():
    x = np.full((2, 8, 8), 1234, np.int16)
    y, *_ = run_lcn(x)
    # zero-bordered windows see a lower mean near the edge: only the interior is exactly flat
    assert (y[:, 2:-2, 2:-2] == 0).all()


@pytest.mark.parametrize("args,param", [
    ((3, 8, 8, 8, 8), "kernel size"), ((5, 8, 8, 6, 8), "output width"), ((5, 8, 8, 8, 7), "output height"),
])
def test_limits(args, param):
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_localContrastNormalizationLayer(*args, work(), work("a"), work("b"), p, out_block(256), 1, Q)
    assert e.value.param == param


def test_channels_q_and_accumulation_vectors():
    p = put(np.zeros(64, np.int16))
    t = work("vT")
    with pytest.raises(ConstraintError) as e:
        t.DNN_localContrastNormalizationLayer(5, 8, 8, 8, 8, work(), work("a"), work("b"), p, out_block(256), 0, Q)
    assert e.value.param == "channels"
    with pytest.raises(ConstraintError) as e:
        t.DNN_localContrastNormalizationLayer(5, 8, 8, 8, 8, work(), work("a"), work("b"), p, out_block(256), 1, 8)
    assert e.value.param == "q"
    with pytest.raises(ConstraintError) as e:
        t.DNN_localContrastNormalizationLayer(5, 8, 8, 8, 8, work(), vppl.Vector("i32", 8), work("b"), p,
                                              out_block(256), 1, Q)
    assert e.value.param == "accumulation vector 1"
    with pytest.raises(ConstraintError) as e:
        t.DNN_localContrastNormalizationLayer(5, 8, 8, 8, 8, work(), work("a"), vppl.Vector("i32", 8), p,
                                              out_block(256), 1, Q)
    assert e.value.param == "accumulation vector 2"


@settings(max_examples=25, deadline=None)
@example(4, 20, 7, 0.01, 4)          # found by hypothesis: 1.01x the bound before the 1/d term
@given(st.integers(1, 4), st.integers(5, 20), st.integers(5, 20), st.floats(0.01, 2.0), st.integers(0, 10 ** 6))
def test_property_within_bound(c, h, w, contrast, seed):
    vppl.reset()
    rng = np.random.default_rng(seed)
    x = f16(rng.uniform(-contrast, contrast, (c, h, w)))
    y, *_ = run_lcn(x)
    ref, d = lcn_ref(x * LSB)
    bound = 0.5 * LSB + (0.5 + 2 * np.abs(ref) + LSB / d[None]) / (d[None] / LSB)
    assert (np.abs(y * LSB - ref) <= bound).all()
