"""The contest-S1 avg_pool cases that need more than one okk_bdc_avg_pool2d (examples/okk/pooling.py
run_avg_s1): count_include_pad = 0 border correction, ceil_mode extra rows/cols, stride 16 as two pools;
checked at the contest tolerance against a float64 loop transcription of host/avg_pool.cpp's reference."""
import os
import sys

import numpy as np
import pytest

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "okk")
sys.path.insert(0, EX)

import pooling  # noqa: E402
from contest import contest_ok  # noqa: E402
from spatial import Window  # noqa: E402


def host_loop_reference(x, win, ceil_mode, cip):
    """host/avg_pool.cpp avg_pool_reference, loop for loop (float64), small shapes only."""
    n, c, h, w = x.shape
    (kh, kw), (pt, pb, pl, pr), (sh, sw) = (win.kh, win.kw), win.pad, win.stride
    eh, ew = h + pt + pb - kh, w + pl + pr - kw
    oh = (-(-eh // sh) if ceil_mode else eh // sh) + 1
    ow = (-(-ew // sw) if ceil_mode else ew // sw) + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * sh, j * sw
            he, we = min(hs + kh, pt + pb + h), min(ws + kw, pl + pr + w)
            size = (he - hs) * (we - ws)
            hs, ws = max(hs - pt, 0), max(ws - pl, 0)
            he, we = min(he - pt, h), min(we - pl, w)
            if not cip:
                size = (he - hs) * (we - ws)
            out[:, :, i, j] = x[:, :, hs:he, ws:we].astype(np.float64).sum((2, 3)) / size
    return out


@pytest.mark.parametrize("shape,win,ceil_mode,cip", [
    ((1, 70, 9, 11), Window(3, 3, (1, 1, 1, 1), (2, 2)), 0, 0),          # case 4's rule, 2 channel groups/NPU
    ((1, 70, 10, 11), Window(3, 3, (1, 1, 1, 1), (2, 2)), 1, 0),         # ceil_mode: an extra row and col
    ((1, 5, 10, 12), Window(3, 2, (0, 0, 1, 0), (2, 3)), 1, 1),          # ceil_mode, padding counted
    ((2, 3, 7, 8), Window(2, 3, (0, 0, 0, 0), (3, 2)), 1, 0),            # ceil_mode without padding
    ((1, 130, 32, 32), Window(16, 16, (0, 0, 0, 0), (16, 16)), 0, 0),     # case 1's two-pool split
])
def test_run_pool_matches_the_host_loop(shape, win, ceil_mode, cip):
    y, ref, _ = pooling.run_pool(shape, win, ceil_mode, cip)
    x = np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32)
    loop = host_loop_reference(x, win, ceil_mode, cip)
    np.testing.assert_allclose(ref, loop, rtol=1e-12)
    assert y.shape == loop.shape
    assert contest_ok(y, loop, pooling.TOL)[0]


def test_without_the_correction_the_border_would_fail():
    shape, win = (1, 8, 6, 6), Window(3, 3, (1, 1, 1, 1))
    y, ref, _ = pooling.run_pool(shape, win, 0, 0)
    counted, _, _ = pooling.run_pool(shape, win, 0, 1)
    assert contest_ok(y, ref, pooling.TOL)[0]
    assert not contest_ok(counted, ref, pooling.TOL)[0]
    np.testing.assert_allclose(y[..., 0, 0] / counted[..., 0, 0], 9 / 4, rtol=1e-6)   # corner: 4 valid of 9


@pytest.mark.parametrize("index", [5, 12])                  # the smallest new contest cases, end to end
def test_contest_s1_case(index):
    y, ref, dev = pooling.run_s1(index)
    assert contest_ok(y, ref, pooling.TOL)[0]
    assert y.shape == (1, 2048 if index == 5 else 1024, 5 if index == 5 else 4, 5 if index == 5 else 4)
    assert dev.total_cycles > 0


def test_correction_map_is_one_bdc_mul_per_tile():
    _, _, dev = pooling.run_s1(5)
    names = [e.name for e in dev.events]
    assert names.count("okk_bdc_mul") == names.count("okk_bdc_avg_pool2d") >= 1


def test_stride_over_15_with_overlap_is_refused():
    with pytest.raises(ValueError, match="non-overlapping"):
        pooling.run_pool((1, 4, 40, 40), Window(17, 17, (0, 0, 0, 0), (16, 16)), 0, 0)
    assert pooling._two_stage_split(16) == 4 and pooling._two_stage_split(15) in (3, 5)
    with pytest.raises(ValueError, match="cannot be split"):
        pooling._two_stage_split(17)


def test_ceil_window_past_the_input_is_refused():
    with pytest.raises(ValueError, match="starts past the input"):
        pooling.run_pool((1, 3, 6, 7), Window(2, 3, (0, 0, 0, 0), (3, 2)), 1, 0)
