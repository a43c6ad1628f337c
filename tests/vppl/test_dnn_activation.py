"""DNN_relu (4x4-element units, in place), DNN_softmaxN (F16Q12 in) / DNN_softmax (F16Q8 in, q argument
12), both F32Q16 out within 1 LSB of float64, and DNN_conv32to16 (shift, round half up, saturate)."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.vppl import dm_read

sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the helpers module sits beside us
from dnn_helpers import Q, out_block, put, work  # noqa: E402


def test_relu_in_place_on_whole_units_only():
    rng = np.random.default_rng(0)
    x = rng.integers(-30000, 30000, 48, dtype=np.int16)
    p = put(x)
    t = work("vT")
    t.DNN_relu(p, work(), 2, Q)                            # 2 units = 32 elements
    y = dm_read(p, np.int16, 48)
    np.testing.assert_array_equal(y[:32], np.maximum(x[:32], 0))
    np.testing.assert_array_equal(y[32:], x[32:])          # the third unit is untouched
    assert np.array_equal(t.a[:16], y[16:32])


@pytest.mark.parametrize("units,q,param", [(0, 12, "units"), (1, 11, "q")])
def test_relu_limits(units, q, param):
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_relu(put(np.zeros(16, np.int16)), work(), units, q)
    assert e.value.param == param


def softmax_ref(real):
    e = np.exp(real - real.max())
    return e / e.sum()


@pytest.mark.parametrize("op,in_q", [("DNN_softmaxN", 12), ("DNN_softmax", 8)])
def test_softmax_within_one_lsb_of_q16(op, in_q):
    rng = np.random.default_rng(in_q)
    raw = rng.integers(-4 << in_q, 4 << in_q, 10).astype(np.int16)
    p_out = out_block(40)
    getattr(work("vT"), op)(put(raw), p_out, 10, Q)
    y = dm_read(p_out, np.int32, 10)
    ref = softmax_ref(raw * 2.0 ** -in_q)
    assert np.max(np.abs(y / 65536.0 - ref)) <= 2.0 ** -16
    assert abs(int(y.sum()) - 65536) <= 10


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-32768, 32767), min_size=1, max_size=64))
def test_softmax_property(raw):
    vppl.reset()
    raw = np.array(raw, np.int16)
    p_out = out_block(4 * raw.size)
    work("vT").DNN_softmaxN(put(raw), p_out, raw.size, Q)
    y = dm_read(p_out, np.int32, raw.size)
    assert np.max(np.abs(y / 65536.0 - softmax_ref(raw / 4096.0))) <= 2.0 ** -16


@pytest.mark.parametrize("op", ["DNN_softmaxN", "DNN_softmax"])
def test_softmax_limits(op):
    p = put(np.zeros(16, np.int16))
    with pytest.raises(ConstraintError) as e:
        getattr(work("vT"), op)(p, out_block(64), 16, 8)    # q must be 12 (also for the Q8-input form)
    assert e.value.param == "q"
    with pytest.raises(ConstraintError) as e:
        getattr(work("vT"), op)(p, out_block(64), 0, 12)
    assert e.value.param == "elements"
    with pytest.raises(ConstraintError) as e:
        getattr(vppl.Vector("i16", 16), op)(p, out_block(64), 16, 12)
    assert e.value.param == "target"


def test_conv32to16_rounds_half_up_and_saturates():
    x = np.array([0, 1 << 11, (1 << 11) - 1, -(1 << 11), -(1 << 11) - 1, 3 << 12, 1 << 30, -(1 << 30)]
                 + [5 << 12] * 8, np.int32)
    p_out = out_block(32)
    work("vT").DNN_conv32to16(put(x), p_out, work(), 1, 24, 12)
    y = dm_read(p_out, np.int16, 16)
    # reference with Python integers: floor(x / 4096 + 1/2), clipped
    want = [max(-32768, min(32767, (int(v) + 2048) // 4096)) for v in x]
    assert y.tolist() == want
    assert want[1:5] == [1, 0, 0, -1] and want[6:8] == [32767, -32768]


def test_conv32to16_widening_shift_is_exact():
    x = np.arange(-8, 8, dtype=np.int32)
    p_out = out_block(32)
    work("vT").DNN_conv32to16(put(x), p_out, work(), 1, 8, 12)
    assert dm_read(p_out, np.int16, 16).tolist() == [v << 4 for v in range(-8, 8)]


@pytest.mark.parametrize("units,q32,q16,param", [(0, 24, 12, "units"), (1, 32, 12, "F32 q"),
                                                 (1, 24, 16, "F16 q"), (1, -1, 12, "F32 q")])
def test_conv32to16_limits(units, q32, q16, param):
    with pytest.raises(ConstraintError) as e:
        work("vT").DNN_conv32to16(put(np.zeros(16, np.int32)), out_block(32), work(), units, q32, q16)
    assert e.value.param == param
