"""nl composites of part two (reductions, softmax, rms_norm, broadcast_to, expand_dims, where, activation
functions) against float64 numpy, and an SPMD kernel over a 2-D grid with nl.program_id."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


def test_reductions_over_free_axes(run):
    x = rand((16, 4, 8), 1)
    t = tile(x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(nl.sum(t, axis=2).numpy(), x64.sum(2), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(nl.max(t, axis=(1, 2)).numpy()[:, 0], x.max((1, 2)))
    np.testing.assert_array_equal(nl.min(t, axis=-1).numpy(), x.min(2))
    np.testing.assert_allclose(nl.mean(t, axis=(1, 2)).numpy()[:, 0], x64.mean((1, 2)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(nl.prod(t, axis=2).numpy(), x64.prod(2), rtol=1e-5)
    assert nl.sum(t, axis=2, keepdims=True).shape == (16, 4, 1)
    assert nl.sum(t, axis=(1, 2)).shape == (16, 1)
    with pytest.raises(ConstraintError, match="last contiguous free axes"):
        nl.sum(t, axis=1)


def test_softmax_and_rms_norm(run):
    x = rand((64, 200), 2, -5, 5)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(1, keepdims=True))
    np.testing.assert_allclose(nl.softmax(tile(x), axis=1).numpy(), e / e.sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-7)
    w = rand((1, 200), 3)
    want = x64 / np.sqrt((x64 ** 2).mean(1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(nl.rms_norm(tile(x), tile(w), axis=1, n=200).numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ConstraintError, match="every free axis"):
        nl.softmax(tile(rand((4, 2, 3))), axis=2)


def test_broadcast_to_both_directions(run):
    row = rand((1, 700), 4)
    out = nl.broadcast_to(tile(row), (128, 700))
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(row, (128, 700)))
    rb = nl.broadcast_to(tile(row, nl.bfloat16), (8, 700))
    np.testing.assert_array_equal(rb.numpy(), np.broadcast_to(row.astype(ml_dtypes.bfloat16), (8, 700)))
    col = rand((32, 1), 5)
    np.testing.assert_array_equal(nl.broadcast_to(tile(col), (32, 9)).numpy(), np.broadcast_to(col, (32, 9)))
    with pytest.raises(ConstraintError, match="size-1 dim"):
        nl.broadcast_to(tile(rand((2, 3))), (4, 3))


def test_expand_dims_and_where(run):
    x, y = rand((8, 6), 6), rand((8, 6), 7)
    t = tile(x)
    assert nl.expand_dims(t, 1).shape == (8, 1, 6) and nl.expand_dims(t, -1).shape == (8, 6, 1)
    with pytest.raises(ConstraintError, match="free axis"):
        nl.expand_dims(t, 0)
    cond = nl.greater(t, 0.0)
    np.testing.assert_array_equal(nl.where(cond, t, tile(y)).numpy(), np.where(x > 0, x, y))
    np.testing.assert_array_equal(nl.where(cond, 1.0, t).numpy(), np.where(x > 0, 1.0, x))


def test_transpose_language(run):
    x = rand((100, 64), 8)
    np.testing.assert_array_equal(nl.transpose(tile(x)).numpy(), x.T)


def test_spmd_2d_grid_program_ids():
    @nki.jit
    def scale_blocks(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        i, j = nl.program_id(0), nl.program_id(1)
        rows, cols = nl.ds(i * 128, 128), nl.ds(j * 256, 256)
        t = nl.load(a[rows, cols])
        y = nl.ndarray(t.shape, a.dtype, buffer=nl.sbuf)
        nisa.activation(dst=y, op=nl.copy, data=t, scale=float(10 * i + j + 1))
        nl.store(out[rows, cols], y)
        return out

    a = rand((256, 768), 9)
    got = scale_blocks[2, 3](a)
    factor = 10 * np.repeat(np.arange(2), 128)[:, None] + np.repeat(np.arange(3), 256)[None, :] + 1
    np.testing.assert_array_equal(got, (a * factor).astype(np.float32))
    run = nki.last_run()
    assert run.grid == (2, 3)
    assert sum(1 for e in run.trace.events if e.name == "nisa.activation") == 6


def test_malformed_arguments_raise_constraint_errors(run):
    t = tile(rand((4, 8)))
    for call in (lambda: nl.sum(t, None), lambda: nl.softmax(t, "x"), lambda: nl.broadcast_to(t, None),
                 lambda: nl.expand_dims(t, None), lambda: nl.where(nl.greater(t, 0.0), None, t),
                 lambda: nisa.tensor_reduce(nl.ndarray((4, 1), nl.float32), nl.add, t, nl.add)):
        with pytest.raises(ConstraintError):
            call()
