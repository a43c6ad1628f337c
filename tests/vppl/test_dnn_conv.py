"""DNN_convolutionLayer / NPN / NP1: a multi-channel convolution through the first/middle/last phases
against float64 (within 1/2 LSB of F16Q12: partial results are exact F32Q24, the one rounding is the
last channel's), stride 2, every limit."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.vppl import dm_read

sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the helpers module sits beside us
from dnn_helpers import LSB, Q, conv_ref, f16, out_block, put, work  # noqa: E402

CONV_OPS = {"DNN_convolutionLayer": "pad", "DNN_convolutionLayerNPN": "valid"}


def data(c, h, w, k, seed):
    rng = np.random.default_rng(seed)
    x = f16(rng.uniform(0, 1, (c, h, w)))
    wt = f16(rng.uniform(-1, 1, (c, k, k)) / k)
    b = f16([rng.uniform(-0.5, 0.5)])
    return x, wt, b


def run_channels(op, x, wt, b, k, s):
    """One output channel: the seed's loop over input channels with phase 0, 1, ..., 2."""
    c, h, w = x.shape
    if op == "DNN_convolutionLayer":
        oh, ow, = -(-h // s), -(-w // s)
    else:
        oh, ow = h - k + 1, w - k + 1
    t, wv = work("vT"), work("vIn")
    p_b = put(b)
    partial = [out_block(oh * ow * 4), out_block(oh * ow * 4)]
    for ch in range(c):
        phase = 0 if ch == 0 else 2 if ch == c - 1 else 1
        prev = p_b if ch == 0 else partial[(ch - 1) % 2]
        getattr(t, op)(k, s, w, h, ow, oh, wv, put(x[ch]), put(wt[ch]), prev, partial[ch % 2], phase, Q)
    return dm_read(partial[(c - 1) % 2], np.int16, oh * ow, (oh, ow))


def reference(x, wt, b, s, pad):
    r = sum(conv_ref(x[ch] * LSB, wt[ch] * LSB, s, pad) for ch in range(x.shape[0]))
    return r + b[0] * LSB


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("s", [1, 2])
def test_padded_convolution_three_channels(k, s):
    x, wt, b = data(3, 12, 10, k, seed=k * 10 + s)
    y = run_channels("DNN_convolutionLayer", x, wt, b, k, s)
    ref = reference(x, wt, b, s, (k - 1) // 2)
    assert y.shape == ref.shape == (-(-12 // s), -(-10 // s))
    assert np.max(np.abs(y * LSB - ref)) <= 0.5 * LSB


def test_npn_four_channels_and_partial_results_are_f32q24():
    x, wt, b = data(4, 11, 9, 5, seed=1)
    y = run_channels("DNN_convolutionLayerNPN", x, wt, b, 5, 1)
    ref = reference(x, wt, b, 1, 0)
    assert y.shape == (7, 5) and np.max(np.abs(y * LSB - ref)) <= 0.5 * LSB
    # a phase-0 result alone: bias + conv as exact F32Q24
    t = work("vT")
    p = out_block(7 * 5 * 4)
    t.DNN_convolutionLayerNPN(5, 1, 9, 11, 5, 7, work("vIn"), put(x[0]), put(wt[0]), put(b), p, 0, Q)
    part = dm_read(p, np.int32, 35, (7, 5))
    np.testing.assert_array_equal(part * 2.0 ** -24, conv_ref(x[0] * LSB, wt[0] * LSB, 1, 0) + b[0] * LSB)


def test_np1_outputs_f16_at_once_and_matches_conv32to16_path():
    x, wt, b = data(1, 10, 10, 5, seed=2)
    t = work("vT")
    p1 = out_block(36 * 2)
    t.DNN_convolutionLayerNP1(5, 1, 10, 10, 6, 6, work("vIn"), put(x[0]), put(wt[0]), put(b), p1, 0, Q)
    y = dm_read(p1, np.int16, 36, (6, 6))
    assert np.max(np.abs(y * LSB - reference(x, wt, b, 1, 0))) <= 0.5 * LSB
    p32, p16 = out_block(48 * 4), out_block(48 * 2)                   # NPN phase 0 + conv32to16(24 -> 12)
    t.DNN_convolutionLayerNPN(5, 1, 10, 10, 6, 6, work("vIn"), put(x[0]), put(wt[0]), put(b), p32, 0, Q)
    vppl.machine().dm.write_bytes(p32.value + 36 * 4, np.zeros(12, np.int32))
    t.DNN_conv32to16(p32, p16, work("vIn"), 3, 24, 12)
    np.testing.assert_array_equal(dm_read(p16, np.int16, 36, (6, 6)), y)


def test_output_saturates_to_f16():
    x = np.full((2, 6, 6), 32767, np.int16)
    wt = np.full((2, 5, 5), 32767, np.int16)
    assert (run_channels("DNN_convolutionLayerNPN", x, wt, np.zeros(1, np.int16), 5, 1) == 32767).all()
    wt[:] = -32768
    assert (run_channels("DNN_convolutionLayerNPN", x, wt, np.zeros(1, np.int16), 5, 1) == -32768).all()


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 4), st.integers(5, 16), st.integers(5, 16), st.sampled_from([3, 5]), st.sampled_from([1, 2]))
def test_property_half_lsb(c, h, w, k, s):
    vppl.reset()
    x, wt, b = data(c, h, w, k, seed=c * 1000 + h * 20 + w)
    y = run_channels("DNN_convolutionLayer", x, wt, b, k, s)
    assert np.max(np.abs(y * LSB - reference(x, wt, b, s, (k - 1) // 2))) <= 0.5 * LSB


BASE = (3, 1, 8, 8, 8, 8)


@pytest.mark.parametrize("op,shape,phase,q,param", [
    ("DNN_convolutionLayer", (7, 1, 8, 8, 8, 8), 0, 12, "kernel size"),
    ("DNN_convolutionLayer", (3, 3, 8, 8, 8, 8), 0, 12, "stride"),
    ("DNN_convolutionLayer", (3, 2, 8, 8, 8, 4), 0, 12, "output width"),
    ("DNN_convolutionLayer", (3, 1, 8, 8, 8, 7), 0, 12, "output height"),
    ("DNN_convolutionLayer", BASE, 3, 12, "phase"),
    ("DNN_convolutionLayer", BASE, 0, 8, "q"),
    ("DNN_convolutionLayerNPN", (3, 1, 8, 8, 6, 6), 0, 12, "kernel size"),
    ("DNN_convolutionLayerNPN", (5, 2, 8, 8, 4, 4), 0, 12, "stride"),
    ("DNN_convolutionLayerNPN", (5, 1, 8, 8, 8, 8), 0, 12, "output width"),
    ("DNN_convolutionLayerNPN", (5, 1, 3, 8, 0, 4), 0, 12, "input width"),
    ("DNN_convolutionLayerNP1", (5, 1, 8, 8, 4, 4), -1, 12, "phase"),
    ("DNN_convolutionLayerNP1", (5, 1, 8, 8, 4, 4), 0, 10, "q"),
    ("DNN_convolutionLayerNP1", (3, 1, 8, 8, 6, 6), 0, 12, "kernel size"),
])
def test_limits(op, shape, phase, q, param):
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        getattr(work("vT"), op)(*shape, work("vIn"), p, p, p, out_block(512), phase, q)
    assert e.value.param == param and e.value.api == op


def test_work_vector_and_target_must_be_allocated():
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_convolutionLayer(*BASE, vppl.Vector("i16", 32), p, p, p, out_block(512), 0, Q)
    assert e.value.param == "work vector"
    with pytest.raises(ConstraintError) as e:
        vppl.Vector("i16", 32).DNN_convolutionLayer(*BASE, work(), p, p, p, out_block(512), 0, Q)
    assert e.value.param == "target"


def test_input_outside_memory_is_an_address_error():
    end = vppl.machine().dm.size
    p = put(np.zeros(64, np.int16))
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_convolutionLayer(*BASE, work(), vppl.PointerVariable(end - 64), p, p, out_block(512), 0, Q)
    assert e.value.param == "input pointer"
