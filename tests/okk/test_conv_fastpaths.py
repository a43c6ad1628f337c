"""conv_sum's speed paths (plain-float combine when no product can be subnormal, row blocks on a
thread pool) give exactly the bits of the FTZ-everywhere serial path."""
import numpy as np
import pytest

from npusim.okk import bdc_conv


def _bits(a):
    return a.view(np.uint32)


def _run(xp, wv, k, monkeypatch, fast, parallel):
    monkeypatch.setattr(bdc_conv, "PARALLEL_MIN", 0 if parallel else 1 << 62)
    monkeypatch.setattr(bdc_conv, "BLOCK", 256)              # several row blocks even on small inputs
    if not fast:
        monkeypatch.setattr(bdc_conv, "plain_paths", lambda a, b: (False, False))
    o = xp.shape[2] - k + 1
    return bdc_conv.conv_sum(xp, wv, k, k, o, o, (1, 1), (1, 1))


@pytest.mark.parametrize("ic,k", [(1, 1), (1, 3), (2, 2), (3, 3), (5, 3)])
def test_fast_and_parallel_paths_match_ftz_serial_bits(ic, k, monkeypatch):
    r = np.random.default_rng(ic * 10 + k)
    xp = r.uniform(-1, 1, (2, ic, 12, 12)).astype(np.float32)
    wv = r.uniform(-1, 1, (3, ic, k, k)).astype(np.float32)
    xp[0, 0, 0, :4] = [-0.0, 0.0, -0.0, 0.5]                 # signed zeros reach the combine step
    wv[0, 0, 0, 0] = -0.0
    ref = _run(xp, wv, k, monkeypatch, fast=False, parallel=False)
    for fast in (False, True):
        for parallel in (False, True):
            with monkeypatch.context() as m:
                got = _run(xp, wv, k, m, fast, parallel)
            assert np.array_equal(_bits(got), _bits(ref)), (fast, parallel)


def test_lone_negative_zero_becomes_positive_zero(monkeypatch):
    # IC 1, 1x1: one product per output; the unit still adds the empty accumulators (+0)
    xp = np.full((1, 1, 2, 2), -0.0, np.float32)
    wv = np.ones((1, 1, 1, 1), np.float32)
    got = _run(xp, wv, 1, monkeypatch, fast=True, parallel=False)
    assert np.all(_bits(got) == 0)


def test_daz_padded_is_padded_daz_with_one_copy():
    from npusim.okk import fp32
    from npusim.okk.nn_common import daz_padded, padded
    x = np.array([1e-40, -1e-40, -0.0, 1.0, np.nan, -3e-39], np.float32).reshape(1, 1, 2, 3)
    for pad in ((0, 0, 0, 0), (1, 0, 2, 1)):
        raw = x.copy()
        got = daz_padded(raw, pad)
        assert np.array_equal(got.view(np.uint32), padded(fp32.daz(x), pad, 0.0).view(np.uint32))
        assert np.array_equal(raw.view(np.uint32), x.view(np.uint32))         # the input is not touched
