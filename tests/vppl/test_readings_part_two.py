"""The alternative readings of part two's open points (ReadingsPartTwo) against their own references."""
import os
import sys

import numpy as np
import pytest

from npusim import vppl
from npusim.vppl import dm_read
from npusim.vppl.readings_part_two import ReadingsPartTwo

sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the helpers module sits beside us
from dnn_helpers import out_block, put, work  # noqa: E402


def use(**kw):
    m = vppl.machine()
    m.readings_part_two = ReadingsPartTwo(**kw)
    return m


@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2), (5, 1)])
def test_average_pooling_over_in_image_cells(k, s):
    use(pooling="average")
    rng = np.random.default_rng(k + s)
    x = rng.integers(-20000, 20000, (9, 11)).astype(np.int16)
    h, w = x.shape
    if (k, s) == (2, 2):
        oh, ow, p = h // 2, w // 2, 0
    else:
        oh, ow, p = -(-h // s), -(-w // s), (k - 1) // 2
    p_out = out_block(oh * ow * 2)
    work("vT").DNN_poolingLayer(k, s, w, h, ow, oh, work("vIn"), put(x), p_out)
    y = dm_read(p_out, np.int16, oh * ow, (oh, ow))
    want = np.empty((oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            cells = x[max(i * s - p, 0):max(i * s - p + k, 0), max(j * s - p, 0):max(j * s - p + k, 0)]
            tot, n = int(cells.astype(np.int64).sum()), cells.size
            want[i, j] = (2 * tot + n) // (2 * n)                 # round half up, Python integers
    np.testing.assert_array_equal(y, want)


def test_floor_shift_reading():
    use(shift_rounding="floor")
    x = np.array([(1 << 11), (1 << 11) - 1, -1, -(1 << 12) - 1] + [0] * 12, np.int32)
    p_out = out_block(32)
    work("vT").DNN_conv32to16(put(x), p_out, work(), 1, 24, 12)
    assert dm_read(p_out, np.int16, 4).tolist() == [0, 0, -1, -2]      # floor: toward minus infinity


def test_bad_reading_is_rejected():
    with pytest.raises(ValueError):
        ReadingsPartTwo(pooling="median")
