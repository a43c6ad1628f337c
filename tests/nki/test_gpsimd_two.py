"""iota and affine_select on GpSimd: int32 affine values, causal masks, rules, cost 150 + N."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


def test_iota_pattern_offset_channel_multiplier(run):
    d = nl.ndarray((4, 2, 3), nl.int32)
    ins = nisa.iota(d, [[10, 2], [1, 3]], offset=5, channel_multiplier=100)
    p, i, j = np.meshgrid(np.arange(4), np.arange(2), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(d.numpy(), 5 + 100 * p + 10 * i + j)
    assert ins.event.engine == "gpsimd" and ins.event.cycles == 150 + 6


def test_iota_wraps_in_int32_then_casts(run):
    d = nl.ndarray((1, 2), nl.int32)
    nisa.iota(d, [[1, 2]], offset=2 ** 31 - 1)
    np.testing.assert_array_equal(d.numpy()[0], [2 ** 31 - 1, -2 ** 31])
    f = nl.ndarray((2, 3), nl.bfloat16)
    nisa.iota(f, [[257, 3]], channel_multiplier=1)
    want = (np.arange(2)[:, None] + 257 * np.arange(3)[None, :]).astype(np.float32).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(f.numpy(), want)


def test_iota_rules(run):
    with pytest.raises(ConstraintError, match="pattern's 6 elements"):
        nisa.iota(nl.ndarray((2, 5), nl.int32), [[1, 6]])
    with pytest.raises(ConstraintError, match="GpSimd cannot access PSUM"):
        nisa.iota(nl.ndarray((2, 6), nl.float32, buffer=nl.psum), [[1, 6]])
    with pytest.raises(ConstraintError, match="1 to 4"):
        nisa.iota(nl.ndarray((2, 1), nl.int32), [[1, 1]] * 5)
    with pytest.raises(ConstraintError, match="integer"):
        nisa.iota(nl.ndarray((2, 6), nl.int32), [[1, 6]], offset=0.5)
    with pytest.raises(ConstraintError, match="step, num"):
        nisa.iota(nl.ndarray((2, 6), nl.int32), [1, 6])


def test_affine_select_causal_mask(run):
    s = rand((128, 128), 1)
    d = nl.ndarray(s.shape, nl.float32)
    # keep key j <= query p: p - j >= 0
    ins = nisa.affine_select(d, [[-1, 128]], 1, tile(s), -9984.0, cmp_op=nl.greater_equal)
    keep = np.arange(128)[None, :] <= np.arange(128)[:, None]
    np.testing.assert_array_equal(d.numpy(), np.where(keep, s, np.float32(-9984.0)))
    assert ins.event.engine == "gpsimd" and ins.event.cycles == 150 + 128


def test_affine_select_offset_and_bf16(run):
    s = rand((8, 16), 2)
    d = nl.ndarray(s.shape, nl.bfloat16)
    nisa.affine_select(d, [[-1, 16]], 1, tile(s, nl.bfloat16), -1e30, cmp_op=nl.greater_equal, offset=4)
    keep = np.arange(16)[None, :] <= np.arange(8)[:, None] + 4
    fill = np.float32(-1e30).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(d.numpy(), np.where(keep, s.astype(ml_dtypes.bfloat16), fill))


def test_affine_select_rules(run):
    s = tile(rand((8, 16)))
    d = nl.ndarray((8, 16), nl.float32)
    with pytest.raises(ConstraintError, match="comparison operator"):
        nisa.affine_select(d, [[-1, 16]], 1, s, 0.0, cmp_op=nl.add)
    with pytest.raises(ConstraintError, match="covers dst"):
        nisa.affine_select(d, [[-1, 8]], 1, s, 0.0)
    with pytest.raises(ConstraintError, match="GpSimd cannot access PSUM"):
        nisa.affine_select(d, [[-1, 16]], 1, tile(rand((8, 16)), buffer=nl.psum), 0.0)
    with pytest.raises(ConstraintError, match="float32 scalar"):
        nisa.affine_select(d, [[-1, 16]], 1, s, on_false_value=s)
    with pytest.raises(ConstraintError, match="required"):
        nisa.affine_select(d, [[-1, 16]], 1, s)
    with pytest.raises(ConstraintError, match="given once"):
        nisa.affine_select(d, [[-1, 16]], 1, s, 0.0, channel_multiplier=1)


def test_affine_select_accepts_the_newest_positional_order(run):
    s = rand((8, 16), 3)
    d = nl.ndarray(s.shape, nl.float32)
    # (dst, pattern, offset, channel_multiplier, on_true_tile, on_false_value, cmp_op)
    nisa.affine_select(d, [[-1, 16]], 2, 1, tile(s), -5.0, nl.greater_equal)
    nisa.affine_select(d, [[-1, 16]], 2, 1, tile(s), -5.0, cmp_op=nl.greater_equal)
    nisa.affine_select(dst=d, pattern=[[-1, 16]], offset=2, channel_multiplier=1, on_true_tile=tile(s),
                       on_false_value=-5.0, cmp_op=nl.greater_equal)
    keep = np.arange(16)[None, :] <= np.arange(8)[:, None] + 2
    np.testing.assert_array_equal(d.numpy(), np.where(keep, s, np.float32(-5.0)))
